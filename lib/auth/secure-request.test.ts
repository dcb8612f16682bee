import { describe, expect, it } from "vitest";
import { isSecureRequest } from "@/lib/auth/secure-request.ts";

const h = (init: Record<string, string> = {}) => new Headers(init);

describe("the Secure cookie flag", () => {
  it("is off for plain http", () => {
    expect(isSecureRequest(h(), new URL("http://localhost:3000/"), undefined)).toBe(false);
    expect(isSecureRequest(h({ "x-forwarded-proto": "http" }), undefined, "0")).toBe(false);
  });
  it("is on over https, directly or behind a proxy that says so", () => {
    expect(isSecureRequest(h(), new URL("https://verity.example/"), undefined)).toBe(true);
    expect(isSecureRequest(h({ "x-forwarded-proto": "https, http" }), undefined, undefined)).toBe(true);
    expect(isSecureRequest(h({ origin: "https://verity.example" }), undefined, undefined)).toBe(true);
  });
  it("is forced on by VERITY_SECURE_COOKIES", () => {
    expect(isSecureRequest(h(), new URL("http://localhost/"), "1")).toBe(true);
    expect(isSecureRequest(h(), new URL("http://localhost/"), "true")).toBe(true);
    expect(isSecureRequest(h(), new URL("http://localhost/"), "false")).toBe(false);
  });
});
