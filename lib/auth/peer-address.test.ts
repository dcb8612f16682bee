import type { IncomingHttpHeaders } from "node:http";
import { describe, expect, it } from "vitest";
import { clientAddress, fromTrustedProxy, trustedProxyList } from "@/lib/auth/client-address.ts";
import { recordPeer } from "@/lib/auth/peer-address.ts";

const none = trustedProxyList(undefined);
const proxies = trustedProxyList("10.0.0.0/8");

/** The headers the application sees for a request with `sent` headers arriving from `peer`. */
function seen(sent: IncomingHttpHeaders, peer: string | undefined, trusted = none): Headers {
  const h = { ...sent };
  recordPeer(h, peer, trusted);
  return new Headers(Object.entries(h).map(([k, v]): [string, string] => [k, [v].flat().join(", ")]));
}

const spoof = {
  host: "console.example",
  "x-forwarded-for": "6.6.6.6",
  "x-forwarded-host": "evil.example",
  "x-forwarded-proto": "https",
  "x-forwarded-port": "443",
  forwarded: "for=6.6.6.6;host=evil.example",
};

describe("the connection's own address, recorded before Next sees the request", () => {
  it("without trusted proxies, replaces whatever X-Forwarded-For the client sent, and drops its X-Forwarded-*", () => {
    const h = seen(spoof, "::ffff:203.0.113.9");
    expect(h.get("x-forwarded-for")).toBe("203.0.113.9");
    for (const name of ["x-forwarded-host", "x-forwarded-proto", "x-forwarded-port", "forwarded"])
      expect(h.get(name)).toBeNull();
    expect(h.get("host")).toBe("console.example");
    expect(clientAddress(h, none)).toBe("203.0.113.9");
    // a client that appends the address it wants blamed gets nowhere either
    expect(clientAddress(seen({ "x-forwarded-for": "1.1.1.1, 203.0.113.1" }, "198.51.100.4"), none)).toBe(
      "198.51.100.4",
    );
  });

  it("is the connection's address for a request that sent none", () => {
    expect(clientAddress(seen({}, "::1"), none)).toBe("::1");
    expect(clientAddress(seen({ "x-forwarded-for": "6.6.6.6" }, undefined), none)).toBe("");
  });

  it("from a trusted proxy, is appended to the chain, and the proxy's X-Forwarded-* are kept", () => {
    const h = seen({ ...spoof, "x-forwarded-for": "6.6.6.6, 203.0.113.5" }, "10.1.2.3", proxies);
    expect(h.get("x-forwarded-for")).toBe("6.6.6.6, 203.0.113.5, 10.1.2.3");
    expect(h.get("x-forwarded-host")).toBe("evil.example");
    expect(clientAddress(h, proxies)).toBe("203.0.113.5");
    expect(fromTrustedProxy(h, proxies)).toBe(true);
  });

  it("from an untrusted peer while proxies are configured, believes nothing the request says", () => {
    const h = seen({ ...spoof, "x-forwarded-for": "10.9.9.9" }, "203.0.113.7", proxies);
    expect(h.get("x-forwarded-for")).toBe("203.0.113.7");
    expect(h.get("x-forwarded-host")).toBeNull();
    expect(clientAddress(h, proxies)).toBe("203.0.113.7");
    expect(fromTrustedProxy(h, proxies)).toBe(false);
  });
});
