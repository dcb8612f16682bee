// The session cookie: read in server components, set and cleared in server actions and route handlers.
import "server-only";
import { cookies, headers } from "next/headers";
import { cache } from "react";
import { clientAddress, trustedProxyList } from "@/lib/auth/client-address.ts";
import { findSessionUser, type SessionUser } from "@/lib/auth/data.ts";
import { touchSession } from "@/lib/auth/mutations.ts";
import { sha256Hex } from "@/lib/auth/tokens.ts";
import { isSecureRequest } from "@/lib/auth/secure-request.ts";
import { env } from "@/lib/env.ts";

export const SESSION_COOKIE = "verity_session";

/**
 * The signed-in user of this request, or null. Memoised per request (React cache), so a layout and a page asking
 * both cost one query.
 */
export const getCurrentUser = cache(async (): Promise<SessionUser | null> => {
  const token = (await cookies()).get(SESSION_COOKIE)?.value;
  if (!token || token.length > 200) return null;
  const user = await findSessionUser(sha256Hex(token));
  if (user) await touchSession(user);
  return user;
});

/** The session id (sha256 of the cookie) of this request, whether or not the session is still valid. */
export async function currentSessionId(): Promise<string | null> {
  const token = (await cookies()).get(SESSION_COOKIE)?.value;
  return token ? sha256Hex(token) : null;
}

async function requestIsSecure(): Promise<boolean> {
  return isSecureRequest(await headers());
}

export async function setSessionCookie(token: string, expiresAt: Date): Promise<void> {
  (await cookies()).set(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: "lax",
    secure: await requestIsSecure(),
    path: "/",
    expires: expiresAt,
  });
}

export async function clearSessionCookie(): Promise<void> {
  (await cookies()).set(SESSION_COOKIE, "", {
    httpOnly: true,
    sameSite: "lax",
    secure: await requestIsSecure(),
    path: "/",
    maxAge: 0,
  });
}

/** The client address for the activity log and the failure limits (lib/auth/client-address.ts). */
export async function requestIp(): Promise<string> {
  return clientAddress(await headers(), trustedProxyList(env().VERITY_TRUSTED_PROXIES));
}
