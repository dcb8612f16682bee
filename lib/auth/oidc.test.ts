import { AuthorizationResponseError, ClientError, Configuration, ResponseBodyError } from "openid-client";
import { describe, expect, it } from "vitest";
import {
  buildAuthorizationUrl,
  classifyOidcError,
  emailFromClaims,
  newOidcFlow,
  oidcErrorMessage,
  oidcSettings,
} from "@/lib/auth/oidc.ts";
import type { Env } from "@/lib/env.ts";

const baseEnv = {
  NODE_ENV: "test",
  PORT: 3000,
  VERITY_DATA_DIR: ".data",
  VERITY_PG_PORT: 54329,
  VERITY_SESSION_HOURS: 12,
  VERITY_CHROMIUM: "/usr/bin/chromium",
} as Env;

describe("OIDC settings", () => {
  it("is off by default and needs issuer, client id and secret together", () => {
    expect(oidcSettings(baseEnv)).toBeNull();
    expect(
      oidcSettings({ ...baseEnv, VERITY_OIDC_ISSUER: "https://id.example", VERITY_OIDC_CLIENT_ID: "verity" }),
    ).toBeNull();
    expect(
      oidcSettings({
        ...baseEnv,
        VERITY_OIDC_ISSUER: "https://id.example",
        VERITY_OIDC_CLIENT_ID: "verity",
        VERITY_OIDC_CLIENT_SECRET: "s",
      }),
    ).toEqual({
      issuer: "https://id.example",
      clientId: "verity",
      clientSecret: "s",
      redirectUri: undefined,
    });
  });
});

describe("OIDC authorization request", () => {
  it("asks for a code with the PKCE S256 challenge (RFC 7636 appendix B), state and nonce, keeping the endpoint's own query", async () => {
    const config = new Configuration(
      { issuer: "https://id.example", authorization_endpoint: "https://id.example/authorize?tenant=t1" },
      "verity console",
      "s",
    );
    const flow = {
      state: "s".repeat(20),
      nonce: "n".repeat(20),
      verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
    };
    const url = new URL(await buildAuthorizationUrl(config, "https://verity.example/auth/oidc/callback", flow));
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
    expect(a.nonce).not.toBe(b.nonce);
    expect(a.verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a.next).toBe("/runs");
  });
});

describe("the email of validated ID-token claims", () => {
  it("is trimmed and lower-cased; an absent email_verified is accepted", () => {
    expect(emailFromClaims({ email: " Lead@Example.com ", email_verified: true })).toEqual({
      ok: true,
      email: "lead@example.com",
    });
    expect(emailFromClaims({ email: "a@b.example" })).toEqual({ ok: true, email: "a@b.example" });
  });

  it.each([
    ["no email", {}, "sso_no_email"],
    ["an empty email", { email: "  " }, "sso_no_email"],
    ["a non-string email", { email: 42 }, "sso_no_email"],
    ["only email_verified", { email_verified: true }, "sso_no_email"],
    ["an unverified email", { email: "a@b.example", email_verified: false }, "sso_email_unverified"],
    ["an unverified email as a string", { email: "a@b.example", email_verified: "false" }, "sso_email_unverified"],
  ])("refuses %s, saying which", (_label, claims, code) => {
    expect(emailFromClaims(claims)).toMatchObject({ ok: false, code });
  });
});

const clientError = (message: string, code: string) => Object.assign(new ClientError(message), { code });

describe("sorting OIDC failures", () => {
  it("calls a token that fails its checks unverifiable, the issuer refusing the code a stale flow, the rest unreachable", () => {
    expect(
      classifyOidcError(clientError("unexpected JWT claim value encountered", "OAUTH_JWT_CLAIM_COMPARISON_FAILED"))
        .code,
    ).toBe("sso_token");
    expect(classifyOidcError(clientError("invalid response encountered", "OAUTH_INVALID_RESPONSE")).code).toBe(
      "sso_token",
    );
    expect(
      classifyOidcError(clientError("unexpected HTTP response status code", "OAUTH_RESPONSE_IS_NOT_CONFORM")).code,
    ).toBe("sso_unavailable");
    expect(classifyOidcError(new TypeError("fetch failed")).code).toBe("sso_unavailable");
    const refused = new ResponseBodyError("server responded with an error in the response body", {
      cause: { error: "invalid_grant" },
      response: Response.json({ error: "invalid_grant" }, { status: 400 }),
    });
    expect(classifyOidcError(refused)).toEqual({
      code: "sso_state",
      detail: "the token endpoint answered invalid_grant",
    });
    const denied = new AuthorizationResponseError("authorization response from the server is an error", {
      cause: new URLSearchParams({ error: "access_denied" }),
    });
    expect(classifyOidcError(denied)).toEqual({
      code: "sso_denied",
      detail: "the identity provider answered access_denied",
    });
  });

  it("has a message for every code the callback sends and none for anything else", () => {
    for (const code of ["sso_state", "sso_denied", "sso_token", "sso_unavailable", "sso_no_account", "sso_disabled"])
      expect(oidcErrorMessage(code)).toMatch(/\.$/);
    expect(oidcErrorMessage("toString")).toBeUndefined();
    expect(oidcErrorMessage("nope")).toBeUndefined();
  });
});
