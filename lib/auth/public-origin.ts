// The origin the browser sees the console at, for the absolute URLs the console hands out (the OIDC redirect URI,
// redirects after sign-in). Under `next start` and bin/serve.ts the request's URL carries the server's own name
// ("localhost:<PORT>"), not the one the browser used, so it is never the source: VERITY_PUBLIC_URL when set; else the
// X-Forwarded-Host and X-Forwarded-Proto of a trusted proxy (the request's connection is one of
// VERITY_TRUSTED_PROXIES); else the request's own Host, over http (the console serves no TLS itself).
import { fromTrustedProxy, trustedProxyList } from "@/lib/auth/client-address.ts";
import type { Env } from "@/lib/env.ts";

/** host, host:port, [v6]:port — what a Host header may say, nothing that could change the URL around it. */
const HOST =
  /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

const first = (v: string | null) => v?.split(",")[0]?.trim() || undefined;

/**
 * The public origin of the request (no trailing slash). `fallback` (the request's own URL) is used only when the
 * request names no usable host, which HTTP/1.1 clients always do.
 */
export function publicOrigin(
  headers: Headers,
  fallback: URL,
  e: Pick<Env, "VERITY_PUBLIC_URL" | "VERITY_TRUSTED_PROXIES">,
): string {
  if (e.VERITY_PUBLIC_URL) return new URL(e.VERITY_PUBLIC_URL).origin;
  if (fromTrustedProxy(headers, trustedProxyList(e.VERITY_TRUSTED_PROXIES))) {
    const host = first(headers.get("x-forwarded-host"));
    const proto = first(headers.get("x-forwarded-proto"))?.toLowerCase();
    if (host && HOST.test(host)) return `${proto === "https" ? "https" : "http"}://${host.toLowerCase()}`;
  }
  const host = headers.get("host")?.trim();
  if (host && HOST.test(host)) return `http://${host.toLowerCase()}`;
  return fallback.origin;
}

/** An absolute URL on the console for a path ("/sign-in?error=…"). */
export function publicUrl(path: string, origin: string): string {
  return new URL(path, `${origin}/`).toString();
}
