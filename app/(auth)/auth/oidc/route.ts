import { NextResponse, type NextRequest } from "next/server";
import { clientAddress, trustedProxyList } from "@/lib/auth/client-address.ts";
import { recordSsoFailure } from "@/lib/auth/mutations.ts";
import {
  buildAuthorizationUrl,
  classifyOidcError,
  newOidcFlow,
  oidcConfiguration,
  oidcSettings,
} from "@/lib/auth/oidc.ts";
import { OIDC_COOKIE, oidcRedirectUri } from "@/lib/auth/oidc-cookie.ts";
import { publicOrigin, publicUrl } from "@/lib/auth/public-origin.ts";
import { nextPath } from "@/lib/auth/schema.ts";
import { isSecureRequest } from "@/lib/auth/secure-request.ts";
import { env } from "@/lib/env.ts";

export const dynamic = "force-dynamic";

/**
 * Starts OIDC sign-in: remembers state, nonce and PKCE verifier in a short-lived cookie and sends the browser to the
 * issuer. The discovery document is fetched afresh first, so an issuer that is down gets the console's sign-in page
 * with the reason (and an activity-log entry) instead of a browser sent to an address that does not answer.
 */
export async function GET(req: NextRequest) {
  const e = env();
  const settings = oidcSettings(e);
  if (!settings) return new NextResponse("Single sign-on is not configured.", { status: 404 });
  const origin = publicOrigin(req.headers, req.nextUrl, e);
  const flow = newOidcFlow(nextPath.parse(req.nextUrl.searchParams.get("next") ?? undefined));
  let authorize: string;
  try {
    const config = await oidcConfiguration(settings, { maxAgeMs: 0 });
    authorize = await buildAuthorizationUrl(config, oidcRedirectUri(origin, settings), flow);
  } catch (err) {
    const { detail } = classifyOidcError(err);
    const ip = clientAddress(req.headers, trustedProxyList(e.VERITY_TRUSTED_PROXIES));
    await recordSsoFailure("oidc", "sso_unavailable", `discovery failed: ${detail}`.slice(0, 300), ip);
    return NextResponse.redirect(publicUrl("/sign-in?error=sso_unavailable", origin), 303);
  }
  const res = NextResponse.redirect(authorize, 303);
  res.cookies.set(OIDC_COOKIE, Buffer.from(JSON.stringify(flow)).toString("base64url"), {
    httpOnly: true,
    sameSite: "lax",
    secure: isSecureRequest(req.headers, req.nextUrl) || origin.startsWith("https:"),
    path: "/auth/oidc",
    maxAge: 600,
  });
  return res;
}
