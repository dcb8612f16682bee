import { describe, expect, it } from "vitest";
import { buildAuthorizationUrl, discover, emailFromIdToken, exchangeCode, newOidcFlow, oidcSettings, pkceChallenge } from "@/lib/auth/oidc.ts";
import type { Env } from "@/lib/env.ts";

const baseEnv = { NODE_ENV: "test", PORT: 3000, VERITY_DATA_DIR: ".data", VERITY_PG_PORT: 54329, VERITY_SESSION_HOURS: 12, VERITY_CHROMIUM: "/usr/bin/chromium" } as Env;

const jwt = (claims: object) => ["e30", Buffer.from(JSON.stringify(claims)).toString("base64url"), "sig"].join(".");

describe("OIDC settings", () => {
  it("is off by default and needs issuer, client id and secret together", () => {
    expect(oidcSettings(baseEnv)).toBeNull();
    expect(oidcSettings({ ...baseEnv, VERITY_OIDC_ISSUER: "https://id.example", VERITY_OIDC_CLIENT_ID: "verity" })).toBeNull();
    expect(oidcSettings({ ...baseEnv, VERITY_OIDC_ISSUER: "https://id.example", VERITY_OIDC_CLIENT_ID: "verity", VERITY_OIDC_CLIENT_SECRET: "s" })).toEqual({
      issuer: "https://id.example",
      clientId: "verity",
      clientSecret: "s",
      redirectUri: undefined,
    });
  });
});

describe("OIDC authorization request", () => {
  it("computes the PKCE S256 challenge of RFC 7636 appendix B", () => {
    expect(pkceChallenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")).toBe("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
  });

  it("builds the authorization URL with code flow, PKCE, state and nonce", () => {
    const flow = { state: "s".repeat(20), nonce: "n".repeat(20), verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk" };
    const url = new URL(
      buildAuthorizationUrl({ authorization_endpoint: "https://id.example/authorize?tenant=t1" }, { clientId: "verity console", redirectUri: "https://verity.example/auth/oidc/callback" }, flow),
    );
    expect(url.origin + url.pathname).toBe("https://id.example/authorize");
    expect(Object.fromEntries(url.searchParams)).toEqual({
      tenant: "t1",
      response_type: "code",
      client_id: "verity console",
      redirect_uri: "https://verity.example/auth/oidc/callback",
      scope: "openid email profile",
      state: flow.state,
      nonce: flow.nonce,
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
    });
  });

  it("makes fresh, unguessable flow values each time", () => {
    const a = newOidcFlow("/runs");
    const b = newOidcFlow();
    expect(a.state).not.toBe(b.state);
    expect(a.verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a.next).toBe("/runs");
  });
});

describe("OIDC ID token checks", () => {
  const now = new Date("2025-06-01T12:00:00Z");
  const good = { iss: "https://id.example/", aud: "verity", exp: now.getTime() / 1000 + 60, nonce: "N".repeat(20), email: "Lead@Example.com", email_verified: true };
  const expect_ = { issuer: "https://id.example", clientId: "verity", nonce: "N".repeat(20), now };

  it("returns the verified email, lower-cased", () => {
    expect(emailFromIdToken(jwt(good), expect_)).toEqual({ ok: true, email: "lead@example.com" });
    expect(emailFromIdToken(jwt({ ...good, aud: ["other", "verity"] }), expect_).ok).toBe(true);
  });

  it.each([
    ["another issuer", { iss: "https://evil.example" }],
    ["another audience", { aud: "other" }],
    ["an expired token", { exp: now.getTime() / 1000 - 1 }],
    ["a replayed nonce", { nonce: "X".repeat(20) }],
    ["an unverified email", { email_verified: false }],
    ["no email", { email: undefined }],
  ])("refuses %s", (_label, patch) => {
    expect(emailFromIdToken(jwt({ ...good, ...patch }), expect_).ok).toBe(false);
  });

  it("refuses things that are not JWTs", () => {
    expect(emailFromIdToken("abc", expect_).ok).toBe(false);
    expect(emailFromIdToken("a.!!!.c", expect_).ok).toBe(false);
  });
});

describe("OIDC issuer calls", () => {
  it("reads the discovery document and insists on the same issuer", async () => {
    const doc = { issuer: "https://id.example", authorization_endpoint: "https://id.example/a", token_endpoint: "https://id.example/t" };
    const calls: string[] = [];
    const fake = (async (url: string) => {
      calls.push(url);
      return Response.json(doc);
    }) as unknown as typeof fetch;
    expect(await discover("https://id.example/", fake)).toEqual(doc);
    expect(calls).toEqual(["https://id.example/.well-known/openid-configuration"]);
    await expect(discover("https://other.example", fake)).rejects.toThrow(/names issuer/);
  });

  it("exchanges the code with the PKCE verifier and client_secret_basic", async () => {
    let seen: { headers: Headers; body: URLSearchParams } | undefined;
    const fake = (async (_url: string, init: RequestInit) => {
      seen = { headers: new Headers(init.headers), body: new URLSearchParams(init.body as URLSearchParams) };
      return Response.json({ id_token: "a.b.c", access_token: "x" });
    }) as unknown as typeof fetch;
    const r = await exchangeCode({ token_endpoint: "https://id.example/t" }, { clientId: "verity", clientSecret: "s3", redirectUri: "https://v/cb" }, "CODE", "VERIFIER", fake);
    expect(r).toEqual({ idToken: "a.b.c" });
    expect(seen!.headers.get("authorization")).toBe(`Basic ${Buffer.from("verity:s3").toString("base64")}`);
    expect(Object.fromEntries(seen!.body)).toEqual({ grant_type: "authorization_code", code: "CODE", redirect_uri: "https://v/cb", code_verifier: "VERIFIER" });
  });
});
