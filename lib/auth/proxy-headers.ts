/** Request headers the proxy adds for the render: the requested path and query (to return to after sign-in). */
export const PATH_HEADER = "x-verity-path";
/** Set by the proxy, only when it rewrites a malformed address to the console's 400 page: the segment as sent (percent-encoded). */
export const MALFORMED_HEADER = "x-verity-malformed";
/** Set by the proxy, only when it rewrites an address holding a NUL character to the console's 400 page: the part (lib/server/route-params.ts NulPart) as URI-encoded JSON. */
export const NUL_HEADER = "x-verity-nul";
