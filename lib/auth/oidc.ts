// OpenID Connect sign-in, authorization-code flow with PKCE (RFC 7636, S256), against any issuer with a discovery
// document. Off unless VERITY_OIDC_ISSUER, VERITY_OIDC_CLIENT_ID and VERITY_OIDC_CLIENT_SECRET are set. Users are
// matched by verified email to existing accounts; OIDC never creates users or changes roles.
import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import type { Env } from "@/lib/env.ts";

export type OidcSettings = { issuer: string; clientId: string; clientSecret: string; redirectUri?: string };

export function oidcSettings(e: Env): OidcSettings | null {
  if (!e.VERITY_OIDC_ISSUER || !e.VERITY_OIDC_CLIENT_ID || !e.VERITY_OIDC_CLIENT_SECRET) return null;
  return { issuer: e.VERITY_OIDC_ISSUER, clientId: e.VERITY_OIDC_CLIENT_ID, clientSecret: e.VERITY_OIDC_CLIENT_SECRET, redirectUri: e.VERITY_OIDC_REDIRECT_URI };
}

/** What the browser carries (in a short-lived HTTP-only cookie) from the redirect to the callback. */
export const oidcFlowState = z.object({
  state: z.string().min(16),
  nonce: z.string().min(16),
  verifier: z.string().min(43).max(128),
  next: z.string().optional(),
});
export type OidcFlowState = z.infer<typeof oidcFlowState>;

export function newOidcFlow(next?: string): OidcFlowState {
  const r = () => randomBytes(32).toString("base64url");
  return { state: r(), nonce: r(), verifier: r(), next };
}

export function pkceChallenge(verifier: string): string {
  return createHash("sha256").update(verifier).digest("base64url");
}

export const discoveryDocument = z.object({
  issuer: z.string().url(),
  authorization_endpoint: z.string().url(),
  token_endpoint: z.string().url(),
});
export type Discovery = z.infer<typeof discoveryDocument>;

export function buildAuthorizationUrl(d: Pick<Discovery, "authorization_endpoint">, s: { clientId: string; redirectUri: string }, flow: OidcFlowState): string {
  const url = new URL(d.authorization_endpoint);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", s.clientId);
  url.searchParams.set("redirect_uri", s.redirectUri);
  url.searchParams.set("scope", "openid email profile");
  url.searchParams.set("state", flow.state);
  url.searchParams.set("nonce", flow.nonce);
  url.searchParams.set("code_challenge", pkceChallenge(flow.verifier));
  url.searchParams.set("code_challenge_method", "S256");
  return url.toString();
}

const idTokenClaims = z.object({
  iss: z.string(),
  aud: z.union([z.string(), z.array(z.string())]),
  exp: z.number(),
  nonce: z.string().optional(),
  email: z.string().optional(),
  email_verified: z.union([z.boolean(), z.string()]).optional(),
});

/**
 * The verified email in an ID token received straight from the token endpoint. Its signature is not checked: OIDC
 * Core 3.1.3.7 lets a confidential client that got the token over TLS from the issuer's token endpoint rely on TLS
 * instead. Issuer, audience, expiry and nonce are checked.
 */
export function emailFromIdToken(idToken: string, expect: { issuer: string; clientId: string; nonce: string; now: Date }): { ok: true; email: string } | { ok: false; error: string } {
  const parts = idToken.split(".");
  if (parts.length !== 3) return { ok: false, error: "the ID token is not a JWT" };
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(parts[1], "base64url").toString("utf8"));
  } catch {
    return { ok: false, error: "the ID token payload is not JSON" };
  }
  const c = idTokenClaims.safeParse(payload);
  if (!c.success) return { ok: false, error: "the ID token lacks iss, aud or exp" };
  const claims = c.data;
  if (claims.iss.replace(/\/$/, "") !== expect.issuer.replace(/\/$/, "")) return { ok: false, error: "the ID token is from another issuer" };
  const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!aud.includes(expect.clientId)) return { ok: false, error: "the ID token is for another client" };
  if (claims.exp * 1000 <= expect.now.getTime()) return { ok: false, error: "the ID token has expired" };
  if (claims.nonce !== expect.nonce) return { ok: false, error: "the ID token nonce does not match" };
  if (!claims.email) return { ok: false, error: "the issuer did not send an email (request the email scope)" };
  if (claims.email_verified === false || claims.email_verified === "false") return { ok: false, error: "the issuer has not verified this email" };
  return { ok: true, email: claims.email.trim().toLowerCase() };
}

/** GET <issuer>/.well-known/openid-configuration; the document must name the same issuer. */
export async function discover(issuer: string, fetchImpl: typeof fetch = fetch): Promise<Discovery> {
  const base = issuer.replace(/\/$/, "");
  const res = await fetchImpl(`${base}/.well-known/openid-configuration`, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`OIDC discovery at ${base} answered ${res.status}`);
  const doc = discoveryDocument.parse(await res.json());
  if (doc.issuer.replace(/\/$/, "") !== base) throw new Error(`OIDC discovery names issuer ${doc.issuer}, not ${base}`);
  return doc;
}

/** Trades the authorization code (and the PKCE verifier) for tokens, authenticating with client_secret_basic. */
export async function exchangeCode(
  d: Pick<Discovery, "token_endpoint">,
  s: { clientId: string; clientSecret: string; redirectUri: string },
  code: string,
  verifier: string,
  fetchImpl: typeof fetch = fetch,
): Promise<{ idToken: string }> {
  const basic = Buffer.from(`${encodeURIComponent(s.clientId)}:${encodeURIComponent(s.clientSecret)}`).toString("base64");
  const res = await fetchImpl(d.token_endpoint, {
    method: "POST",
    headers: { authorization: `Basic ${basic}`, "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: s.redirectUri, code_verifier: verifier }),
    signal: AbortSignal.timeout(10_000),
  });
  if (!res.ok) throw new Error(`the OIDC token endpoint answered ${res.status}`);
  const body = z.object({ id_token: z.string() }).safeParse(await res.json());
  if (!body.success) throw new Error("the OIDC token response has no id_token");
  return { idToken: body.data.id_token };
}
