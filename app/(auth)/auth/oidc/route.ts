import { NextResponse, type NextRequest } from "next/server";
import { buildAuthorizationUrl, newOidcFlow, oidcConfiguration, oidcSettings } from "@/lib/auth/oidc.ts";
import { OIDC_COOKIE, oidcRedirectUri } from "@/lib/auth/oidc-cookie.ts";
import { nextPath } from "@/lib/auth/schema.ts";
import { isSecureRequest } from "@/lib/auth/secure-request.ts";
import { env } from "@/lib/env.ts";

export const dynamic = "force-dynamic";

/** Starts OIDC sign-in: remembers state, nonce and PKCE verifier in a short-lived cookie and sends the browser to the issuer. */
export async function GET(req: NextRequest) {
  const settings = oidcSettings(env());
  if (!settings) return new NextResponse("Single sign-on is not configured.", { status: 404 });
  let authorize: string;
  const flow = newOidcFlow(nextPath.parse(req.nextUrl.searchParams.get("next") ?? undefined));
  try {
    authorize = await buildAuthorizationUrl(await oidcConfiguration(settings), oidcRedirectUri(req, settings), flow);
  } catch {
    return NextResponse.redirect(new URL("/sign-in?error=sso_unavailable", req.url), 303);
  }
  const res = NextResponse.redirect(authorize, 303);
  res.cookies.set(OIDC_COOKIE, Buffer.from(JSON.stringify(flow)).toString("base64url"), {
    httpOnly: true,
    sameSite: "lax",
    secure: isSecureRequest(req.headers, req.nextUrl),
    path: "/auth/oidc",
    maxAge: 600,
  });
  return res;
}
