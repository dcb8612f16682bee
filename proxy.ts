// Runs before every page, route handler and server action (Next 16 "proxy", Node runtime). It does not decide
// access — pages, actions and route handlers ask lib/auth/policy.ts — it gives each response its CSP nonce, tells the
// guards which path was asked for (to come back to it after sign-in), refuses a server action posted from another
// origin with a 403 (lib/auth/same-origin.ts) and an address whose path does not percent-decode with a 400. `/runs/compare?a=…&b=…` is
// redirected to the run page it stands for here, before anything streams.
import { randomBytes } from "node:crypto";
import { NextResponse, type NextRequest } from "next/server";
import { contentSecurityPolicy } from "@/lib/auth/csp.ts";
import { MALFORMED_HEADER, NUL_HEADER, PATH_HEADER } from "@/lib/auth/proxy-headers.ts";
import { isCrossOriginPagePost } from "@/lib/auth/same-origin.ts";
import { compareTarget } from "@/lib/runs/location.ts";
import { describeNulPart, malformedSegment, nulPart } from "@/lib/server/route-params.ts";

export function proxy(req: NextRequest) {
  if (isCrossOriginPagePost(req.method, req.nextUrl.pathname, req.headers))
    return new NextResponse("Cross-origin request refused.", {
      status: 403,
      headers: { "content-type": "text/plain; charset=utf-8" },
    });
  // A path segment that does not percent-decode makes Next throw while matching routes (a bare 500): answer 400
  // before routing, as JSON for the APIs and as the console's page (app/bad-address) for the rest.
  const malformed = malformedSegment(req.nextUrl.pathname);
  if (malformed !== null && req.nextUrl.pathname.startsWith("/api/")) return malformedApiAddress(malformed);
  // A NUL character (%00) in a segment or a search parameter fails any query it reaches (a 500, or a download
  // that dies after its 200): answer 400 naming the part, the same way.
  const nul = malformed === null ? nulPart(req.nextUrl) : null;
  if (nul !== null && req.nextUrl.pathname.startsWith("/api/"))
    return badApiAddress(
      `The address holds a NUL character (%00) in ${describeNulPart(nul)}: no value may contain one.`,
    );
  if (req.nextUrl.pathname.startsWith("/api/v1/")) return NextResponse.next();
  const compare =
    malformed === null && nul === null ? compareTarget(req.nextUrl.pathname, req.nextUrl.searchParams) : null;
  if (compare !== null && req.method === "GET") return NextResponse.redirect(new URL(compare, req.url), 307);
  const nonce = randomBytes(16).toString("base64");
  const https =
    req.nextUrl.protocol === "https:" || req.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() === "https";
  const csp = contentSecurityPolicy(nonce, { dev: process.env.NODE_ENV === "development", https });
  const requestHeaders = new Headers(req.headers);
  requestHeaders.set("x-nonce", nonce);
  requestHeaders.set("content-security-policy", csp);
  // Client-side navigations carry a cache-busting _rsc parameter that is no part of the page's address.
  const params = new URLSearchParams(req.nextUrl.search);
  params.delete("_rsc");
  const query = params.toString();
  requestHeaders.set(PATH_HEADER, req.nextUrl.pathname + (query ? `?${query}` : ""));
  requestHeaders.delete(MALFORMED_HEADER);
  requestHeaders.delete(NUL_HEADER);
  if (malformed !== null) requestHeaders.set(MALFORMED_HEADER, malformed);
  if (nul !== null) requestHeaders.set(NUL_HEADER, encodeURIComponent(JSON.stringify(nul)));
  const res =
    malformed === null && nul === null
      ? NextResponse.next({ request: { headers: requestHeaders } })
      : NextResponse.rewrite(new URL("/bad-address", req.url), { status: 400, request: { headers: requestHeaders } });
  res.headers.set("content-security-policy", csp);
  if (https) res.headers.set("strict-transport-security", "max-age=31536000");
  return res;
}

function malformedApiAddress(segment: string): Response {
  return badApiAddress(
    `The address has a malformed percent-encoding in ${JSON.stringify(segment)}: each "%" must be followed by two hex digits, and the escapes must spell UTF-8.`,
  );
}

function badApiAddress(message: string): Response {
  return NextResponse.json(
    { error: { code: "bad_request", message } },
    { status: 400, headers: { "cache-control": "no-store" } },
  );
}

export const config = {
  // Next internals (static chunks, images, the dev server's HMR socket) get their headers from next.config.ts;
  // pages, server actions and the console's route handlers pass through here. The token API (/api/v1/) does not:
  // Next buffers the body of every request it proxies and cuts it at 10 MB (proxyClientMaxBodySize), which would
  // break the streamed ingest. Those handlers authenticate each request themselves (lib/auth/api.ts), set no
  // cookies and render no documents; next.config.ts gives them their headers.
  // Its routes with a dynamic segment or a search parameter pass through only for the address checks (the ingest
  // route's parameters are checked by its own schema).
  matcher: ["/((?!_next/|favicon.ico|api/v1/).*)", "/api/v1/runs/:path*", "/api/v1/agreement/:path*"],
};
