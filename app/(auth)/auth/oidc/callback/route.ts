import { timingSafeEqual } from "node:crypto";
import { NextResponse, type NextRequest } from "next/server";
import { clientAddress, trustedProxyList } from "@/lib/auth/client-address.ts";
import { recordSsoFailure, signInWithVerifiedEmail } from "@/lib/auth/mutations.ts";
import { completeOidcSignIn, oidcConfiguration, oidcSettings, type OidcErrorCode } from "@/lib/auth/oidc.ts";
import { OIDC_COOKIE, oidcRedirectUri, readOidcCookie } from "@/lib/auth/oidc-cookie.ts";
import { publicOrigin, publicUrl } from "@/lib/auth/public-origin.ts";
import { isSecureRequest } from "@/lib/auth/secure-request.ts";
import { SESSION_COOKIE } from "@/lib/auth/session.ts";
import { env } from "@/lib/env.ts";

export const dynamic = "force-dynamic";

function sameString(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The issuer sends the browser back here with ?code&state: check state against the flow cookie, trade the code,
 * validate the ID token, match the email to an enabled user, sign in. Every refusal is logged and sends the browser
 * to the sign-in page with a reason it explains.
 */
export async function GET(req: NextRequest) {
  const e = env();
  const settings = oidcSettings(e);
  if (!settings) return new NextResponse("Single sign-on is not configured.", { status: 404 });
  const ip = clientAddress(req.headers, trustedProxyList(e.VERITY_TRUSTED_PROXIES));
  const origin = publicOrigin(req.headers, req.nextUrl, e);
  const secure = isSecureRequest(req.headers, req.nextUrl) || origin.startsWith("https:");
  const fail = async (code: OidcErrorCode, detail?: string) => {
    if (detail !== undefined) await recordSsoFailure("oidc", code, detail, ip);
    const res = NextResponse.redirect(publicUrl(`/sign-in?error=${code}`, origin), 303);
    res.cookies.delete({ name: OIDC_COOKIE, path: "/auth/oidc" });
    return res;
  };
  const flow = readOidcCookie(req);
  const params = req.nextUrl.searchParams;
  if (!flow) return fail("sso_state", "no sign-in flow cookie (expired, or another browser)");
  if (!sameString(params.get("state") ?? "", flow.state))
    return fail("sso_state", "the state does not match the sign-in flow");
  if (params.has("error"))
    return fail("sso_denied", `the identity provider answered ${(params.get("error") ?? "").slice(0, 100)}`);
  let config;
  try {
    config = await oidcConfiguration(settings);
  } catch (err) {
    return fail(
      "sso_unavailable",
      `discovery failed: ${err instanceof Error ? err.message : String(err)}`.slice(0, 300),
    );
  }
  const checked = await completeOidcSignIn(config, req.nextUrl, oidcRedirectUri(origin, settings), flow);
  if (!checked.ok) return fail(checked.code, checked.detail);
  // signInWithVerifiedEmail logs its own refusals, with the email.
  const signedIn = await signInWithVerifiedEmail(checked.email, "oidc", ip);
  if (!signedIn.ok) return fail(signedIn.code);
  const res = NextResponse.redirect(publicUrl(flow.next ?? "/", origin), 303);
  res.cookies.delete({ name: OIDC_COOKIE, path: "/auth/oidc" });
  res.cookies.set(SESSION_COOKIE, signedIn.session.token, {
    httpOnly: true,
    sameSite: "lax",
    secure,
    path: "/",
    expires: signedIn.session.expiresAt,
  });
  return res;
}
