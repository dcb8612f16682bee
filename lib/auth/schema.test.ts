import { describe, expect, it } from "vitest";
import { emailField, nextPath, signInInput } from "@/lib/auth/schema.ts";

describe("sign-in input", () => {
  it("normalises the email and keeps the password as typed", () => {
    const r = signInInput.parse({ email: "  Lead@Verity.Local ", password: " pw " });
    expect(r).toEqual({ email: "lead@verity.local", password: " pw ", next: undefined });
  });

  it("names the field that is wrong", () => {
    const r = signInInput.safeParse({ email: "not-an-email", password: "" });
    expect(r.success).toBe(false);
    const paths = r.error!.issues.map((i) => i.path[0]);
    expect(paths).toContain("email");
    expect(paths).toContain("password");
  });

  it("only follows `next` to paths on this site", () => {
    expect(nextPath.parse("/runs?x=1")).toBe("/runs?x=1");
    expect(nextPath.parse("//evil.example/x")).toBeUndefined();
    expect(nextPath.parse("/\\evil.example")).toBeUndefined();
    expect(nextPath.parse("https://evil.example")).toBeUndefined();
    expect(nextPath.parse("runs")).toBeUndefined();
    expect(nextPath.parse(undefined)).toBeUndefined();
  });

  it("rejects emails without a domain", () => {
    expect(emailField.safeParse("a@").success).toBe(false);
    expect(emailField.safeParse("a@b.co").success).toBe(true);
  });
});
