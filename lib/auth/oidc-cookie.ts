import type { NextRequest } from "next/server";
import { oidcFlowState, type OidcFlowState, type OidcSettings } from "@/lib/auth/oidc.ts";

/** Carries the OIDC flow state from /auth/oidc to /auth/oidc/callback (HTTP-only, ten minutes, that path only). */
export const OIDC_COOKIE = "verity_oidc";

/** The callback address the authorization request names: VERITY_OIDC_REDIRECT_URI, else on the public origin. */
export function oidcRedirectUri(origin: string, s: OidcSettings): string {
  return s.redirectUri ?? new URL("/auth/oidc/callback", `${origin}/`).toString();
}

export function readOidcCookie(req: NextRequest): OidcFlowState | null {
  const raw = req.cookies.get(OIDC_COOKIE)?.value;
  if (!raw) return null;
  try {
    const parsed = oidcFlowState.safeParse(JSON.parse(Buffer.from(raw, "base64url").toString("utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
