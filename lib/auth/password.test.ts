import { describe, expect, it } from "vitest";
import { hashPassword, verifyAgainstDummy, verifyPassword } from "@/lib/auth/password.ts";

describe("password hashing (scrypt)", () => {
  it("stores algorithm, parameters, salt and key, never the password", async () => {
    const h = await hashPassword("correct horse battery staple");
    const parts = h.split("$");
    expect(parts).toHaveLength(6);
    expect(parts.slice(0, 4)).toEqual(["scrypt", "32768", "8", "1"]);
    expect(Buffer.from(parts[4], "base64url")).toHaveLength(16);
    expect(Buffer.from(parts[5], "base64url")).toHaveLength(32);
    expect(h).not.toContain("horse");
  });

  it("verifies the right password and refuses a wrong one", async () => {
    const h = await hashPassword("s3cret-pass");
    expect(await verifyPassword("s3cret-pass", h)).toBe(true);
    expect(await verifyPassword("s3cret-pasS", h)).toBe(false);
    expect(await verifyPassword("", h)).toBe(false);
  });

  it("salts each hash: the same password hashes differently", async () => {
    const [a, b] = await Promise.all([hashPassword("same"), hashPassword("same")]);
    expect(a).not.toBe(b);
    expect(await verifyPassword("same", a)).toBe(true);
    expect(await verifyPassword("same", b)).toBe(true);
  });

  it("treats canonically equal Unicode spellings as the same password", async () => {
    const h = await hashPassword("caf\u00e9"); // é precomposed
    expect(await verifyPassword("cafe\u0301", h)).toBe(true); // e + combining acute
  });

  it("never matches a missing, malformed or tampered hash", async () => {
    const h = await hashPassword("pw");
    const p = h.split("$");
    expect(await verifyPassword("pw", null)).toBe(false);
    expect(await verifyPassword("pw", undefined)).toBe(false);
    expect(await verifyPassword("pw", "")).toBe(false);
    expect(await verifyPassword("pw", "bcrypt$1$2$3$4$5")).toBe(false);
    expect(await verifyPassword("pw", [...p.slice(0, 5)].join("$"))).toBe(false);
    // absurd parameters are refused before scrypt would allocate gigabytes
    expect(await verifyPassword("pw", ["scrypt", String(1 << 30), "8", "1", p[4], p[5]].join("$"))).toBe(false);
    expect(await verifyPassword("pw", ["scrypt", "1000", "8", "1", p[4], p[5]].join("$"))).toBe(false);
    // a different key of the same length does not match
    const other = Buffer.alloc(32, 7).toString("base64url");
    expect(await verifyPassword("pw", [...p.slice(0, 5), other].join("$"))).toBe(false);
  });

  it("verifies hashes made with other (valid) parameters, as stored", async () => {
    // N=16384 r=8 p=1: an older, cheaper setting must still verify after the default changes.
    const { scryptSync } = await import("node:crypto");
    const salt = Buffer.alloc(16, 1);
    const key = scryptSync("legacy", salt, 32, { N: 16384, r: 8, p: 1 });
    const stored = ["scrypt", 16384, 8, 1, salt.toString("base64url"), key.toString("base64url")].join("$");
    expect(await verifyPassword("legacy", stored)).toBe(true);
    expect(await verifyPassword("legacy!", stored)).toBe(false);
  });

  it("spends a verification on unknown emails and always says no", async () => {
    expect(await verifyAgainstDummy("not a real password")).toBe(false);
  });
});
