import { describe, expect, it } from "vitest";
import { clientAddress, normalizeAddress, trustedProxyList } from "@/lib/auth/client-address.ts";
import { invalidProxyEntries } from "@/lib/env.ts";

const xff = (value?: string) => new Headers(value === undefined ? {} : { "x-forwarded-for": value });
const none = trustedProxyList(undefined);

describe("the client address", () => {
  it("is the connection's address the listener records (lib/auth/peer-address.ts)", () => {
    expect(clientAddress(xff("10.0.0.7"), none)).toBe("10.0.0.7");
    expect(clientAddress(xff(), none)).toBe("");
    expect(clientAddress(xff(" , "), none)).toBe("");
  });

  it("without trusted proxies, is the last hop: the connection's address", () => {
    // A client that writes its own header cannot pick the address a proxy appended after it.
    expect(clientAddress(xff("1.1.1.1, 2.2.2.2, 203.0.113.5"), none)).toBe("203.0.113.5");
  });

  it("skips trusted proxies from the right and stops at the first other address", () => {
    const trusted = trustedProxyList("10.0.0.0/8, 192.168.1.10");
    // client 203.0.113.5 → edge proxy 10.1.2.3 (trusted) → inner proxy 192.168.1.10 (trusted)
    expect(clientAddress(xff("6.6.6.6, 203.0.113.5, 10.1.2.3, 192.168.1.10"), trusted)).toBe("203.0.113.5");
    expect(clientAddress(xff("203.0.113.5, 198.51.100.1, 10.1.2.3"), trusted)).toBe("198.51.100.1");
    // all hops trusted: the leftmost is the best there is
    expect(clientAddress(xff("10.9.9.9, 10.1.2.3"), trusted)).toBe("10.9.9.9");
    // a non-address is never trusted
    expect(clientAddress(xff("203.0.113.5, unknown"), trusted)).toBe("unknown");
  });

  it("matches IPv6 ranges and IPv4-mapped addresses", () => {
    const trusted = trustedProxyList("fd00::/8, 10.0.0.1");
    expect(clientAddress(xff("2001:db8::1, fd12::3"), trusted)).toBe("2001:db8::1");
    expect(clientAddress(xff("203.0.113.9, ::ffff:10.0.0.1"), trusted)).toBe("203.0.113.9");
  });
});

describe("X-Forwarded-For entries", () => {
  it.each([
    [" 10.0.0.1 ", "10.0.0.1"],
    ["10.0.0.1:5123", "10.0.0.1"],
    ["[2001:DB8::1]:443", "2001:db8::1"],
    ["[::1]", "::1"],
    ["::ffff:192.0.2.4", "192.0.2.4"],
    ["2001:db8::1", "2001:db8::1"],
  ])("%s is %s", (raw, address) => {
    expect(normalizeAddress(raw)).toBe(address);
  });

  it("are cut at 100 characters", () => {
    expect(normalizeAddress("x".repeat(500))).toHaveLength(100);
  });
});

describe("VERITY_TRUSTED_PROXIES", () => {
  it("accepts addresses and CIDR ranges, and names what is neither", () => {
    expect(invalidProxyEntries("10.0.0.1, 10.0.0.0/8,fd00::/8 , ::1")).toEqual([]);
    expect(invalidProxyEntries("")).toEqual([]);
    expect(invalidProxyEntries("10.0.0.1, proxy.local, 10.0.0.0/33, 10.0.0.0/8/1, fd00::/129, 10.0.0.0/x")).toEqual([
      "proxy.local",
      "10.0.0.0/33",
      "10.0.0.0/8/1",
      "fd00::/129",
      "10.0.0.0/x",
    ]);
  });
});
