import { describe, expect, it } from "vitest";
import { publicOrigin, publicUrl } from "@/lib/auth/public-origin.ts";

const own = new URL("http://localhost:3400/auth/oidc");
const h = (o: Record<string, string>) => new Headers(o);
const unset = { VERITY_PUBLIC_URL: undefined, VERITY_TRUSTED_PROXIES: undefined };

describe("the console's public origin", () => {
  it("is the request's Host, not the server's own name in the request URL", () => {
    expect(publicOrigin(h({ host: "127.0.0.1:3400" }), own, unset)).toBe("http://127.0.0.1:3400");
    expect(publicOrigin(h({ host: "Verity.Internal" }), own, unset)).toBe("http://verity.internal");
    expect(publicOrigin(h({ host: "[::1]:3400" }), own, unset)).toBe("http://[::1]:3400");
  });

  it("is VERITY_PUBLIC_URL when set, whatever the request says", () => {
    const e = { VERITY_PUBLIC_URL: "https://verity.example.org", VERITY_TRUSTED_PROXIES: "10.0.0.0/8" };
    const headers = h({ host: "127.0.0.1:3400", "x-forwarded-for": "10.0.0.2", "x-forwarded-host": "other.example" });
    expect(publicOrigin(headers, own, e)).toBe("https://verity.example.org");
  });

  it("believes X-Forwarded-Host and -Proto only from a trusted proxy", () => {
    const e = { VERITY_PUBLIC_URL: undefined, VERITY_TRUSTED_PROXIES: "10.0.0.0/8" };
    const forwarded = { host: "10.0.0.5:3000", "x-forwarded-host": "verity.example.org", "x-forwarded-proto": "https" };
    expect(publicOrigin(h({ ...forwarded, "x-forwarded-for": "203.0.113.5, 10.0.0.2" }), own, e)).toBe(
      "https://verity.example.org",
    );
    // the last hop (the connection) is no trusted proxy: the client's own X-Forwarded-* count for nothing
    expect(publicOrigin(h({ ...forwarded, "x-forwarded-for": "10.0.0.2, 203.0.113.5" }), own, e)).toBe(
      "http://10.0.0.5:3000",
    );
    expect(publicOrigin(h({ ...forwarded, "x-forwarded-for": "10.0.0.2" }), own, unset)).toBe("http://10.0.0.5:3000");
  });

  it("refuses a host that is not one, and falls back to the request URL only without a Host", () => {
    expect(publicOrigin(h({ host: "evil.example/path?" }), own, unset)).toBe("http://localhost:3400");
    expect(publicOrigin(h({ host: "a@b" }), own, unset)).toBe("http://localhost:3400");
    expect(publicOrigin(h({}), own, unset)).toBe("http://localhost:3400");
    expect(publicUrl("/sign-in?error=sso_state", "http://127.0.0.1:3400")).toBe(
      "http://127.0.0.1:3400/sign-in?error=sso_state",
    );
  });
});
