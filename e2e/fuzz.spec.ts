import fs from "node:fs";
import path from "node:path";
import type { APIRequestContext } from "@playwright/test";
import { expect, SIGNED_OUT, test } from "./fixtures/auth.ts";
import { createApiTokens, loadSamples, type Samples } from "./fixtures/samples.ts";

// Hostile values in every address the console serves answer like the console, never 500: each page route and API
// under app/ (found by walking the folder, so a new route is walked too) gets NUL bytes, integers past the int4 and
// int8 columns, a number that is not finite, a parameter given twice, a 100 kB value and non-ASCII text in each
// search parameter it reads and in each dynamic path segment — signed in as the admin, and signed out for the APIs.
// A streamed answer must also end: one that starts 200 and dies mid-body fails the walk.
//
// The combinations are a fixed, seeded sample (the same on every run) so the walk stays within about two minutes.

const APP = path.join(process.cwd(), "app");

type Route = { pattern: string; kind: "page" | "api"; methods: string[] };

/** Every page.tsx and route.ts under app/, as its URL pattern (route groups dropped, `[x]` kept). */
function discoverRoutes(dir = APP, segments: string[] = []): Route[] {
  const out: Route[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      const group = /^\(.*\)$/.test(entry.name);
      out.push(...discoverRoutes(full, group ? segments : [...segments, entry.name]));
    } else if (entry.name === "page.tsx" || entry.name === "route.ts") {
      const pattern = "/" + segments.join("/");
      if (entry.name === "page.tsx") out.push({ pattern, kind: "page", methods: ["GET"] });
      else {
        const src = fs.readFileSync(full, "utf8");
        const methods = ["GET", "POST"].filter((m) =>
          new RegExp(`export (const|async function|function) ${m}\\b`).test(src),
        );
        out.push({ pattern, kind: "api", methods });
      }
    }
  }
  return out;
}

/** The search parameters each route reads (its schema's keys); a route not listed is walked with COMMON. */
const PARAMS: Record<string, string[]> = {
  "/sign-in": ["next", "error"],
  "/auth/oidc": ["next"],
  "/auth/oidc/callback": ["state", "code", "error"],
  "/admin/activity-log": ["action", "actor", "from", "to", "before"],
  "/agreement": ["run", "batch", "from", "to", "category", "annotator", "guardrail", "tolerance", "basis"],
  "/agreement/items": ["cell", "code", "dimension", "run", "batch", "size", "after", "before", "sort"],
  "/agreement/pairwise": ["run", "batch", "basis", "window"],
  "/agreement/pairwise/[item]": ["recorded"],
  "/audit": ["created"],
  "/audit/adjudication": ["item", "after", "recorded"],
  "/audit/defects": ["status", "guardrail", "run", "kind", "after"],
  "/audit/new": ["run", "from", "to", "rate", "salt", "pick"],
  "/cases/[ticket]": ["rollout", "adjudication", "cluster", "version", "run"],
  "/clusters": ["run", "step_from", "step_to", "threshold", "c", "view"],
  "/clusters/export": ["run", "step_from", "step_to", "threshold", "c", "format"],
  "/clusters/fix": ["run", "step_from", "step_to", "threshold", "c", "tickets"],
  "/groups": ["run", "id", "step"],
  "/pairwise": ["item", "batch"],
  "/queue": ["empty", "batch"],
  "/review": ["item", "batch"],
  "/runs/[run]": ["from", "to", "compare", "smooth"],
  "/runs/compare": ["a", "b", "from", "to", "smooth"],
  "/rewards/compare": ["run", "batch", "from", "to", "sort", "dir", "threshold", "a", "b", "side"],
  "/trajectories": ["run", "step_from", "step_to", "reward_min", "any", "q", "after", "before", "category"],
  "/trajectories/[id]": ["run", "entry", "step", "compare"],
  "/api/agreement": ["run", "batch", "from", "to", "guardrail", "tolerance"],
  "/api/agreement/pairwise": ["run", "batch", "window"],
  "/api/reward-leaderboard": ["run", "batch", "from", "to", "sort", "threshold", "a", "b", "format"],
  "/api/ledger/export": ["run", "step_from", "step_to", "format", "after", "any"],
  "/api/ledger/rows": ["run", "step_from", "step_to", "after", "before", "any"],
  "/api/runs/[run]/charts/[chart]": ["from", "to", "compare", "smooth"],
  "/api/v1/agreement": ["run", "batch", "from", "to", "guardrail"],
  "/api/v1/agreement/pairwise": ["run", "batch", "window"],
  "/api/v1/reward-leaderboard": ["run", "batch", "from", "to", "sort", "threshold", "a", "b", "format"],
  "/api/v1/runs/[run]/clusters": ["step_from", "step_to", "threshold", "from", "to"],
  "/api/v1/runs/[run]/gate": ["window_steps"],
  "/api/v1/runs/[run]/ledger.ndjson": ["from", "to", "guardrail", "cases"],
  "/api/v1/runs/[run]/ledger.parquet": ["from", "to", "guardrail"],
};
const COMMON = ["run", "from", "to", "batch", "step", "after"];

const HOSTILE: Record<string, string | string[]> = {
  nul: "a\u0000b",
  int4: "2147483648",
  int8: "9223372036854775808",
  negative: "-1",
  infinite: "1e400",
  repeated: ["1", "2"],
  huge: "x".repeat(100_000),
  unicode: "ünï\u202ecødé 😀 \u200d\ufeff",
};

/** A small deterministic PRNG (mulberry32), so the sample is the same on every run. */
function prng(seed: number): () => number {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function sampleSegment(name: string, s: Samples): string {
  const known: Record<string, string> = {
    run: s.run,
    id: s.trajectory,
    ticket: s.ticket,
    item: s.pairItem,
    chart: "hit-rate",
  };
  return encodeURIComponent(known[name] ?? "x");
}

type Probe = { route: Route; url: string; what: string };

/** Every combination of a route's parameters and dynamic segments with each hostile value. */
function probes(routes: Route[], s: Samples): Probe[] {
  const out: Probe[] = [];
  for (const route of routes) {
    const segs = route.pattern.split("/");
    const base = segs.map((seg) => (/^\[.+\]$/.test(seg) ? sampleSegment(seg.slice(1, -1), s) : seg)).join("/");
    for (const [kind, value] of Object.entries(HOSTILE)) {
      for (const name of PARAMS[route.pattern] ?? COMMON) {
        const q = new URLSearchParams();
        for (const v of Array.isArray(value) ? value : [value]) q.append(name, v);
        out.push({ route, url: `${base}?${q}`, what: `${name}=${kind}` });
      }
      if (Array.isArray(value)) continue;
      segs.forEach((seg, i) => {
        if (!/^\[.+\]$/.test(seg)) return;
        const url = segs
          .map((x, j) =>
            j === i ? encodeURIComponent(value) : /^\[.+\]$/.test(x) ? sampleSegment(x.slice(1, -1), s) : x,
          )
          .join("/");
        out.push({ route, url, what: `${seg}=${kind}` });
      });
    }
  }
  return out;
}

/** A fixed sample: every NUL, 2³¹ and 2⁶³ case, then a seeded share of the rest. */
function sample(all: Probe[], size: number): Probe[] {
  const must = all.filter((p) => /=(nul|int4|int8)$/.test(p.what));
  const rest = all.filter((p) => !must.includes(p));
  const rnd = prng(20261206);
  for (let i = rest.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [rest[i], rest[j]] = [rest[j], rest[i]];
  }
  return [...must, ...rest.slice(0, Math.max(0, size - must.length))];
}

type Outcome = { status: number; died?: string };

async function call(req: APIRequestContext, probe: Probe, token?: string): Promise<Outcome> {
  const headers = token ? { authorization: `Bearer ${token}` } : undefined;
  const post = !probe.route.methods.includes("GET");
  try {
    const res = post
      ? await req.post(probe.url, { headers, data: {}, maxRedirects: 0, timeout: 60_000 })
      : await req.get(probe.url, { headers, maxRedirects: 0, timeout: 60_000 });
    // reading the whole body is what tells a stream that ended from one that died after its 200
    await res.body();
    return { status: res.status() };
  } catch (e) {
    return { status: 0, died: e instanceof Error ? e.message.split("\n")[0] : String(e) };
  }
}

function failures(results: { probe: Probe; who: string; out: Outcome }[]): string[] {
  return results
    .filter((r) => r.out.status >= 500 || r.out.died)
    .map((r) => `${r.who} ${r.probe.route.pattern} ${r.probe.what}: ${r.out.died ?? r.out.status}`);
}

test.describe("hostile addresses", () => {
  test.use({ role: "admin" });
  test.describe.configure({ timeout: 180_000 });

  test("the walk finds every route under app/", () => {
    const routes = discoverRoutes().map((r) => r.pattern);
    for (const p of ["/runs/[run]", "/trajectories/[id]", "/api/v1/runs/[run]/ledger.ndjson", "/api/v1/ingest"])
      expect(routes).toContain(p);
    // a route read with parameters it does not have would test nothing: every listed pattern exists
    for (const listed of Object.keys(PARAMS)) expect(routes, listed).toContain(listed);
  });

  test("no page or API answers 500 to hostile values, signed in or not", async ({ request, browser }) => {
    const samples = await loadSamples();
    const tokens = await createApiTokens();
    const routes = discoverRoutes().filter((r) => r.pattern !== "/bad-address");
    const chosen = sample(probes(routes, samples), Number(process.env.FUZZ_N ?? 900));
    const anon = await browser.newContext(SIGNED_OUT);
    const results: { probe: Probe; who: string; out: Outcome }[] = [];
    try {
      for (const probe of chosen) {
        const v1 = probe.route.pattern.startsWith("/api/v1/");
        const token = v1 ? (probe.route.pattern.endsWith("/ingest") ? tokens.ingest : tokens.read) : undefined;
        results.push({ probe, who: "admin", out: await call(request, probe, token) });
        if (probe.route.kind === "api") results.push({ probe, who: "anonymous", out: await call(anon.request, probe) });
      }
    } finally {
      await anon.close();
    }
    expect(failures(results)).toEqual([]);
    // the walk reached the routes: most answers are not the sign-in redirect or a bare 4xx of the server itself
    expect(results.filter((r) => r.out.status === 200).length).toBeGreaterThan(100);
  });
});
