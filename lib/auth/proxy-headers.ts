/** Request headers the proxy adds for the render: the requested path and query (to return to after sign-in). */
export const PATH_HEADER = "x-verity-path";
/** Set by the proxy, only when it rewrites a malformed address to the console's 400 page: the segment as sent (percent-encoded). */
export const MALFORMED_HEADER = "x-verity-malformed";
