// The run a console address is about, so that a link to a run-scoped page (the clusters, the browser) can carry it
// (`?run=`) and the page opens on the run the user came from. Pure.

/**
 * The run of a path and its query: `/runs/<run>` (not the comparison page), else a `run` parameter; null when the
 * address names no run or names it badly (an undecodable segment).
 */
export function runOfLocation(pathname: string, search: URLSearchParams | null): string | null {
  const m = /^\/runs\/([^/]+)/.exec(pathname);
  if (m && m[1] !== "compare") {
    try {
      return decodeURIComponent(m[1]);
    } catch {
      return null;
    }
  }
  const q = search?.get("run")?.trim();
  return q ? q : null;
}

/** A run-scoped page's address, carrying the run when there is one. */
export function withRun(href: string, run: string | null): string {
  return run ? `${href}?run=${encodeURIComponent(run)}` : href;
}
