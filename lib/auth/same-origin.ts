// Server actions are POSTs to a page. Next.js refuses one whose Origin is not the host it was sent to (CSRF), but
// answers that refusal with a 500 as if the console had failed; proxy.ts answers it first, with a 403. The check is
// Next's own — the Origin's host against the first X-Forwarded-Host, else Host — so nothing Next would run is refused.
// Requests without an Origin (non-browser clients, which carry no one else's cookies) are left to Next.

/** True for a POST to a page (not /api/) whose Origin names another host than the request's. */
export function isCrossOriginPagePost(method: string, pathname: string, headers: Headers): boolean {
  if (method !== "POST" || pathname.startsWith("/api/")) return false;
  const origin = headers.get("origin");
  if (origin === null) return false;
  let originHost: string;
  try {
    originHost = origin === "null" ? "null" : new URL(origin).host;
  } catch {
    return true;
  }
  const host = headers.get("x-forwarded-host")?.split(",")[0]?.trim() || headers.get("host");
  return !host || host !== originHost;
}
