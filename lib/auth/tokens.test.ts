import { describe, expect, it } from "vitest";
import { apiTokenHash, newApiToken, newSessionToken, sha256Hex } from "@/lib/auth/tokens.ts";

describe("secrets", () => {
  it("stores sessions by the sha256 of the cookie value", () => {
    const s = newSessionToken();
    expect(s.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(s.id).toBe(sha256Hex(s.token));
    expect(s.id).toMatch(/^[0-9a-f]{64}$/);
    expect(newSessionToken().token).not.toBe(s.token);
  });

  it("makes API tokens vty_<prefix>_<secret> and stores only their hash", () => {
    const t = newApiToken();
    expect(t.token).toMatch(/^vty_[0-9a-f]{8}_[A-Za-z0-9_-]{43}$/);
    expect(t.token.startsWith(`vty_${t.prefix}_`)).toBe(true);
    expect(t.hash).toBe(sha256Hex(t.token));
    expect(apiTokenHash(t.token)).toBe(t.hash);
  });

  it("does not hash strings that are not shaped like a token", () => {
    const t = newApiToken();
    expect(apiTokenHash("")).toBeNull();
    expect(apiTokenHash("vty_abc_def")).toBeNull();
    expect(apiTokenHash(t.token + "x")).toBeNull();
    expect(apiTokenHash(t.token.replace("vty_", "vtx_"))).toBeNull();
  });

  it("matches the known sha256 of a fixed string", () => {
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});
