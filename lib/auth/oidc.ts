// OpenID Connect sign-in, authorization-code flow with PKCE (S256), state and nonce, through `openid-client`: it
// reads the issuer's discovery document, trades the code at the token endpoint and validates the ID token — its
// RS256/ES256… signature against the issuer's JWKS (non-repudiation checks on), iss, aud, exp, iat and nonce. Off
// unless VERITY_OIDC_ISSUER, VERITY_OIDC_CLIENT_ID and VERITY_OIDC_CLIENT_SECRET are set. Users are matched by
// verified email to existing accounts; OIDC never creates users or changes roles.
import * as oidc from "openid-client";
import { z } from "zod";
import { nextPath } from "@/lib/auth/schema.ts";
import type { Env } from "@/lib/env.ts";

export type OidcSettings = { issuer: string; clientId: string; clientSecret: string; redirectUri?: string };

export function oidcSettings(e: Env): OidcSettings | null {
  if (!e.VERITY_OIDC_ISSUER || !e.VERITY_OIDC_CLIENT_ID || !e.VERITY_OIDC_CLIENT_SECRET) return null;
  return {
    issuer: e.VERITY_OIDC_ISSUER,
    clientId: e.VERITY_OIDC_CLIENT_ID,
    clientSecret: e.VERITY_OIDC_CLIENT_SECRET,
    redirectUri: e.VERITY_OIDC_REDIRECT_URI,
  };
}

/** What the browser carries (in a short-lived HTTP-only cookie) from the redirect to the callback. */
export const oidcFlowState = z.object({
  state: z.string().min(16),
  nonce: z.string().min(16),
  verifier: z.string().min(43).max(128),
  // Re-checked as a path on this site: the cookie comes back from the browser.
  next: nextPath,
});
export type OidcFlowState = z.infer<typeof oidcFlowState>;

export function newOidcFlow(next?: string): OidcFlowState {
  return { state: oidc.randomState(), nonce: oidc.randomNonce(), verifier: oidc.randomPKCECodeVerifier(), next };
}

/** Why an OIDC sign-in was refused; the sign-in page shows OIDC_SIGN_IN_ERRORS[code]. */
export type OidcErrorCode =
  | "sso_state"
  | "sso_denied"
  | "sso_token"
  | "sso_no_email"
  | "sso_email_unverified"
  | "sso_unavailable"
  | "sso_no_account"
  | "sso_disabled";

export const OIDC_SIGN_IN_ERRORS: Record<OidcErrorCode, string> = {
  sso_state: "Single sign-on did not complete (the sign-in link expired or was used twice). Try again.",
  sso_denied: "The identity provider did not sign you in. Try again, or sign in with your password.",
  sso_token: "The identity provider's answer could not be verified. Try again or ask an admin.",
  sso_no_email:
    "The identity provider did not tell Verity your email address. Ask an admin to let Verity read it (the email scope).",
  sso_email_unverified:
    "The identity provider has not verified your email address. Verify it there, then sign in again.",
  sso_unavailable: "The identity provider could not be reached. Try again later or sign in with your password.",
  sso_no_account: "No Verity account has the email your identity provider gave. Ask an admin to create one.",
  sso_disabled: "The Verity account with the email your identity provider gave is disabled. Ask an admin to enable it.",
};

/** The sign-in page's notice for an ?error= code; undefined for anything else. */
export function oidcErrorMessage(code: string): string | undefined {
  return Object.hasOwn(OIDC_SIGN_IN_ERRORS, code) ? OIDC_SIGN_IN_ERRORS[code as OidcErrorCode] : undefined;
}

/** Plain http is allowed only for an issuer on this machine (a development or test provider), never over a network. */
function isLoopback(url: URL): boolean {
  return url.hostname === "localhost" || url.hostname === "[::1]" || /^127(\.\d{1,3}){3}$/.test(url.hostname);
}

const DISCOVERY_TTL_MS = 60 * 60_000;
const configurations = new Map<string, { at: number; config: Promise<oidc.Configuration> }>();

/**
 * The issuer's client configuration (discovery document; the JWKS is fetched and cached by the library, and fetched
 * again when a token names an unknown key), discovered once an hour per settings, or afresh when the kept one is
 * older than `maxAgeMs` (sign-in start asks with 0: the fetch proves the issuer is reachable before the browser is
 * sent there). A failed discovery is not kept.
 */
export function oidcConfiguration(
  s: OidcSettings,
  { now = Date.now(), maxAgeMs = DISCOVERY_TTL_MS }: { now?: number; maxAgeMs?: number } = {},
): Promise<oidc.Configuration> {
  const key = JSON.stringify([s.issuer, s.clientId, s.clientSecret]);
  const cached = configurations.get(key);
  if (cached && now - cached.at < Math.min(maxAgeMs, DISCOVERY_TTL_MS)) return cached.config;
  const issuer = new URL(s.issuer);
  const execute = isLoopback(issuer)
    ? [oidc.enableNonRepudiationChecks, oidc.allowInsecureRequests]
    : [oidc.enableNonRepudiationChecks];
  const config = oidc.discovery(issuer, s.clientId, s.clientSecret, oidc.ClientSecretBasic(s.clientSecret), {
    execute,
    timeout: 10,
  });
  configurations.set(key, { at: now, config });
  config.catch(() => {
    if (configurations.get(key)?.config === config) configurations.delete(key);
  });
  return config;
}

/** The issuer's authorization endpoint with response_type=code, the PKCE S256 challenge, state and nonce. */
export async function buildAuthorizationUrl(
  config: oidc.Configuration,
  redirectUri: string,
  flow: OidcFlowState,
): Promise<string> {
  return oidc
    .buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: "openid email profile",
      state: flow.state,
      nonce: flow.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(flow.verifier),
      code_challenge_method: "S256",
    })
    .toString();
}

const emailClaims = z.object({
  email: z.string().optional(),
  email_verified: z.union([z.boolean(), z.string()]).optional(),
});

export type EmailFromClaims =
  { ok: true; email: string } | { ok: false; code: "sso_no_email" | "sso_email_unverified"; error: string };

/** The email of validated claims, lower-cased; refused when missing or when the issuer says it is unverified. */
export function emailFromClaims(claims: unknown): EmailFromClaims {
  const c = emailClaims.safeParse(claims);
  if (!c.success || !c.data.email?.trim())
    return { ok: false, code: "sso_no_email", error: "the identity provider sent no email (request the email scope)" };
  if (c.data.email_verified === false || c.data.email_verified === "false")
    return { ok: false, code: "sso_email_unverified", error: "the identity provider has not verified this email" };
  return { ok: true, email: c.data.email.trim().toLowerCase() };
}

/** Whether claims name an email at all (email_verified without email does not count). */
function hasEmail(claims: unknown): boolean {
  const c = emailClaims.safeParse(claims);
  return c.success && Boolean(c.data.email?.trim());
}

export type OidcCallbackResult = { ok: true; email: string } | { ok: false; code: OidcErrorCode; detail: string };

/**
 * Sorts what openid-client throws: the issuer refusing the code (expired, used twice, wrong verifier) is a stale
 * flow; a token that fails signature, claim or time checks is unverifiable; a network, HTTP or metadata failure is
 * an unreachable issuer.
 */
export function classifyOidcError(err: unknown): { code: OidcErrorCode; detail: string } {
  const message = err instanceof Error ? err.message : String(err);
  const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : "";
  const detail = `${message}${cause}`.slice(0, 300);
  if (err instanceof oidc.ResponseBodyError)
    return { code: "sso_state", detail: `the token endpoint answered ${err.error}` };
  if (err instanceof oidc.AuthorizationResponseError)
    return { code: "sso_denied", detail: `the identity provider answered ${err.error}` };
  if (err instanceof oidc.ClientError) {
    const unverifiable = [
      "OAUTH_INVALID_RESPONSE",
      "OAUTH_JWT_CLAIM_COMPARISON_FAILED",
      "OAUTH_JWT_TIMESTAMP_CHECK_FAILED",
      "OAUTH_KEY_SELECTION_FAILED",
      "OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED",
      "OAUTH_PARSE_ERROR",
      "ERR_JOSE_NOT_SUPPORTED",
    ];
    if (err.code && unverifiable.includes(err.code)) return { code: "sso_token", detail };
  }
  return { code: "sso_unavailable", detail };
}

/**
 * Completes the flow at the callback: checks the authorization response against the flow's state, trades the code
 * with the PKCE verifier (client_secret_basic) at the token endpoint, validates the ID token (signature, iss, aud,
 * exp, nonce) and returns its verified email — from the ID token, or from the UserInfo endpoint when the ID token has
 * none. `callbackUrl` is the URL the issuer redirected to; its query is read
 * against `redirectUri`, the address the authorization request named.
 */
export async function completeOidcSignIn(
  config: oidc.Configuration,
  callbackUrl: URL,
  redirectUri: string,
  flow: OidcFlowState,
): Promise<OidcCallbackResult> {
  const current = new URL(redirectUri);
  current.search = callbackUrl.search;
  try {
    const tokens = await oidc.authorizationCodeGrant(config, current, {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
    });
    let claims: unknown = tokens.claims();
    // A provider may put the email in the UserInfo response only (OIDC Core 5.4: scope-requested claims are returned
    // there when an access token is issued); its sub must be the ID token's (5.3.2), which fetchUserInfo checks.
    if (!hasEmail(claims) && config.serverMetadata().userinfo_endpoint) {
      const sub = tokens.claims()!.sub;
      claims = await oidc.fetchUserInfo(config, tokens.access_token, sub);
    }
    const email = emailFromClaims(claims);
    return email.ok ? email : { ok: false, code: email.code, detail: email.error };
  } catch (err) {
    return { ok: false, ...classifyOidcError(err) };
  }
}
