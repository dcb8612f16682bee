import { timingSafeEqual } from "node:crypto";
import { NextResponse, type NextRequest } from "next/server";
import { signInWithVerifiedEmail } from "@/lib/auth/mutations.ts";
import { discover, emailFromIdToken, exchangeCode, oidcSettings } from "@/lib/auth/oidc.ts";
import { OIDC_COOKIE, oidcRedirectUri, readOidcCookie } from "@/lib/auth/oidc-cookie.ts";
import { isSecureRequest } from "@/lib/auth/secure-request.ts";
import { SESSION_COOKIE } from "@/lib/auth/session.ts";
import { env } from "@/lib/env.ts";

export const dynamic = "force-dynamic";

function sameString(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The issuer sends the browser back here with ?code&state: check state, trade the code, match the email, sign in. */
export async function GET(req: NextRequest) {
  const settings = oidcSettings(env());
  if (!settings) return new NextResponse("Single sign-on is not configured.", { status: 404 });
  const fail = (error: string) => {
    const res = NextResponse.redirect(new URL(`/sign-in?error=${error}`, req.url), 303);
    res.cookies.delete({ name: OIDC_COOKIE, path: "/auth/oidc" });
    return res;
  };
  const flow = readOidcCookie(req);
  const code = req.nextUrl.searchParams.get("code");
  const state = req.nextUrl.searchParams.get("state") ?? "";
  if (!flow || !code || !sameString(state, flow.state)) return fail("sso_state");
  let email: string;
  try {
    const d = await discover(settings.issuer);
    const { idToken } = await exchangeCode(d, { ...settings, redirectUri: oidcRedirectUri(req, settings) }, code, flow.verifier);
    const checked = emailFromIdToken(idToken, { issuer: settings.issuer, clientId: settings.clientId, nonce: flow.nonce, now: new Date() });
    if (!checked.ok) return fail("sso_token");
    email = checked.email;
  } catch {
    return fail("sso_unavailable");
  }
  const ip = (req.headers.get("x-forwarded-for")?.split(",")[0] ?? "").trim();
  const session = await signInWithVerifiedEmail(email, "oidc", ip);
  if (!session) return fail("sso_no_account");
  const res = NextResponse.redirect(new URL(flow.next ?? "/", req.url), 303);
  res.cookies.delete({ name: OIDC_COOKIE, path: "/auth/oidc" });
  res.cookies.set(SESSION_COOKIE, session.token, {
    httpOnly: true,
    sameSite: "lax",
    secure: isSecureRequest(req.headers, req.nextUrl),
    path: "/",
    expires: session.expiresAt,
  });
  return res;
}
