/** Request headers the proxy adds for the render: the requested path and query (to return to after sign-in). */
export const PATH_HEADER = "x-verity-path";
