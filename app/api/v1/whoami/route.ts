import { withApiAuth } from "@/lib/auth/api.ts";

export const dynamic = "force-dynamic";

/** Which token is this? Any valid token may ask; a pipeline uses it to check its credentials before a bulk upload. */
export const GET = withApiAuth(null, (_req, _ctx: unknown, p) =>
  Response.json(
    { token: { id: p.tokenId, name: p.name, prefix: p.prefix, scopes: p.scopes } },
    { headers: { "cache-control": "no-store" } },
  ),
);
