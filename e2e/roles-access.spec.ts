// Every page and route handler, for every role and for a signed-out visitor: allowed, denied, or sent to sign in.
// Routes are discovered from app/ on disk, so a new page.tsx or route.ts without a row here fails this spec: add
// the row (and the guard in the page) when you add the route.
import fs from "node:fs";
import path from "node:path";
import { request as playwrightRequest } from "@playwright/test";
import { expect, ROLES, test, type DemoRole } from "./fixtures/auth.ts";
import { createApiTokens, loadSamples, type Samples } from "./fixtures/samples.ts";

// ~40 requests per role: a loaded CI machine needs more than the default 30 s.
test.describe.configure({ timeout: 180_000 });

/** A signed-out browser, a signed-in demo user, or a machine with an API token of one scope (and no session). */
type Who = "anonymous" | DemoRole | "token:read" | "token:ingest";
const TOKENS = ["token:read", "token:ingest"] as const;
const WHO: Who[] = ["anonymous", ...ROLES, ...TOKENS];
const isUser = (w: Who): w is DemoRole => (ROLES as readonly string[]).includes(w);

/**
 * 200 | 401 | 403 | 404 | 405; "sign-in" (a redirect to /sign-in); "found" (200, or 404 when the sample row does not
 * exist); "authorized" (past authentication: any answer below 500 but 401 and 403); or a redirect target.
 */
type Outcome = 200 | 401 | 403 | 404 | "sign-in" | "found" | "authorized" | { redirect: string };

/** A console page: no session → sign in; the listed roles → 200 (or "found"); other roles → 403. */
function page(allowed: DemoRole[], ok: Outcome = 200): Record<Who, Outcome> {
  return Object.fromEntries(WHO.map((w) => [w, !isUser(w) ? "sign-in" : allowed.includes(w) ? ok : 403])) as Record<
    Who,
    Outcome
  >;
}
/** A session-authenticated route handler: no session → 401, the listed roles → 200 (or `ok`), other roles → 403. */
function session(allowed: DemoRole[], ok: Outcome = 200): Record<Who, Outcome> {
  return Object.fromEntries(WHO.map((w) => [w, !isUser(w) ? 401 : allowed.includes(w) ? ok : 403])) as Record<
    Who,
    Outcome
  >;
}
/** A token-authenticated route handler: no token → 401 (a session does not count), the scope → past auth, else 403. */
function api(scope: "read" | "ingest" | null): Record<Who, Outcome> {
  return Object.fromEntries(
    WHO.map((w) => [w, !w.startsWith("token:") ? 401 : scope === null || w === `token:${scope}` ? "authorized" : 403]),
  ) as Record<Who, Outcome>;
}
const same = (o: Outcome) => Object.fromEntries(WHO.map((w) => [w, o])) as Record<Who, Outcome>;
const signedIn = (o: (r: DemoRole) => Outcome) =>
  Object.fromEntries(WHO.map((w) => [w, isUser(w) ? o(w) : "sign-in"])) as Record<Who, Outcome>;

const READERS: DemoRole[] = ["admin", "lead", "researcher"];
const HOME: Record<DemoRole, string> = { admin: "/runs", lead: "/runs", researcher: "/runs", annotator: "/queue" };

const EXPECTED: Record<string, Record<Who, Outcome>> = {
  "/": signedIn((r) => ({ redirect: HOME[r] })),
  "/sign-in": Object.fromEntries(WHO.map((w) => [w, isUser(w) ? { redirect: HOME[w] } : 200])) as Record<Who, Outcome>,
  "/queue": page(["admin", "annotator"]),
  "/runs": page(READERS),
  "/runs/[run]": page(READERS, "found"),
  "/trajectories": page(READERS),
  "/trajectories/[id]": page(READERS, "found"),
  "/audit": page(READERS),
  "/audit/new": page(["admin", "lead"]),
  "/audit/adjudication": page(["admin", "lead"]),
  "/audit/defects": page(["admin", "lead"]),
  "/review": page(["admin", "annotator"]),
  "/pairwise": page(["admin", "annotator"]),
  "/cases/[ticket]": page(["admin", "lead"], "found"),
  "/agreement": page(READERS),
  "/clusters": page(READERS),
  "/clusters/fix": page(["admin", "lead"]),
  "/monitors": page(READERS),
  "/rewards": page(["admin", "lead"]),
  // 200 for a stored function (the demo's "verifier"), 404 for none: past the role check either way.
  "/rewards/[name]": page(["admin", "lead"], "authorized"),
  "/rewards/compare": page(READERS),
  "/admin": page(["admin"]),
  "/admin/users": page(["admin"]),
  "/admin/tokens": page(["admin"]),
  "/admin/configs": page(READERS),
  "/admin/activity-log": page(["admin", "lead"]),
  "/groups": page(READERS),
  "/runs/compare": page(READERS),
  "/agreement/items": page(READERS),
  "/agreement/pairwise": page(READERS),
  "/agreement/pairwise/[item]": page(READERS, "found"),
  // The console's own JSON and download routes: signed-in users by session (lib/auth/route-user.ts). "authorized"
  // where the sample request is past authentication but not a complete query.
  "/api/ledger/rows": session(READERS),
  "/api/ledger/export": session(READERS),
  "/api/agreement": session(READERS, "authorized"),
  "/api/agreement/pairwise": session(READERS, "authorized"),
  "/api/reward-leaderboard": session(READERS, "authorized"),
  "/api/runs/[run]/charts/[chart]": session(READERS, "authorized"),
  "/clusters/export": session(READERS, "authorized"),
  // a saved search is its owner's: another's id, or one that does not exist, is a 404 past the role check
  "/api/saved-searches/[id]/csv": session(READERS, "authorized"),
  "/clusters/fix/dry-run": session(["admin", "lead"], "authorized"),
  // Route handlers for machines authenticate with bearer tokens only: a browser session is not enough.
  "/api/health": same(200),
  "/api/v1/whoami": api(null),
  "/api/v1/ingest": api("ingest"),
  "/api/v1/runs/[run]/ledger.ndjson": api("read"),
  "/api/v1/runs/[run]/ledger.parquet": api("read"),
  "/api/v1/runs/[run]/clusters": api("read"),
  "/api/v1/runs/[run]/gate": api("read"),
  "/api/v1/agreement": api("read"),
  "/api/v1/rewards": api("read"),
  "/api/v1/rewards/[name]": api("read"),
  "/api/v1/rewards/[name]/runs": api("ingest"),
  "/api/v1/rewards/[name]/reruns": api("read"),
  "/api/v1/reward-runs/[id]": api("read"),
  "/api/v1/agreement/pairwise": api("read"),
  "/api/v1/reward-leaderboard": api("read"),
  // The 400 page proxy.ts rewrites a malformed address to; asked for directly, there is nothing there.
  "/bad-address": same(404),
  // OIDC is off unless configured.
  "/auth/oidc": same(404),
  "/auth/oidc/callback": same(404),
};

/** Query strings that keep a request cheap (an export filtered to nothing still proves access). */
const SAMPLE_QUERY: Record<string, string> = { "/api/ledger/export": "?run=no-such-run-access-check" };

type Route = { path: string; method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE" };

/**
 * Every app/**\/page.tsx and route.ts as a URL path (route groups dropped, private folders skipped), with the
 * method to try: GET for pages, else the first method a route handler exports.
 */
function discoverRoutes(dir = path.resolve("app"), segments: string[] = []): Route[] {
  const out: Route[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name.startsWith("_") || entry.name.startsWith("@")) continue;
      const seg = /^\(.*\)$/.test(entry.name) ? [] : [entry.name];
      out.push(...discoverRoutes(file, [...segments, ...seg]));
    } else if (/^page\.tsx?$/.test(entry.name)) {
      out.push({ path: "/" + segments.join("/"), method: "GET" });
    } else if (/^route\.ts$/.test(entry.name)) {
      const methods = [
        ...fs
          .readFileSync(file, "utf8")
          .matchAll(/export\s+(?:async\s+function|const|function)\s+(GET|POST|PUT|PATCH|DELETE)\b/g),
      ].map((m) => m[1] as Route["method"]);
      if (!methods.length) throw new Error(`${file} exports no HTTP method handler`);
      out.push({ path: "/" + segments.join("/"), method: methods.includes("GET") ? "GET" : methods[0] });
    }
  }
  return out.sort((a, b) => a.path.localeCompare(b.path));
}

function concrete(route: string, s: Samples): { url: string; exists: boolean } {
  let exists = true;
  const url = route.replace(/\[([^\]]+)\]/g, (_m, name: string) => {
    if (name === "run") {
      exists &&= s.runExists;
      return encodeURIComponent(s.run);
    }
    if (name === "chart") return "hit-rate";
    if (name === "name") return "verifier";
    if (name === "ticket") {
      exists &&= s.ticketExists;
      return encodeURIComponent(s.ticket);
    }
    if (name === "item") {
      exists &&= s.pairItemExists;
      return encodeURIComponent(s.pairItem);
    }
    if (name === "id") {
      exists &&= s.trajectoryExists;
      return encodeURIComponent(s.trajectory);
    }
    throw new Error(
      `no sample value for the dynamic segment [${name}] of ${route}: add one in e2e/roles-access.spec.ts`,
    );
  });
  return { url: url + (SAMPLE_QUERY[route] ?? ""), exists };
}

test("every page and route handler on disk has a row in the access table", () => {
  const found = discoverRoutes().map((r) => r.path);
  expect(found.length).toBeGreaterThan(10);
  const missing = found.filter((r) => !(r in EXPECTED));
  const stale = Object.keys(EXPECTED).filter((r) => !found.includes(r));
  expect(missing, "routes without an access decision").toEqual([]);
  expect(stale, "rows for routes that no longer exist").toEqual([]);
});

const REDIRECTS = [302, 303, 307, 308];

function matches(want: Outcome, status: number, target: string): boolean {
  if (want === "sign-in") return REDIRECTS.includes(status) && target === "/sign-in";
  if (want === "authorized")
    return status < 500 && status !== 401 && status !== 403 && !(REDIRECTS.includes(status) && target === "/sign-in");
  if (typeof want === "object") return REDIRECTS.includes(status) && target === want.redirect;
  return status === want;
}

for (const who of WHO) {
  const label =
    who === "anonymous"
      ? "a signed-out visitor"
      : isUser(who)
        ? `the ${who}`
        : `an API token with only the ${who.slice(6)} scope`;
  test(`access for ${label}`, async ({ signedInState, baseURL }) => {
    const samples = await loadSamples();
    const tokens = isUser(who) || who === "anonymous" ? null : await createApiTokens();
    const ctx = await playwrightRequest.newContext({
      baseURL,
      storageState: isUser(who) ? await signedInState(who) : undefined,
      extraHTTPHeaders: tokens
        ? { authorization: `Bearer ${who === "token:read" ? tokens.read : tokens.ingest}` }
        : undefined,
    });
    const failures: string[] = [];
    try {
      for (const route of discoverRoutes()) {
        if (!EXPECTED[route.path]) {
          failures.push(`${route.path}: no row in the access table`);
          continue;
        }
        const { url, exists } = concrete(route.path, samples);
        let want = EXPECTED[route.path][who];
        if (want === "found") want = exists ? 200 : 404;
        // An empty body: enough to pass or fail authentication, never enough to change anything.
        const res = await ctx.fetch(url, {
          method: route.method,
          maxRedirects: 0,
          ...(route.method === "GET" ? {} : { data: "", headers: { "content-type": "application/x-ndjson" } }),
        });
        const status = res.status();
        const location = res.headers()["location"] ?? "";
        const target = location ? new URL(location, baseURL).pathname : "";
        if (!matches(want, status, target))
          failures.push(
            `${route.method} ${url}: expected ${JSON.stringify(want)}, got ${status}${location ? ` → ${location}` : ""}`,
          );
      }
    } finally {
      await ctx.dispose();
    }
    expect(failures).toEqual([]);
  });
}
