import { describe, expect, it } from "vitest";
import { contentSecurityPolicy } from "@/lib/auth/csp.ts";

const directives = (csp: string) =>
  Object.fromEntries(csp.split("; ").map((d) => [d.split(" ")[0], d.split(" ").slice(1)]));

describe("content security policy", () => {
  it("runs only scripts with this response's nonce, in production", () => {
    const d = directives(contentSecurityPolicy("abc123", { dev: false, https: false }));
    expect(d["script-src"]).toEqual(["'self'", "'nonce-abc123'", "'strict-dynamic'"]);
    expect(d["script-src"]).not.toContain("'unsafe-inline'");
    expect(d["script-src"]).not.toContain("'unsafe-eval'");
  });

  it("forbids framing, plugins and foreign form targets", () => {
    const d = directives(contentSecurityPolicy("n", { dev: false, https: false }));
    expect(d["frame-ancestors"]).toEqual(["'none'"]);
    expect(d["object-src"]).toEqual(["'none'"]);
    expect(d["form-action"]).toEqual(["'self'"]);
    expect(d["default-src"]).toEqual(["'self'"]);
    expect(d["upgrade-insecure-requests"]).toBeUndefined();
  });

  it("adds eval only for the dev server and the upgrade only over https", () => {
    expect(directives(contentSecurityPolicy("n", { dev: true, https: false }))["script-src"]).toContain(
      "'unsafe-eval'",
    );
    expect(directives(contentSecurityPolicy("n", { dev: false, https: true }))["upgrade-insecure-requests"]).toEqual(
      [],
    );
  });
});
