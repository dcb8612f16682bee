// Researchers against the built console, as the benches' concurrency phases measure it (bench/scale.ts,
// bench/search.ts): `next build`, bin/serve.ts on a port, signed-in researchers, and rounds of requests from all of
// them at once with their latencies by kind, errors and the console's peak resident size.
import { spawn, type ChildProcess } from "node:child_process";
import { consoleNodeOptions } from "@/lib/server/child-process.ts";
import fs from "node:fs";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { loadAverage } from "@/bench/lib/bench-db.ts";

/** A process's resident size and its peak (VmHWM), in kB, from /proc; null once it has ended. */
export function rssKb(pid: number): { rss: number; hwm: number } | null {
  try {
    const s = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    return { rss: Number(/VmRSS:\s+(\d+)/.exec(s)?.[1] ?? 0), hwm: Number(/VmHWM:\s+(\d+)/.exec(s)?.[1] ?? 0) };
  } catch {
    return null;
  }
}

/** `next build`, as `npm start` builds the console: its seconds. */
export async function buildConsole(): Promise<number> {
  const t = performance.now();
  const code = await new Promise<number>((res) =>
    spawn("npx", ["next", "build"], { stdio: "inherit", env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" } }).on(
      "close",
      (x) => res(x ?? -1),
    ),
  );
  if (code !== 0) throw new Error("next build failed");
  return (performance.now() - t) / 1000;
}

/** `users` researchers (made if missing) signed in on the bound database: one session cookie each. */
export async function researcherCookies(c: pg.ClientBase, users: number): Promise<string[]> {
  const { createSession } = await import("@/lib/auth/mutations.ts");
  const cookies: string[] = [];
  for (let i = 0; i < users; i++) {
    const u = await c.query<{ id: number }>(
      `insert into users (email, role) values ($1, 'researcher') on conflict (email) do update set email = excluded.email returning id`,
      [`bench-researcher-${i}@example.org`],
    );
    cookies.push(`verity_session=${(await createSession(u.rows[0].id)).token}`);
  }
  return cookies;
}

export type Console = { base: string; server: ChildProcess; peakRssMb: () => number; stop: () => Promise<void> };

/** The built console (bin/serve.ts, production) on `port` over the database at `url`, once it says it is ready. */
export async function startConsole(url: string, port: number): Promise<Console> {
  const server = spawn(process.execPath, ["--import", "tsx", "bin/serve.ts", "--port", String(port)], {
    env: {
      ...process.env,
      DATABASE_URL: url,
      NODE_ENV: "production",
      VERITY_DEMO: "0",
      // the flags `npm start` gives the console
      NODE_OPTIONS: consoleNodeOptions(),
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise<void>((res, rej) => {
    server.stdout!.on("data", (d) => String(d).includes("Ready") && res());
    server.on("close", () => rej(new Error("the console did not start")));
  });
  return {
    base: `http://localhost:${port}`,
    server,
    // bin/serve.ts is one process: its VmHWM is the console's peak resident size.
    peakRssMb: () => {
      const r = rssKb(server.pid!);
      return r ? r.hwm / 1024 : NaN;
    },
    stop: async () => {
      server.kill("SIGTERM");
      await new Promise((r) => server.on("close", r));
    },
  };
}

/** What a researcher asks next, given what it was answered last (null at the start): a kind and a path. */
export type NextRequest = (last: { path: string; status: number; body: string } | null) => [string, string];

/** The nearest-rank percentile: the smallest value with at least a share p of the values at or below it. */
export function pct(xs: number[], p: number) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
}

/** What a page says of a search its statement timeout stopped (SearchTimeoutError's message, lib/search/data.ts). */
const SEARCH_STOPPED = /the search took longer than [\d.]+ s and was stopped/;

/**
 * One round: each cookie a researcher asking `next` in turn for `seconds` (with an exponential think time of mean
 * `think` ms between requests); prints the latencies by kind and in all (p50, p95, max), the errors (any answer but
 * 200, and a page that says its search was stopped) and the console's peak RSS, and returns them.
 */
export async function loadRound(
  consoleUnderLoad: Console,
  opts: {
    label: string;
    cookies: string[];
    seconds: number;
    think: number;
    next: NextRequest;
    /** each request as it ends: its kind, path, status (0: no answer), whether it is an error, start and ms */
    record?: (r: { kind: string; path: string; status: number; error: boolean; at: number; ms: number }) => void;
  },
): Promise<{ lat: Record<string, number[]>; errors: number }> {
  const { label, cookies, seconds, think, next, record } = opts;
  const lat: Record<string, number[]> = {};
  let errors = 0;
  const firstErrors: string[] = [];
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    cookies.map(async (cookie) => {
      let last: { path: string; status: number; body: string } | null = null;
      while (performance.now() < end) {
        const [kind, p] = next(last);
        const t0 = performance.now();
        let failed = true;
        try {
          const res = await fetch(consoleUnderLoad.base + p, { headers: { cookie }, redirect: "manual" });
          last = { path: p, status: res.status, body: await res.text() };
          // a browser page answers a search its statement timeout stopped with 200 and the message in the form
          const stopped = res.status === 200 && SEARCH_STOPPED.test(last.body);
          failed = res.status !== 200 || stopped;
          if (failed) {
            errors++;
            if (firstErrors.length < 3) firstErrors.push(`${stopped ? "200, search stopped:" : res.status} ${p}`);
          }
        } catch (err) {
          errors++;
          last = null;
          if (firstErrors.length < 3) firstErrors.push(`${(err as Error).message} ${p}`);
        }
        const ms = performance.now() - t0;
        (lat[kind] ??= []).push(ms);
        record?.({ kind, path: p, status: last?.status ?? 0, error: failed, at: t0 - start, ms });
        if (think > 0) await new Promise((r) => setTimeout(r, -think * Math.log(1 - Math.random())));
      }
    }),
  );
  const all = Object.values(lat).flat();
  const n = (x: number) => Math.round(x).toLocaleString("en-US");
  console.log(
    `\n${label}: ${cookies.length} researchers × ${seconds} s, ${think > 0 ? `mean think time ${n(think)} ms` : "no think time"}, ${n(all.length)} requests, ${errors} errors${firstErrors.length ? ` (${firstErrors.join("; ")})` : ""}, console peak RSS ${consoleUnderLoad.peakRssMb().toFixed(0)} MB, ${loadAverage()}`,
  );
  console.log(`| request | n | p50 ms | p95 ms | max ms |\n|---|---:|---:|---:|---:|`);
  for (const [k, xs] of [...Object.entries(lat), ["all", all] as const])
    console.log(
      `| ${k} | ${n(xs.length)} | ${pct(xs, 0.5).toFixed(1)} | ${pct(xs, 0.95).toFixed(1)} | ${Math.max(...xs).toFixed(1)} |`,
    );
  return { lat, errors };
}
