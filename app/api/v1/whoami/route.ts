import { apiRoute } from "@/lib/api/route.ts";

export const dynamic = "force-dynamic";

/**
 * Which token is this? Any valid token may ask; a pipeline uses it to check its credentials before a bulk upload.
 * `scopes` are those it was created with, `active_scopes` those its owner's current role still allows.
 */
export const GET = apiRoute({ auth: { token: null } }, ({ caller: p }) =>
  Response.json(
    { token: { id: p.tokenId, name: p.name, prefix: p.prefix, scopes: p.scopes, active_scopes: p.activeScopes } },
    { headers: { "cache-control": "no-store" } },
  ),
);
