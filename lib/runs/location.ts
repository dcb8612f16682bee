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

/**
 * `/runs/compare?a=…&b=…` is the run page of a with b overlaid (`/runs/a?compare=b`, the other parameters kept): the
 * address to send it to, or null when the address is not the comparison page with both runs (then the page asks for
 * them). The proxy answers with this redirect before the page streams, so it stays a real 307.
 */
export function compareTarget(pathname: string, search: URLSearchParams): string | null {
  if (pathname !== "/runs/compare") return null;
  const a = search.get("a")?.trim();
  const b = search.get("b")?.trim();
  if (!a || !b) return null;
  const rest = new URLSearchParams();
  for (const [k, v] of search) if (k !== "a" && k !== "b" && !rest.has(k)) rest.set(k, v);
  rest.set("compare", b);
  return `/runs/${encodeURIComponent(a)}?${rest}`;
}

/** A run-scoped page's address, carrying the run when there is one. */
export function withRun(href: string, run: string | null): string {
  return run ? `${href}?run=${encodeURIComponent(run)}` : href;
}

/**
 * The cookie holding the run the user last looked at: set in the browser on each console page shown whose address
 * names one (components/layout/remember-run.tsx). (The name "verity-run" was an earlier, HttpOnly cookie that a
 * page's script could not overwrite.)
 */
export const LAST_RUN_COOKIE = "verity-last-run";

/**
 * The cookie's value for a run: percent-encoded, so any run id (a "%", a space, a quote, any Unicode) is a valid
 * cookie value that every cookie parser reads back as it was written.
 */
export function lastRunCookieValue(run: string): string {
  return encodeURIComponent(run);
}

/** The run a cookie value names; null for a value this console did not write (one that does not decode). */
export function runOfCookie(value: string | undefined | null): string | null {
  if (!value) return null;
  try {
    return decodeURIComponent(value);
  } catch {
    return null;
  }
}

/**
 * The run a run-scoped page opens on: the one its address asks for, else the one the user last looked at, else the
 * first of `runs` (newest first) that has data, else the newest; undefined when there is no run. A run asked for that
 * does not exist falls through the same way (the page says it does not exist).
 */
export function defaultRun<T extends { id: string }>(
  runs: readonly T[],
  choice: { asked?: string | null; lastRun?: string | null },
  hasData: (run: T) => boolean = () => true,
): T | undefined {
  const byId = (id: string | null | undefined) => (id ? runs.find((r) => r.id === id) : undefined);
  return byId(choice.asked) ?? byId(choice.lastRun) ?? runs.find(hasData) ?? runs[0];
}
