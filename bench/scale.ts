// bench/scale: Verity at size (docs/scale.md, docs/benchmarks.md "Scale"). Phases, all by default, each selectable
// with --phase (repeatable) so a part can be re-run on the databases an earlier run kept (--keep):
//
//   ingest       one run through the real ingest path (`verity ingest -`, its own process, fed through a pipe) up
//                to --ingest-n rollouts, each with its verifier score record: the rate of every million, the peak
//                RSS of the ingesting process (sampled from /proc every 250 ms), and, at --ab-n rollouts, the same
//                ingest on a database without migration 020 (the index set before the review) and a bare COPY of
//                the same rows into tables with only a primary key; then --external-n external score records alone,
//                through ingest and through the bare COPY.
//   reads        20 runs (--runs) in one database: the big run of each --n size (comma-separated, grown in place:
//                1000000,3000000) and the others of --small, copied in SQL from ingested rows; the browser's first
//                page and its count per single filter and the clusters' links, the rollout detail, the run page and
//                Monitors reads, the clusters report uncached and the agreement report; the disk of each run; then
//                which indexes the reads used (idx_scan summed over the partitions of each parent index).
//   concurrency  --users researchers (browser pages, rows API, detail pages) for --seconds against the built console
//                (`next build` first, then bin/serve.ts on --port) on the reads database: p50/p95/max, errors,
//                the console's peak RSS; then again with an ingest running, and that ingest's rate against the same
//                ingest alone.
//   archive      a copy of --archive-n entries archived (export to NDJSON, then detach and drop its partitions), with
//                the CPU seconds this process and the server's backends spent on it.
//   grow         on the reads database (after reads, which it changes): --grow-n rollouts with their score records
//                through the real ingest into a new, empty run and then into the big run, whatever its size: the
//                rate of each, and per rollout the WAL written and the blocks PostgreSQL had to read into its shared
//                buffers, with the checkpoints on the way — where an ingest into a big run loses its rate. Run it
//                once per VERITY_PG_SHARED_BUFFERS to see what the buffers' size does to it.
//   --citus      instead of the phases: a Citus cluster (lib/testing/citus-cluster.ts: a coordinator and two workers,
//                PostgreSQL 15, 1 GB of shared buffers each) holding two databases built alike as the reads phase
//                builds its own (the big run at the first --n, the --runs beside it): one left on the coordinator
//                alone ("one node"), one distributed by `verity db distribute` ("cluster"). Each run-scoped read of
//                the big run through the console's loaders on both, in turns (--citus-rounds), with the ratio; the
//                runs list, which spans every run; then --citus-ingest-n rollouts into each of two new runs at once,
//                through `verity ingest`, on both. --citus-keep <folder> keeps the cluster's data there (stopped at
//                the end); run again with the same folder, the cluster starts from it and only the reads (and the
//                ingest, unless --citus-ingest-n 0) are made: a change to the loaders re-measured without a rebuild.
//
// `npx tsx bench/scale.ts [--citus] [--citus-ingest-n 100000] [--citus-keep .data/citus-bench] [--phase ingest|reads|concurrency|archive]... [--ingest-n 5000000] [--ab-n 1000000]
//  [--external-n 1000000] [--n 1000000,3000000] [--small 25000] [--runs 20] [--base 50000] [--iterations 20]
//  [--users 20] [--seconds 60] [--think-ms 0,1000] [--port 3411] [--archive-n 1000000] [--grow-n 200000] [--review-rate 0.01] [--agreement-before] [--keep]`
// Every figure is printed with os.loadavg(): the machine is shared. Not part of npm test.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import pg from "pg";
import { createDatabaseIfMissing, ensureDatabase } from "@/lib/db/embedded.ts";
import { migrate, readMigrations } from "@/lib/db/migrate.ts";
import { rawCopyLines } from "@/bench/lib/raw-copy.ts";
import { buildTemplate, scaleLines, type Template } from "@/bench/lib/scale-lines.ts";
import { INGEST_NODE_FLAGS } from "@/lib/ingest/memory.ts";
import { cpuMs, watchBackendCpu } from "@/bench/lib/backend-cpu.ts";
import { buildConsole, loadRound, researcherCookies, rssKb, startConsole } from "@/bench/lib/console-load.ts";
import { browseProbes, copySourceEntries, loadAverage, recountRollups } from "@/bench/lib/bench-db.ts";

const { values } = parseArgs({
  options: {
    phase: { type: "string", multiple: true },
    "ingest-n": { type: "string", default: "5000000" },
    "ab-n": { type: "string", default: "1000000" },
    "external-n": { type: "string", default: "1000000" },
    n: { type: "string", default: "1000000,3000000" },
    small: { type: "string", default: "10000" },
    runs: { type: "string", default: "20" },
    base: { type: "string", default: "50000" },
    template: { type: "string", default: "100000" },
    iterations: { type: "string", default: "20" },
    users: { type: "string", default: "20" },
    seconds: { type: "string", default: "60" },
    "think-ms": { type: "string", default: "0" },
    port: { type: "string", default: "3411" },
    "archive-n": { type: "string", default: "1000000" },
    "grow-n": { type: "string", default: "200000" },
    "live-n": { type: "string", default: "60000" },
    reads: { type: "string" },
    batch: { type: "string", default: "2000" },
    every: { type: "string", default: "1000000" },
    keep: { type: "boolean" },
    "no-build": { type: "boolean" },
    "agreement-before": { type: "boolean" },
    "review-rate": { type: "string", default: "0.01" },
    citus: { type: "boolean" },
    "citus-ingest-n": { type: "string", default: "100000" },
    "citus-rounds": { type: "string", default: "2" },
    "citus-keep": { type: "string" },
  },
});
const PHASES = new Set(values.phase?.length ? values.phase : ["ingest", "reads", "concurrency", "archive"]);
for (const p of PHASES)
  if (!["ingest", "reads", "concurrency", "archive", "grow"].includes(p)) throw new Error(`unknown --phase ${p}`);
const INGEST_N = Number(values["ingest-n"]);
const AB_N = Math.min(Number(values["ab-n"]), INGEST_N);
const EXTERNAL_N = Number(values["external-n"]);
const SIZES = values.n!.split(",").map(Number);
const SMALL = Number(values.small);
const RUNS = Math.max(2, Number(values.runs));
const BASE = Number(values.base);
const ITER = Number(values.iterations);
const USERS = Number(values.users);
const SECONDS = Number(values.seconds);
const PORT = Number(values.port);
const ARCHIVE_N = Number(values["archive-n"]);
const GROW_N = Number(values["grow-n"]);
/** --review-rate 0.11: the share of the big run sampled and reviewed (1% by default, a shadow audit's rate). */
const REVIEW_RATE = Number(values["review-rate"]);
if (!(REVIEW_RATE > 0 && REVIEW_RATE <= 1))
  throw new Error(`--review-rate: must be in (0, 1], got ${values["review-rate"]}`);
const LIVE_N = Number(values["live-n"]);
/** --think-ms 0,1000: a round of researchers per value, each waiting a random time of that mean (exponential)
 * between a response and its next request; 0 keeps every researcher's next request in flight at once. The ingest
 * beside the researchers runs with the last value. */
const THINKS = values["think-ms"]!.split(",").map(Number);
/** --reads a,b: only the reads whose name contains one of these (e.g. "detail,agreement,sampled,level 2"). */
const READS = values.reads?.split(",").map((x) => x.trim().toLowerCase());
const wanted = (name: string) => !READS || READS.some((r) => name.toLowerCase().includes(r));
const BATCH = Number(values.batch);
const MILLION = 1_000_000;
const EVERY = Number(values.every);

const DB = { reads: "verity_bench_scale", ingest: "verity_bench_scale_ingest", pre: "verity_bench_scale_pre020" };
const RAW = "verity_bench_scale_raw";
const BIG = "scale-big";
const INGEST_RUN = "scale-ingest";
const EXTERNAL_RUN = "scale-external";
const smallRuns = Array.from({ length: RUNS - 1 }, (_, i) => `scale-small-${String(i + 1).padStart(2, "0")}`);

const load = loadAverage;
const say = (s: string) => console.log(s);
const fmt = (x: number) => Math.round(x).toLocaleString("en-US");
const ms = (x: number) => x.toFixed(1);
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
function pct(xs: number[], p: number) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
}
async function time<T>(n: number, fn: (i: number) => Promise<T>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n + 2; i++) {
    const t0 = performance.now();
    await fn(i);
    if (i >= 2) out.push(performance.now() - t0);
  }
  return out;
}

let adminUrl = "";
const urlOf = (name: string) => {
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return u.toString();
};
async function adminQuery(sql: string) {
  const a = new pg.Client({ connectionString: adminUrl });
  await a.connect();
  try {
    return await a.query(sql);
  } finally {
    await a.end();
  }
}
async function exists(name: string): Promise<boolean> {
  const a = new pg.Client({ connectionString: adminUrl });
  await a.connect();
  try {
    return (await a.query("select 1 from pg_database where datname = $1", [name])).rowCount === 1;
  } finally {
    await a.end();
  }
}
/** A fresh database; `withoutIndexReview`: migrated up to, not including, 020 (the index set before the review). */
async function freshDb(name: string, opts: { withoutIndexReview?: boolean; bare?: boolean } = {}): Promise<string> {
  await adminQuery(`drop database if exists "${name}" with (force)`);
  await createDatabaseIfMissing(adminUrl, name);
  if (!opts.bare) {
    const files = readMigrations();
    await migrate(urlOf(name), {
      files: opts.withoutIndexReview ? files.filter((f) => f.name < "020") : files,
    });
  }
  return urlOf(name);
}
async function checkpoint(url: string) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query("checkpoint");
  await c.end();
}

// ---------------------------------------------------------------- ingest ----------------------------------------

type IngestRun = {
  seconds: number;
  marks: { rollouts: number; seconds: number; load: string }[];
  peakRssMb: number;
  /** The ingesting process's CPU seconds at its last sample (every 250 ms, so up to that much short). */
  cpuSeconds: number | null;
  summary: Record<string, unknown> | null;
};

/** `verity ingest -` as a user runs it (its own process, the embedded flags), fed `lines` through its stdin. */
async function ingestThroughCli(
  url: string,
  lines: Iterable<string>,
  opts: { every?: number; label: string; linesPerRollout: number },
): Promise<IngestRun> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      ...INGEST_NODE_FLAGS,
      // VERITY_BENCH_CPU_PROF=<dir>: a V8 CPU profile of each ingesting process, for where its time goes.
      ...(process.env.VERITY_BENCH_CPU_PROF
        ? ["--cpu-prof", `--cpu-prof-dir=${process.env.VERITY_BENCH_CPU_PROF}`]
        : []),
      "bin/verity.ts",
      "ingest",
      "-",
      "--no-progress",
      "--batch",
      String(BATCH),
    ],
    { env: { ...process.env, DATABASE_URL: url, VERITY_DEMO: "0" }, stdio: ["pipe", "pipe", "pipe"] },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c) => (stdout += c));
  child.stderr.on("data", (c) => (stderr += c));
  const closed = new Promise<number>((res) => child.on("close", (code) => res(code ?? -1)));
  let peak = 0;
  let cpu: number | null = null;
  const sampler = setInterval(() => {
    const r = rssKb(child.pid!);
    if (r) peak = Math.max(peak, r.hwm, r.rss);
    cpu = cpuMs(child.pid!) ?? cpu;
  }, 250);
  const t0 = performance.now();
  const marks: IngestRun["marks"] = [];
  const every = opts.every ?? EVERY;
  let n = 0;
  let buf: string[] = [];
  let exited = false;
  child.once("close", () => {
    exited = true;
    child.stdin.emit("drain");
  });
  const flush = async () => {
    const chunk = buf.join("\n") + "\n";
    buf = [];
    if (exited) throw new Error(`${opts.label}: ingest exited early: ${stderr.slice(-2000)}`);
    if (!child.stdin.write(chunk)) await new Promise<void>((res) => child.stdin.once("drain", res));
  };
  for (const line of lines) {
    buf.push(line);
    if (line.includes('"kind":"rollout"') || line.includes('"source":"external"')) {
      n++;
      if (n % every === 0) {
        await flush();
        marks.push({ rollouts: n, seconds: (performance.now() - t0) / 1000, load: load() });
        say(
          `  ${opts.label}: ${fmt(n)} sent at ${marks.at(-1)!.seconds.toFixed(1)} s, peak RSS ${(peak / 1024).toFixed(0)} MB, ${load()}`,
        );
      }
    }
    if (buf.length >= 256) await flush();
  }
  if (buf.length) await flush();
  child.stdin.end();
  const code = await closed;
  clearInterval(sampler);
  const seconds = (performance.now() - t0) / 1000;
  if (marks.at(-1)?.rollouts !== n) marks.push({ rollouts: n, seconds, load: load() });
  else marks[marks.length - 1] = { rollouts: n, seconds, load: load() };
  const last = stdout.trim().split("\n").at(-1) ?? "";
  let summary: Record<string, unknown> | null = null;
  try {
    summary = JSON.parse(last);
  } catch {
    /* reported below */
  }
  if (code !== 0 || !summary || summary.rejected !== 0)
    throw new Error(`${opts.label}: exit ${code}, summary ${last.slice(0, 2000)}\n${stderr.slice(-3000)}`);
  return { seconds, marks, peakRssMb: peak / 1024, cpuSeconds: cpu === null ? null : cpu / 1000, summary };
}

async function phaseIngest() {
  const buffers = (await adminQuery("show shared_buffers")).rows[0].shared_buffers;
  say(`\n## ingest, shared_buffers ${buffers} (${load()})`);
  const t = performance.now();
  const tpl = buildTemplate(INGEST_RUN, Number(values.template));
  const tplExt = buildTemplate(EXTERNAL_RUN, Number(values.template));
  say(
    `template: ${fmt(tpl.entries.length)} rollouts + score records built in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );

  // Bare COPY of the first --ab-n rollouts and their records, into tables with only a primary key.
  const raw = async (label: string, kind: "scored" | "external", n: number, template: Template) => {
    const url = await freshDb(RAW, { bare: true });
    const r = await rawCopyLines(url, scaleLines(template, n, kind), BATCH, { primaryKey: true });
    await checkpoint(url);
    say(`  bare COPY (${label}): ${fmt(n)} in ${r.seconds.toFixed(1)} s = ${fmt(n / r.seconds)}/s (${load()})`);
    return r.seconds;
  };
  // --ab-n 0: the one run alone (its rate per million and RSS), without the comparisons.
  const rawFirst = AB_N ? await raw("rollouts + score records, first", "scored", AB_N, tpl) : 0;

  let before: IngestRun | null = null;
  if (AB_N) {
    const pre = await freshDb(DB.pre, { withoutIndexReview: true });
    before = await ingestThroughCli(pre, scaleLines(tpl, AB_N, "scored"), {
      label: "ingest without 020",
      linesPerRollout: 2,
    });
    await adminQuery(`drop database if exists "${DB.pre}" with (force)`);
  }

  const url = await freshDb(DB.ingest);
  await checkpoint(url);
  const after = await ingestThroughCli(url, scaleLines(tpl, INGEST_N, "scored"), {
    label: "ingest with 020",
    linesPerRollout: 2,
  });
  const rawLast = AB_N ? await raw("rollouts + score records, last", "scored", AB_N, tpl) : 0;
  const rawMean = (rawFirst + rawLast) / 2;

  const extRaw = EXTERNAL_N ? await raw("external score records", "external", EXTERNAL_N, tplExt) : 0;
  let ext: IngestRun | null = null;
  let extServerCpu: number | null = null;
  if (EXTERNAL_N) {
    await checkpoint(url);
    const backends = watchBackendCpu(adminUrl, DB.ingest);
    ext = await ingestThroughCli(url, scaleLines(tplExt, EXTERNAL_N, "external"), {
      label: "external records",
      linesPerRollout: 1,
    });
    extServerCpu = await backends.stop();
  }
  await adminQuery(`drop database if exists "${RAW}" with (force)`);

  const atAb = (r: IngestRun) => {
    const m = r.marks.find((x) => x.rollouts >= AB_N) ?? r.marks.at(-1)!;
    return { n: m.rollouts, s: m.seconds };
  };
  if (before) {
    say(
      `\n| ingest (rollouts + score records) | rollouts | s | rollouts/s | vs bare COPY | peak RSS | load at the end |`,
    );
    say(`|---|---:|---:|---:|---:|---:|---|`);
    say(
      `| bare COPY into tables with only a primary key (mean of first and last) | ${fmt(AB_N)} | ${rawMean.toFixed(1)} | ${fmt(AB_N / rawMean)} | 1.00× | – | |`,
    );
  }
  for (const [name, r] of before
    ? ([
        ["ingest, index set before 020", before],
        ["ingest, index set of 020", after],
      ] as const)
    : []) {
    const a = atAb(r);
    say(
      `| ${name}, first ${fmt(a.n)} | ${fmt(a.n)} | ${a.s.toFixed(1)} | ${fmt(a.n / a.s)} | ${(rawMean / a.s).toFixed(2)}× | ${name.includes("020") && r === after ? "see below" : r.peakRssMb.toFixed(0) + " MB"} | ${r.marks.find((x) => x.rollouts >= a.n)?.load ?? ""} |`,
    );
  }
  say(
    `\n| ${fmt(EVERY)} rollouts (index set of 020) | s | rollouts/s | vs the first | ${"load"} |\n|---|---:|---:|---:|---|`,
  );
  let prev = { rollouts: 0, seconds: 0 };
  let firstRate = 0;
  for (const m of after.marks) {
    const rate = (m.rollouts - prev.rollouts) / (m.seconds - prev.seconds);
    if (!firstRate) firstRate = rate;
    say(
      `| ${fmt(prev.rollouts)}–${fmt(m.rollouts)} | ${(m.seconds - prev.seconds).toFixed(1)} | ${fmt(rate)} | ${(rate / firstRate).toFixed(2)}× | ${m.load} |`,
    );
    prev = m;
  }
  say(
    `peak RSS of the ingesting process: ${after.peakRssMb.toFixed(0)} MB over ${fmt(INGEST_N)} rollouts${before ? ` (before 020: ${before.peakRssMb.toFixed(0)} MB)` : ""}`,
  );
  if (ext) {
    const ratio = extRaw / ext.seconds;
    say(
      `external score records alone: ${fmt(EXTERNAL_N)} in ${ext.seconds.toFixed(1)} s = ${fmt(EXTERNAL_N / ext.seconds)}/s; bare COPY ${extRaw.toFixed(1)} s; ratio ${ratio.toFixed(2)}×; target ≥ 0.2×: ${ratio >= 0.2 ? "met" : "**missed**"}; peak RSS ${ext.peakRssMb.toFixed(0)} MB (${load()})`,
    );
    // Where the time goes: the server's CPU is a floor under the ingest's time however well the rest overlaps it.
    if (extServerCpu !== null)
      say(
        `  its CPU: the server's backends ${extServerCpu.toFixed(1)} s (${((extServerCpu / EXTERNAL_N) * 1e6).toFixed(0)} µs a record), the ingesting process ${ext.cpuSeconds?.toFixed(1) ?? "?"} s, in ${ext.seconds.toFixed(1)} s on ${os.cpus().length} cores; with all else overlapped with the backends' work, at best ${(extRaw / extServerCpu).toFixed(2)}× the bare COPY`,
      );
    await traceExternalInsert(url, (ext.seconds / EXTERNAL_N) * 1e6);
  }
  await sizes(url, "ingest database");
  if (!values.keep) await adminQuery(`drop database if exists "${DB.ingest}" with (force)`);
}

// ---------------------------------------------------------------- reads -----------------------------------------

/** Copies the source run's ingested entries (with rollouts, guardrail and reason rows) into `run` up to `n`. */
async function fill(c: pg.Client, run: string, n: number): Promise<void> {
  await c.query("insert into runs (id) values ($1) on conflict do nothing", [run]);
  let have = Number(
    (await c.query("select count(*) from ledger where run_id = $1 and is_current", [run])).rows[0].count,
  );
  const base = Number((await c.query("select count(*) from src")).rows[0].count);
  while (have < n) {
    const need = Math.min(base, n - have);
    const tag = `${run}#${have}`;
    await c.query("begin");
    // The big run's copies share the source entries' rollouts (rollout_id of the same run): copying the trajectories' JSON
    // (detoasted and compressed again) was most of the build's time, and no read measured here goes past an
    // entry's rollout. Disk per million is taken from the ingest phase's database, where every entry has its own.
    await copySourceEntries(c, { tag, need, run, from: BIG, shareRollouts: run === BIG });
    await c.query("commit");
    have += need;
  }
  // Rollups from the ledger, as ingest would have kept them (the charts and the clusters' cache read these).
  await recountRollups(c, run);
}

const TRACE_N = 20_000;

/**
 * Where an external record's ledger row spends its time, measured on the ingested run: EXPLAIN ANALYZE of inserting
 * TRACE_N of its entries again under new trajectory ids, rolled back, beside the ingest's whole cost a record. The bare
 * COPY it is compared with writes a row into a table with a primary key only; this insert pays the ledger's indexes
 * and its triggers, named here, and before it the insert into trajectories that the ingest makes for a batch's new
 * trajectories (029).
 */
async function traceExternalInsert(url: string, ingestUsPerRecord: number) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const cols = `run_id, step, ticket_id, group_id, category, status, source, verifier_version, config_hash, claims_source,
    raw_reward, reward, capped, outcome, policy, evidence, efficiency, communication, deciding_guardrail, guardrail_mask,
    guardrails, reasons, claims, handoff, tool_steps, content_hash, trained_reward`;
  try {
    // As the ingest writes a batch (write-batch.ts): its new trajectories recorded first, in key order, then the rows.
    await c.query("begin; set local enable_seqscan = off; set local max_parallel_workers_per_gather = 0");
    const recorded = await c.query(
      `explain (analyze, format json) insert into trajectories (trajectory_id, run_id)
       select * from (select trajectory_id || '#trace', run_id from ledger where run_id = $1 and is_current
                       order by id limit ${TRACE_N}) x order by 1`,
      [EXTERNAL_RUN],
    );
    const rec = recorded.rows[0]["QUERY PLAN"][0] as {
      Plan: { Plans?: { "Actual Total Time": number }[] };
      "Execution Time": number;
    };
    // Without reading its source rows (the ingest sends them), as for the ledger insert below.
    const trajectoriesMs = rec["Execution Time"] - (rec.Plan.Plans?.[0]?.["Actual Total Time"] ?? 0);
    const { rows } = await c.query(
      `explain (analyze, format json) insert into ledger (trajectory_id, ${cols})
       select trajectory_id || '#trace', ${cols} from ledger where run_id = $1 and is_current order by id limit ${TRACE_N}`,
      [EXTERNAL_RUN],
    );
    type Trigger = { "Trigger Name": string; Time: number; Calls: number };
    const plan = rows[0]["QUERY PLAN"][0] as {
      Plan: { Plans?: { "Actual Total Time": number }[] };
      Triggers?: Trigger[];
      "Execution Time": number;
    };
    const total = plan["Execution Time"];
    const source = plan.Plan.Plans?.[0]?.["Actual Total Time"] ?? 0;
    const triggers = plan.Triggers ?? [];
    const sum = (pick: (t: Trigger) => boolean) => triggers.filter(pick).reduce((a, t) => a + t.Time, 0);
    const isTrajectories = (t: Trigger) => t["Trigger Name"].includes("record_trajectories");
    const isKey = (t: Trigger) => t["Trigger Name"].startsWith("RI_ConstraintTrigger");
    const trajectories = sum(isTrajectories);
    const keys = sum(isKey);
    const other = sum((t) => !isTrajectories(t) && !isKey(t));
    const row = total - source - trajectories - keys - other;
    const pct = (x: number) => `${((x / total) * 100).toFixed(0)}%`;
    say(
      `where an external record's ledger row goes (EXPLAIN ANALYZE of ${fmt(TRACE_N)} of them inserted again, rolled back): ` +
        `their trajectories recorded first, as the ingest does, ${ms(trajectoriesMs)} ms; then the ledger insert ` +
        `${ms(total)} ms, ${((total / TRACE_N) * 1000).toFixed(0)} µs a row — ` +
        `the statement trigger that records new trajectories (here: checks that they are) ${ms(trajectories)} ms (${pct(trajectories)}), the per-row foreign keys ${ms(keys)} ms (${pct(keys)}), ` +
        `other triggers ${ms(other)} ms (${pct(other)}), reading the source rows ${ms(source)} ms, the row with its indexes ${ms(row)} ms (${pct(row)}); ` +
        `the ingest took ${ingestUsPerRecord.toFixed(0)} µs a record in all (parse, validate, hash, this row, its guardrail and reason rows, the rollups)`,
    );
  } finally {
    await c.query("rollback").catch(() => undefined);
    await c.end();
  }
}

async function buildReads(c: pg.Client, url: string, size: number) {
  const fresh =
    Number(
      (await c.query("select count(*) from ledger where run_id = $1", [BIG]).catch(() => ({ rows: [{ count: 0 }] })))
        .rows[0].count,
    ) === 0;
  if (fresh) {
    const { ingestValues } = await import("@/lib/ingest/ingest.ts");
    const { demoRunValues } = await import("@/lib/demo/generate.ts");
    const pool = new pg.Pool({ connectionString: url, max: 3 });
    const t = performance.now();
    const steps = Math.max(1, Math.round(BASE / (250 * 4)));
    const s = await ingestValues(
      demoRunValues({ runId: BIG, tickets: 250, steps, k: 4, seed: "scale", variant: "normal" }),
      {
        pool,
        batchLines: 4000,
      },
    );
    await pool.end();
    say(
      `ingested ${fmt(s.by_kind.rollout.accepted)} generated rollouts into ${BIG} in ${((performance.now() - t) / 1000).toFixed(1)} s (${load()})`,
    );
  }
  await c.query("drop table if exists src");
  await c.query(
    "create temp table src as select * from ledger where run_id = $1 and is_current and position('#' in trajectory_id) = 0",
    [BIG],
  );
  const t = performance.now();
  await fill(c, BIG, size);
  for (const run of smallRuns) await fill(c, run, SMALL);
  for (const table of ["rollouts", "ledger", "ledger_guardrails", "ledger_reasons", "step_rollups", "trajectories"])
    await c.query(`vacuum analyze ${table}`);
  say(
    `copied ${BIG} up to ${fmt(size)} and ${smallRuns.length} runs of ${fmt(SMALL)} in ${((performance.now() - t) / 1000).toFixed(1)} s (${load()})`,
  );

  if (fresh) {
    // --review-rate (1%) of the big run sampled and reviewed (a human agreeing within 0.05), for the agreement report.
    const user = await c.query<{ id: number }>(
      `insert into users (email, role) values ('bench-reviewer@example.org', 'annotator') returning id`,
    );
    const batch = await c.query<{ id: number }>(
      `insert into audit_batches (name, run_id, step_from, step_to, rate, salt, pick) values ('bench', $1, 0, 2147483647, $2, 's', 'one') returning id`,
      [BIG, REVIEW_RATE],
    );
    await c.query(
      `insert into audit_items (batch_id, run_id, rollout_id, ledger_id, trajectory_id, ticket_id, inclusion_prob, reviews_done, status)
       select $1, l.run_id, l.rollout_id, l.id, l.trajectory_id, l.ticket_id, $3, 1, 'done' from ledger l
        where l.run_id = $2 and l.is_current and l.reward is not null and l.rollout_id is not null
          and abs(hashint8(l.id)) % 10000 < $4`,
      [batch.rows[0].id, BIG, REVIEW_RATE, Math.round(REVIEW_RATE * 10000)],
    );
    await c.query(
      `insert into reviews (item_id, reviewer_id, outcome, policy, evidence, efficiency, communication, guardrails, reward, claims, seconds_spent)
       select i.id, $1, coalesce(l.outcome, 0), coalesce(l.policy, 0), coalesce(l.evidence, 0), coalesce(l.efficiency, 0),
              coalesce(l.communication, 0), '{}'::text[], least(1, l.reward + 0.02), coalesce(l.claims, '{}'::jsonb), 60
         from audit_items i join ledger l on l.run_id = i.run_id and l.id = i.ledger_id where i.batch_id = $2`,
      [user.rows[0].id, batch.rows[0].id],
    );
    await c.query("analyze audit_items; analyze reviews");
  }
}

async function sizes(url: string, label: string) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query("analyze ledger");
  const r = await c.query<{ run: string; rows: string; entries: string; heap: string; idx: string; toast: string }>(
    `select substring(pg_get_expr(ch.relpartbound, ch.oid) from $$'(.*)'$$) as run,
            sum(ch.reltuples) filter (where p.relname = 'ledger')::bigint::text as entries,
            sum(pg_relation_size(ch.oid))::text as heap,
            sum(pg_indexes_size(ch.oid))::text as idx,
            sum(pg_total_relation_size(ch.oid) - pg_relation_size(ch.oid) - pg_indexes_size(ch.oid))::text as toast
       from pg_class ch join pg_inherits i on i.inhrelid = ch.oid join pg_class p on p.oid = i.inhparent
      where ch.relispartition and ch.relkind = 'r' group by 1 order by sum(pg_total_relation_size(ch.oid)) desc limit 3`,
  );
  say(
    `\n| ${label}: run (largest 3) | ledger entries | heap MB | TOAST MB | index MB | GB per million entries |\n|---|---:|---:|---:|---:|---:|`,
  );
  for (const x of r.rows) {
    const total = Number(x.heap) + Number(x.toast) + Number(x.idx);
    say(
      `| ${x.run} | ${fmt(Number(x.entries))} | ${mb(Number(x.heap))} | ${mb(Number(x.toast))} | ${mb(Number(x.idx))} | ${(total / 1024 ** 3 / (Number(x.entries) / MILLION)).toFixed(2)} |`,
    );
  }
  const idx = await c.query<{ name: string; bytes: string }>(
    `select p.relname as name, sum(pg_relation_size(i.inhrelid))::text as bytes
       from pg_class p join pg_inherits i on i.inhparent = p.oid
      where p.relkind = 'I' group by 1 order by 2::bigint desc`,
  );
  say(`index sizes (all runs): ${idx.rows.map((x) => `${x.name} ${mb(Number(x.bytes))} MB`).join(", ")}`);
  await c.end();
}

async function phaseReads() {
  const url = (await exists(DB.reads)) ? urlOf(DB.reads) : await freshDb(DB.reads);
  await migrate(url);
  const { bindDatabase } = await import("@/lib/db/client.ts");
  await bindDatabase(url);
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  for (const size of SIZES) {
    say(`\n## reads at ${fmt(size)} entries in ${BIG}, ${RUNS} runs (${load()})`);
    await buildReads(c, url, size);
    await c.query("select pg_stat_reset()");
    await measureReads(c, size);
    await sizes(url, `reads database at ${fmt(size)}`);
    await indexUse(c);
  }
  await c.end();
}

async function measureReads(c: pg.Client, size: number) {
  const filters = await browseFilters(c);
  const small = smallRuns[0];
  say(
    `\n${fmt(size)} current entries in ${BIG}, ${smallRuns.length} other runs of ${fmt(SMALL)}; ${ITER} iterations; ${os.cpus()[0].model}, ${os.cpus().length} CPUs; ${load()}`,
  );
  say(`\n| read | big p50 ms | big p95 ms | small-run p95 ms | target | met |\n|---|---:|---:|---:|---:|---|`);
  await measureBrowse(filters, small);
  if (wanted("rollout detail")) await measureDetail(c);
  await measurePages(small);
  if (wanted("agreement")) await measureAgreement(c);
  say(`(${load()})`);
}

/** One row of the reads table: p50 and p95 of the big run, p95 of a small one, against the target. */
function row(name: string, big: number[], sm: number[] | null, target: number) {
  const p95 = pct(big, 0.95);
  say(
    `| ${name} | ${ms(pct(big, 0.5))} | ${ms(p95)} | ${sm ? ms(pct(sm, 0.95)) : ""} | ${target} | ${p95 <= target ? "yes" : "**no**"} |`,
  );
}

/** The browser's filters measured, with values drawn from the data (a random sample, the rarest reason, clusters). */
async function browseFilters(c: pg.Client) {
  const { formatReasonSignature, browseQuery } = await import("@/lib/ledger/browse-schema.ts");
  const { BLIND_SPOT_KEY, browserFilters, parseKey } = await import("@/lib/clusters/keys.ts");
  const { sample, rare, signature, top } = await browseProbes(c, BIG, { every: 20 });
  const maxStep = Number((await c.query("select max(step) from step_rollups where run_id = $1", [BIG])).rows[0].max);
  const link = (key: string) =>
    Object.fromEntries(
      new URLSearchParams(browseQuery(browserFilters({ runId: BIG, threshold: 0.5 }, parseKey(key)!))),
    );
  const filters: [string, Record<string, string>][] = [
    ["run only, newest first", {}],
    ["step range (last 10%)", { step_from: String(Math.floor(maxStep * 0.9)) }],
    ["category", { category: sample[0].category }],
    ["reward ≤ 0.5", { reward_max: "0.5" }],
    ["evidence ≤ 0.5", { evidence_max: "0.5" }],
    ["guardrail any of missing_evidence", { any: "missing_evidence" }],
    [
      "guardrail none of six",
      { none: "customer_harm,unauthorized_write,duplicate_side_effect,empty_promise,policy_error,missing_evidence" },
    ],
    ["all of missing_evidence + unauthorized_write", { all: "missing_evidence,unauthorized_write" }],
    ["deciding = empty_promise", { deciding: "empty_promise" }],
    ["capped", { capped: "yes" }],
    ["hand-off", { handoff: "yes" }],
    ["status spec_error", { status: "spec_error" }],
    [`reason ${rare} (rarest)`, { reason: rare }],
    [`reason signature ${formatReasonSignature(signature)}`, { sig: formatReasonSignature(signature) }],
    ["weakest sub-score = evidence", { weakest: "evidence" }],
    ["ticket id", { q: sample[1].ticket_id }],
    ["trajectory id", { q: sample[2].trajectory_id }],
    ["sampled", { sampled: "yes" }],
    ["no sandbox write", { sandbox_write: "no" }],
    ["reward below 0.5 (strict)", { reward_below: "0.5" }],
    ["sort by reward ascending", { sort: "reward", dir: "asc" }],
    ["sort by reward, deciding = missing_evidence", { deciding: "missing_evidence", sort: "reward" }],
    [
      `cluster link: level 2 ${top.deciding} › ${formatReasonSignature(top)}`,
      link(`${top.deciding}|${formatReasonSignature(top)}`),
    ],
    [`cluster link: level 1 ${top.deciding}`, link(top.deciding)],
    ["cluster link: blind spot", link(BLIND_SPOT_KEY)],
  ];
  return filters;
}

/** Each filter's first page and count, on the big run and on a small one. */
async function measureBrowse(filters: [string, Record<string, string>][], small: string) {
  const { browseLedger, countLedger } = await import("@/lib/ledger/browse.ts");
  const { parseBrowseParams } = await import("@/lib/ledger/browse-schema.ts");
  for (const [name, q] of filters) {
    if (!wanted(`first page: ${name}`) && !wanted(`count: ${name}`)) continue;
    const parse = (run: string) => {
      const parsed = parseBrowseParams({ ...q, run });
      if (!parsed.ok) throw new Error(`${name}: ${parsed.errors.join("; ")}`);
      return parsed.params;
    };
    const pb = parse(BIG);
    const ps = parse(small);
    row(
      `first page: ${name}`,
      await time(ITER, () => browseLedger(pb, 100)),
      await time(5, () => browseLedger(ps, 100)),
      200,
    );
    row(
      `count: ${name}`,
      await time(Math.max(5, ITER / 2), () => countLedger(pb)),
      await time(5, () => countLedger(ps)),
      500,
    );
  }
}

/** The rollout detail query before and after, and the detail page's neighbours without a browser query. */
async function measureDetail(c: pg.Client) {
  const { parseBrowseParams } = await import("@/lib/ledger/browse-schema.ts");
  const { loadTrajectoryDetail } = await import("@/lib/ledger/detail.ts");
  const { loadTrajectoryDetailBefore } = await import("@/bench/lib/scale-baseline.ts");
  const { neighbours } = await import("@/lib/ledger/browse.ts");
  const ids = (
    await c.query("select trajectory_id from ledger where run_id = $1 and is_current order by random() limit 42", [BIG])
  ).rows.map((r) => r.trajectory_id as string);
  // Before and after in turns, so the load of a shared machine weighs on both alike.
  const before: number[] = [];
  const after: number[] = [];
  for (let round = 0; round < 2; round++) {
    before.push(
      ...(await time(ids.length - 2, async (i) => {
        if (!(await loadTrajectoryDetailBefore(ids[i]))) throw new Error("no detail");
      })),
    );
    after.push(
      ...(await time(ids.length - 2, async (i) => {
        if (!(await loadTrajectoryDetail(ids[i]))) throw new Error("no detail");
      })),
    );
  }
  row("rollout detail (40 random × 2), before: five round trips deep", before, null, 100);
  row("rollout detail (40 random × 2), after: three deep", after, null, 100);
  const entry = (await loadTrajectoryDetail(ids[0]))!.entry;
  const parsedAll = parseBrowseParams({});
  if (parsedAll.ok) {
    const all = parsedAll.params;
    row(
      "detail page's neighbours without a browser query (every run)",
      await time(ITER, () => neighbours(all, { id: entry.id, sortValue: null })),
      null,
      100,
    );
  }
}

/** The run page's, the Monitors page's and the clusters report's reads. */
async function measurePages(small: string) {
  const { loadRunCharts } = await import("@/lib/monitors/loaders.ts");
  const { evaluateRunAlarms, refreshAlarms } = await import("@/lib/monitors/evaluate.ts");
  const { listAlarmEvents } = await import("@/lib/monitors/data.ts");
  const { getRunSummary, listRunIds, listRunSummaries } = await import("@/lib/runs/data.ts");
  const { computeClusterReport } = await import("@/lib/clusters/loaders.ts");
  const { db } = await import("@/lib/db/client.ts");
  const client = db();
  if (wanted("run page"))
    row(
      "run page: every read of /runs/[run], in parallel",
      await time(ITER, () =>
        Promise.all([
          loadRunCharts(BIG, {}, client),
          getRunSummary(BIG, client),
          evaluateRunAlarms(BIG, { client, webhookUrl: null }),
          listAlarmEvents({ runId: BIG, limit: 10 }, client),
          listRunIds(client),
        ]),
      ),
      null,
      300,
    );
  if (wanted("monitors"))
    row(
      "Monitors page: refreshAlarms over 20 runs + runs list",
      await time(ITER, () =>
        Promise.all([refreshAlarms(undefined, { client, webhookUrl: null }), listRunSummaries(client)]),
      ),
      null,
      300,
    );
  if (wanted("clusters report"))
    row(
      "clusters report, uncached (threshold 0.5)",
      await time(3, () => computeClusterReport({ runId: BIG, threshold: 0.5 })),
      await time(1, () => computeClusterReport({ runId: small, threshold: 0.5 })),
      2000,
    );
}

/** The agreement report uncached (its load and its build), and the agreement page's read cold and warm. */
async function measureAgreement(c: pg.Client) {
  const { loadAgreementItems } = await import("@/lib/agreement/data.ts");
  const { loadAgreementItemsBefore } = await import("@/bench/lib/scale-baseline.ts");
  const { buildAgreementReport } = await import("@/lib/agreement/report.ts");
  const { loadAgreementReport } = await import("@/lib/agreement/cached.ts");
  const { clearProcessCaches } = await import("@/lib/db/fingerprint-cache.ts");
  const { db } = await import("@/lib/db/client.ts");
  const client = db();
  // The run's report (1% of the big run as it was when its batch was made: 10,100 items at 1 M, 100,000 at 10 M)
  // and one batch of 10,100 of those items (a tenth of them at 10 M), so that the figure at 10,000 items is read
  // at every size. The loader before 2026-12-01 only with --agreement-before (25 s a report at 10,000 items).
  const big = await c.query<{ id: number; items: string }>(
    "select b.id, count(i.id)::text as items from audit_batches b join audit_items i on i.batch_id = b.id where b.run_id = $1 and b.name = 'bench' group by b.id",
    [BIG],
  );
  const views: [string, { run?: string; batch?: number; tolerance: number }][] = [
    [`the run's ${fmt(Number(big.rows[0].items))} reviewed items`, { run: BIG, tolerance: 0.1 }],
  ];
  if (Number(big.rows[0].items) > 20_000) {
    const subset = await tenThousandBatch(c, big.rows[0].id);
    views.push([`a batch of ${fmt(subset.items)} reviewed items`, { batch: subset.id, tolerance: 0.1 }]);
  }
  for (const [label, f] of views) {
    const rounds = label.includes("run's") && views.length > 1 ? 1 : 3;
    const before: number[] = [];
    const after: number[] = [];
    const cold: number[] = [];
    const warm: number[] = [];
    const loads: number[] = [];
    const builds: number[] = [];
    for (let round = 0; round < rounds; round++) {
      if (values["agreement-before"])
        before.push(...(await time(3, async () => void buildAgreementReport(await loadAgreementItemsBefore(f), f))));
      after.push(
        ...(await time(3, async () => {
          const t0 = performance.now();
          const items = await loadAgreementItems(f, client, { lean: true });
          const t1 = performance.now();
          buildAgreementReport(items, f);
          loads.push(t1 - t0);
          builds.push(performance.now() - t1);
        })),
      );
      // as the page reads it: the fingerprint, then the report computed (first read after a change) or reused
      cold.push(
        ...(await time(2, async () => {
          clearProcessCaches();
          await loadAgreementReport(f, client);
        })),
      );
      warm.push(...(await time(3, async () => void (await loadAgreementReport(f, client)))));
    }
    if (before.length) row(`agreement report (${label}), before: current entries by rollout id`, before, null, 500);
    row(`agreement report (${label}), uncached`, after, null, 500);
    say(
      `  where the uncached report's time goes (p50): loading the items with their entries, reviews and case slots ${ms(pct(loads, 0.5))} ms; building every figure with its interval ${ms(pct(builds, 0.5))} ms${pct(after, 0.5) > 500 ? " — both O(reviewed items): over 500 ms, the report would have to be kept per item between reviews, not rebuilt" : ""}`,
    );
    row(`agreement page's read (${label}), first after a change (fingerprint + report)`, cold, null, 500);
    row(`agreement page's read (${label}), nothing changed since (fingerprint, report reused)`, warm, null, 500);
  }
}

/** A second batch of the big run holding a tenth of the bench batch's items (hash of the entry id), with their
 * reviews: ~10,100 items when the run's batch holds 1% of 10 M. Made once. */
async function tenThousandBatch(c: pg.Client, from: number): Promise<{ id: number; items: number }> {
  const have = await c.query<{ id: number }>(
    "select id from audit_batches where run_id = $1 and name = 'bench-tenth'",
    [BIG],
  );
  let id = have.rows[0]?.id;
  if (id === undefined) {
    id = (
      await c.query<{ id: number }>(
        `insert into audit_batches (name, run_id, step_from, step_to, rate, salt, pick) values ('bench-tenth', $1, 0, 2147483647, 0.001, 't', 'one') returning id`,
        [BIG],
      )
    ).rows[0].id;
    await c.query(
      `insert into audit_items (batch_id, run_id, rollout_id, ledger_id, trajectory_id, ticket_id, inclusion_prob, reviews_done, status)
       select $1, run_id, rollout_id, ledger_id, trajectory_id, ticket_id, 0.001, 1, 'done' from audit_items
        where batch_id = $2 and hashint8(ledger_id) % 1000 = 0`,
      [id, from],
    );
    await c.query(
      `insert into reviews (item_id, reviewer_id, outcome, policy, evidence, efficiency, communication, guardrails, reward, claims, seconds_spent)
       select n.id, v.reviewer_id, v.outcome, v.policy, v.evidence, v.efficiency, v.communication, v.guardrails, v.reward, v.claims, v.seconds_spent
         from audit_items n join audit_items o on o.batch_id = $2 and o.trajectory_id = n.trajectory_id
         join reviews v on v.item_id = o.id
        where n.batch_id = $1`,
      [id, from],
    );
    await c.query("analyze audit_items; analyze reviews");
  }
  const n = await c.query<{ n: number }>("select count(*)::int as n from audit_items where batch_id = $1", [id]);
  return { id, items: n.rows[0].n };
}

/** Which indexes the reads used: idx_scan over every partition of each partitioned index, since the stats reset. */
async function indexUse(c: pg.Client) {
  const r = await c.query<{ name: string; scans: string }>(
    `select p.relname as name, coalesce(sum(s.idx_scan), 0)::text as scans
       from pg_class p join pg_inherits i on i.inhparent = p.oid left join pg_stat_user_indexes s on s.indexrelid = i.inhrelid
      where p.relkind = 'I' group by 1 order by 1`,
  );
  say(`\nindex scans during the reads: ${r.rows.map((x) => `${x.name} ${x.scans}`).join(", ")}`);
}

// ---------------------------------------------------------------- concurrency -----------------------------------

async function phaseConcurrency() {
  const url = urlOf(DB.reads);
  if (!(await exists(DB.reads)))
    throw new Error("--phase concurrency needs the reads database: run --phase reads --keep first");
  if (!values["no-build"]) say(`next build: ${(await buildConsole()).toFixed(0)} s (${load()})`);
  const { bindDatabase } = await import("@/lib/db/client.ts");
  await bindDatabase(url);
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const cookies = await researcherCookies(c, USERS);
  const ids = (
    await c.query("select trajectory_id from ledger where run_id = $1 and is_current order by random() limit 500", [
      BIG,
    ])
  ).rows.map((r) => r.trajectory_id as string);
  const runs = [BIG, ...smallRuns];
  const served = await startConsole(url, PORT);
  const base = served.base;
  const browse = [
    "",
    "&any=missing_evidence",
    "&reward_max=0.5",
    "&handoff=yes",
    "&deciding=empty_promise",
    "&sort=reward&dir=asc",
    "&capped=yes",
  ];
  const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)];
  const requestFor = (): [string, string] => {
    const r = Math.random();
    const run = Math.random() < 0.5 ? BIG : pick(runs);
    if (r < 0.4) return ["browser page", `/trajectories?run=${encodeURIComponent(run)}${pick(browse)}`];
    if (r < 0.7) return ["rows API", `/api/ledger/rows?run=${encodeURIComponent(run)}${pick(browse)}`];
    return ["detail page", `/trajectories/${encodeURIComponent(pick(ids))}`];
  };
  const warm = async () => {
    for (const p of [
      "/trajectories?run=" + BIG,
      "/api/ledger/rows?run=" + BIG,
      "/trajectories/" + encodeURIComponent(ids[0]),
    ])
      await fetch(base + p, { headers: { cookie: cookies[0] } }).then((r) => r.text());
  };
  await warm();
  const round = (label: string, think: number) =>
    loadRound(served, { label, cookies, seconds: SECONDS, think, next: requestFor });
  for (const think of THINKS) await round("concurrency, reads alone", think);

  // The same ingest alone and then beside the researchers: its rate drop.
  const tpl = buildTemplate("scale-live", Math.min(20_000, LIVE_N));
  const n = LIVE_N;
  const alone = await ingestThroughCli(url, scaleLines(tpl, n, "scored"), {
    every: n,
    label: "ingest alone",
    linesPerRollout: 2,
  });
  const tpl2 = buildTemplate("scale-live-2", Math.min(20_000, LIVE_N));
  const during = ingestThroughCli(url, scaleLines(tpl2, 10 * n, "scored"), {
    every: n,
    label: "ingest beside readers",
    linesPerRollout: 2,
  });
  const started = performance.now();
  await round("concurrency, with an ingest running", THINKS.at(-1)!);
  const readersSeconds = (performance.now() - started) / 1000;
  const d = await during;
  // The rollouts ingested while the readers ran: interpolate on the ingest's marks.
  const within = d.marks.filter((m) => m.seconds <= readersSeconds).at(-1) ?? d.marks[0];
  say(
    `ingest rate alone ${fmt(n / alone.seconds)}/s; beside ${USERS} researchers ${fmt(within.rollouts / within.seconds)}/s over its first ${fmt(within.rollouts)} (${load()}); after they stopped ${fmt((d.marks.at(-1)!.rollouts - within.rollouts) / (d.seconds - within.seconds))}/s`,
  );
  await served.stop();
  await c.end();
}

// ---------------------------------------------------------------- archive ---------------------------------------

async function phaseArchive() {
  if (!(await exists(DB.reads)))
    throw new Error("--phase archive needs the reads database: run --phase reads --keep first");
  const url = urlOf(DB.reads);
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const { archiveRun } = await import("@/lib/runs/archive.ts");
  const target = `${BIG}-archive`;
  await c.query("drop table if exists src");
  await c.query(
    "create temp table src as select * from ledger where run_id = $1 and is_current and position('#' in trajectory_id) = 0",
    [BIG],
  );
  // Copied through fill() with the big run as the source; the big run keeps its audit batch, this copy has none.
  await fill(c, target, ARCHIVE_N);
  await c.query("vacuum analyze ledger");
  await checkpoint(url);
  // What PostgreSQL alone spends turning the run's JSON columns into text (the export reads every one as text):
  // summed in the server, nothing sent.
  const ts = performance.now();
  await c.query(
    `select sum(octet_length(l.guardrails::text) + octet_length(l.reasons::text) + coalesce(octet_length(l.claims::text), 0))
       from ledger l where l.run_id = $1 and l.is_current`,
    [target],
  );
  const ledgerText = (performance.now() - ts) / 1000;
  const tr = performance.now();
  const text = await c.query<{ bytes: string }>(
    `select sum(octet_length(r.steps::text) + octet_length(r.sandbox::text) + coalesce(octet_length(r.claims::text), 0))::text as bytes
       from rollouts r where r.run_id = $1`,
    [target],
  );
  const rolloutText = (performance.now() - tr) / 1000;
  say(
    `the run's JSON as text in the server alone (nothing sent): ledger ${ledgerText.toFixed(1)} s, rollouts ${rolloutText.toFixed(1)} s (${mb(Number(text.rows[0].bytes))} MB of rollout JSON) (${load()})`,
  );
  const pool = new pg.Pool({ connectionString: url, max: 3 });
  const out = path.join(os.tmpdir(), `verity-scale-archive-${process.pid}.ndjson`);
  const t = performance.now();
  // CPU seconds of both sides, which do not swing with the machine's load as the wall clock does: the least time any
  // spreading of this work over the machine's cores could take is their sum over the cores.
  const server = watchBackendCpu(adminUrl, DB.reads);
  const node0 = process.cpuUsage();
  const a = await archiveRun(pool, target, out);
  const total = (performance.now() - t) / 1000;
  const nodeUse = process.cpuUsage(node0);
  const nodeCpu = (nodeUse.user + nodeUse.system) / 1e6;
  const serverCpu = await server.stop();
  const cores = os.availableParallelism();
  say(
    `\narchive of ${fmt(a.entries)} entries + ${fmt(a.rollouts)} rollouts: ${total.toFixed(1)} s in all — export ${(a.exportMs / 1000).toFixed(1)} s (${mb(a.bytes)} MB NDJSON; the ledger ${(a.ledgerExportMs / 1000).toFixed(1)} s, the rollouts ${((a.exportMs - a.ledgerExportMs) / 1000).toFixed(1)} s), detach + drop ${(a.dropMs / 1000).toFixed(2)} s; target ≤ 10 s: ${total <= 10 ? "met" : "**missed**"} (${load()})`,
  );
  if (serverCpu === null) say("CPU: the server's backends could not be read from /proc");
  else {
    const floor = (nodeCpu + serverCpu) / cores;
    say(
      `CPU: this process ${nodeCpu.toFixed(1)} s (user ${(nodeUse.user / 1e6).toFixed(1)}, system ${(nodeUse.system / 1e6).toFixed(1)}), PostgreSQL's backends ${serverCpu.toFixed(1)} s — ${(nodeCpu + serverCpu).toFixed(1)} CPU-seconds: spread perfectly over ${cores} cores, this work takes at least ${floor.toFixed(1)} s${total > 10 ? (floor > 10 ? `; 10 s would need ${((nodeCpu + serverCpu) / 10).toFixed(1)} cores at this cost, or the archive at ${((10 / floor) * 100).toFixed(0)}% of its CPU a byte on these ${cores}` : `; the rest of the ${total.toFixed(1)} s is one side waiting for the other (${(((total - floor) / total) * 100).toFixed(0)}%)`) : ""}`,
    );
  }
  fs.rmSync(out, { force: true });
  // The disk's part, whatever builds the lines: a file of the archive's size written from memory and synced.
  const disk = writeAndSync(out, a.bytes);
  say(
    `the disk alone: ${mb(a.bytes)} MB written from memory and synced in ${disk.toFixed(1)} s (${(a.bytes / 1e6 / disk).toFixed(0)} MB/s)${disk > 10 ? ": no archive of this size can be written on this disk in 10 s" : ""} (${load()})`,
  );
  await pool.end();
  await c.end();
}

/** Seconds to write `bytes` to `file` (8 MB at a time, not all zeros) and sync it; the file is removed after. */
function writeAndSync(file: string, bytes: number): number {
  const chunk = Buffer.alloc(8 << 20);
  for (let i = 0; i < chunk.length; i += 4) chunk.writeUInt32LE((i * 2654435761) >>> 0, i);
  const t = performance.now();
  const fd = fs.openSync(file, "wx");
  try {
    for (let left = bytes; left > 0; left -= chunk.length) fs.writeSync(fd, chunk, 0, Math.min(left, chunk.length));
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  const seconds = (performance.now() - t) / 1000;
  fs.rmSync(file, { force: true });
  return seconds;
}

// ---------------------------------------------------------------- grow ------------------------------------------

type ServerCounters = { wal: string; fpi: number; read: number; hit: number; checkpoints: number; written: number };

/** The server's cumulative counters an ingest moves: WAL position, this database's block reads and hits (blocks
 * found in, or read into, the shared buffers), checkpoints and the buffers they wrote. */
async function counters(c: pg.Client): Promise<ServerCounters> {
  const db = (
    await c.query(
      "select pg_current_wal_lsn()::text as wal, blks_read, blks_hit from pg_stat_database where datname = current_database()",
    )
  ).rows[0];
  // PostgreSQL 17 moved the checkpoints' counters from pg_stat_bgwriter to pg_stat_checkpointer
  const cp = await c
    .query("select num_timed + num_requested as n, buffers_written as w from pg_stat_checkpointer")
    .catch(() =>
      c.query("select checkpoints_timed + checkpoints_req as n, buffers_checkpoint as w from pg_stat_bgwriter"),
    );
  // full-page images: the first change to a page after a checkpoint writes the whole page to the WAL
  const fpi = await c.query("select wal_fpi from pg_stat_wal").catch(() => ({ rows: [{ wal_fpi: NaN }] }));
  return {
    wal: db.wal,
    fpi: Number(fpi.rows[0].wal_fpi),
    read: Number(db.blks_read),
    hit: Number(db.blks_hit),
    checkpoints: Number(cp.rows[0].n),
    written: Number(cp.rows[0].w),
  };
}

async function phaseGrow() {
  if (!(await exists(DB.reads)))
    throw new Error("--phase grow needs the reads database: run --phase reads --keep first");
  const url = urlOf(DB.reads);
  await migrate(url);
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const buffers = (await c.query("show shared_buffers")).rows[0].shared_buffers;
  const runs = Number((await c.query("select count(*) from runs where id like 'scale-grow-%'")).rows[0].count);
  const fresh = `scale-grow-${String(runs + 1).padStart(2, "0")}`;
  const grown = Number(
    (await c.query("select count(*) from ledger where run_id = $1 and is_current", [BIG])).rows[0].count,
  );
  say(
    `
## grow: ${fmt(GROW_N)} rollouts with their score records into a new run and into ${BIG} (${fmt(grown)} current entries); shared_buffers ${buffers} (${load()})`,
  );
  const t = performance.now();
  const tpl = {
    fresh: buildTemplate(fresh, Number(values.template)),
    big: buildTemplate(BIG, Number(values.template)),
  };
  say(`templates built in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  // Copies 1, 2, … of the template (ids `…/cN`): in the big run, no id meets an entry it already holds, whose ids
  // are the template's own (copy 0) and the reads' copies (`…#tag`); the cases go first, as in copy 0.
  const nBig = Number(
    (await c.query("select count(*) from ledger where run_id = $1 and trajectory_id like '%/c%'", [BIG])).rows[0].count,
  );
  const n = tpl.big.entries.length;
  const lines = (x: Template, from: number) =>
    (function* () {
      yield* x.cases;
      yield* scaleLines(x, from + GROW_N, "scored", from);
    })();
  say(`
| ingest into | rollouts | s | rollouts/s | vs the new run | WAL kB per rollout | full-page images per rollout | blocks read into the buffers per rollout | buffer hits per rollout | checkpoints | buffers they wrote | load |`);
  say(`|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|`);
  let first = 0;
  for (const [label, run, x, from] of [
    [`a new run (${fresh})`, fresh, tpl.fresh, n],
    [`${BIG} at ${fmt(grown)} entries`, BIG, tpl.big, n * (1 + Math.ceil(nBig / n))],
  ] as const) {
    // The checkpointer reports its counters a moment after a checkpoint ends: wait for this one to be counted, so
    // that it is not taken for one during the ingest.
    const done = (await counters(c)).checkpoints;
    await c.query("checkpoint");
    let before = await counters(c);
    for (let i = 0; i < 50 && before.checkpoints === done; i++) {
      await new Promise((r) => setTimeout(r, 100));
      before = await counters(c);
    }
    const r = await ingestThroughCli(url, lines(x, from), { label: `grow ${run}`, linesPerRollout: 2, every: GROW_N });
    const after = await counters(c);
    const wal = Number(
      (await c.query("select pg_wal_lsn_diff($1::pg_lsn, $2::pg_lsn) as d", [after.wal, before.wal])).rows[0].d,
    );
    const rate = GROW_N / r.seconds;
    first ||= rate;
    say(
      `| ${label} | ${fmt(GROW_N)} | ${r.seconds.toFixed(1)} | ${fmt(rate)} | ${(rate / first).toFixed(2)}× | ${(wal / 1024 / GROW_N).toFixed(1)} | ${((after.fpi - before.fpi) / GROW_N).toFixed(2)} | ${((after.read - before.read) / GROW_N).toFixed(2)} | ${((after.hit - before.hit) / GROW_N).toFixed(0)} | ${after.checkpoints - before.checkpoints} | ${fmt(after.written - before.written)} | ${load()} |`,
    );
  }
  await c.end();
}

// ---------------------------------------------------------------- main ------------------------------------------

/** One run-scoped read of the big run as the console's loaders make it, on whichever database is bound. */
type CitusRead = { name: string; n: number; read: (i: number) => Promise<unknown> };

/** The reads compared on one node and on the cluster: each run-scoped page's, and the runs list over every run. */
async function citusReads(c: pg.Client): Promise<CitusRead[]> {
  const { browseLedger, countLedger } = await import("@/lib/ledger/browse.ts");
  const { browseParamsSchema } = await import("@/lib/ledger/browse-schema.ts");
  const { loadGroupPage, loadTrajectoryPage } = await import("@/lib/ledger/loaders.ts");
  const { loadRunPage } = await import("@/lib/runs/loaders.ts");
  const { parseChartQuery } = await import("@/lib/monitors/schema.ts");
  const { computeClusterReport } = await import("@/lib/clusters/loaders.ts");
  const { loadAgreementItems } = await import("@/lib/agreement/data.ts");
  const { buildAgreementReport } = await import("@/lib/agreement/report.ts");
  const { exportFilterSchema, exportLedgerChunks } = await import("@/lib/ledger/export.ts");
  const { listRunSummaries } = await import("@/lib/runs/data.ts");
  const { db, poolOf } = await import("@/lib/db/client.ts");
  const picks = (
    await c.query<{ trajectory_id: string; group_id: string; step: number }>(
      `select trajectory_id, group_id, step from ledger where run_id = $1 and is_current and group_id is not null
        order by hashint8(id) limit 40`,
      [BIG],
    )
  ).rows;
  const plain = browseParamsSchema.parse({ run: BIG });
  const capped = browseParamsSchema.parse({ run: BIG, capped: "yes", sort: "reward", dir: "asc" });
  const agreement = { run: BIG, tolerance: 0.1 };
  return [
    { name: "browser first page", n: ITER, read: () => browseLedger(plain, 100) },
    { name: "browser count", n: ITER, read: () => countLedger(plain) },
    { name: "browser first page: capped, by reward", n: ITER, read: () => browseLedger(capped, 100) },
    { name: "browser count: capped", n: ITER, read: () => countLedger(capped) },
    {
      name: "rollout detail (from the run's browser)",
      n: picks.length - 2,
      read: (i) => loadTrajectoryPage(picks[i].trajectory_id, { run: BIG }),
    },
    {
      name: "group",
      n: picks.length - 2,
      read: (i) => loadGroupPage({ runId: BIG, groupId: picks[i].group_id, step: picks[i].step }),
    },
    { name: "run page", n: ITER, read: () => loadRunPage(BIG, parseChartQuery({}).query, "admin") },
    { name: "clusters report, uncached", n: 3, read: () => computeClusterReport({ runId: BIG, threshold: 0.5 }) },
    {
      name: "agreement report of the run, uncached",
      n: 3,
      read: async () => buildAgreementReport(await loadAgreementItems(agreement, db(), { lean: true }), agreement),
    },
    {
      name: "export, first 50,000 records",
      n: 3,
      read: async () => {
        let records = 0;
        const filter = exportFilterSchema.parse({ run: BIG, cases: false });
        for await (const chunk of exportLedgerChunks(poolOf(db())!, filter))
          if ((records += chunk.records) >= 50_000) break;
      },
    },
    { name: `runs list (every run: ${RUNS})`, n: ITER, read: () => listRunSummaries(db()) },
  ];
}

/** `n` rollouts with their score records into each of two new runs at once, through `verity ingest`. */
async function twoIngests(url: string, label: string, n: number): Promise<number> {
  const runs = [`${label}-a`, `${label}-b`];
  const templates = runs.map((r) => buildTemplate(r, Math.min(n, 20_000)));
  // The two runs made first: on one node a run's first ingest makes its partitions, and attaching one while the
  // other ingest writes the ledger can deadlock (ATTACH PARTITION against the COPY into the parent's partitions).
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query("insert into runs (id) select unnest($1::text[]) on conflict do nothing", [runs]);
  await c.end();
  const t0 = performance.now();
  await Promise.all(
    templates.map((tpl, i) =>
      ingestThroughCli(url, scaleLines(tpl, n, "scored"), { label: `${label}: ${runs[i]}`, linesPerRollout: 2 }),
    ),
  );
  return (performance.now() - t0) / 1000;
}

/**
 * bench/scale.ts --citus: one node against the cluster, on one Citus cluster (both databases' servers are
 * PostgreSQL 15 with the same settings; "one node" is a database never distributed, so all of it is on the
 * coordinator).
 */
async function phaseCitus() {
  const { startCitusCluster, createCitusDatabase, databaseUrl } = await import("@/lib/testing/citus-cluster.ts");
  const { distributeDatabase } = await import("@/lib/db/distribute.ts");
  const { bindDatabase } = await import("@/lib/db/client.ts");
  const size = SIZES[0];
  const t0 = performance.now();
  const keepAt = values["citus-keep"];
  const cluster = await startCitusCluster(
    "verity_bench_cluster",
    ["shared_buffers = 1GB", "max_wal_size = 4GB", "max_connections = 200"],
    keepAt,
  );
  try {
    const one = "verity_bench_one";
    const urls = {
      "one node": cluster.resumed
        ? databaseUrl(cluster.adminUrls[0], one)
        : await createCitusDatabase(cluster.adminUrls, one),
      cluster: cluster.url,
    };
    say(
      `\n## Citus: a coordinator and ${cluster.workerUrls.length} workers ${cluster.resumed ? `resumed from ${keepAt}` : "up"} in ${((performance.now() - t0) / 1000).toFixed(1)} s (${load()})`,
    );
    // Both databases built at once: the three servers and this process share the machine's cores either way.
    if (!cluster.resumed)
      await Promise.all(
        Object.entries(urls).map(async ([label, url]) => {
          const t = performance.now();
          await migrate(url);
          const c = new pg.Client({ connectionString: url });
          await c.connect();
          await buildReads(c, url, size);
          await c.end();
          say(
            `${label}: built ${fmt(size)} entries in ${BIG} and ${smallRuns.length} runs of ${fmt(SMALL)} in ${((performance.now() - t) / 1000).toFixed(1)} s (${load()})`,
          );
          if (label === "cluster") {
            const d = performance.now();
            await distributeDatabase(url);
            say(`cluster: distributed in ${((performance.now() - d) / 1000).toFixed(1)} s (${load()})`);
          }
        }),
      );
    // Reads in turns, each database bound in its turn, so that the machine's load weighs on both alike.
    const times = new Map<string, { "one node": number[]; cluster: number[] }>();
    for (let round = 0; round < Number(values["citus-rounds"]); round++)
      for (const [label, url] of Object.entries(urls) as [keyof typeof urls, string][]) {
        await bindDatabase(url);
        const c = new pg.Client({ connectionString: url });
        await c.connect();
        const reads = await citusReads(c);
        await c.end();
        for (const r of reads) {
          const t = times.get(r.name) ?? { "one node": [], cluster: [] };
          t[label].push(...(await time(r.n, r.read)));
          times.set(r.name, t);
        }
        say(`  round ${round + 1}, ${label}: done (${load()})`);
      }
    say(
      `\n${fmt(size)} current entries in ${BIG}, ${smallRuns.length} other runs of ${fmt(SMALL)}; ${os.cpus().length} CPUs shared by the three servers and this process; ${load()}`,
    );
    say(
      `\n| read | one node p50 ms | one node p95 ms | cluster p50 ms | cluster p95 ms | ratio p50 | ≤ 1.5× |\n|---|---:|---:|---:|---:|---:|---|`,
    );
    for (const [name, t] of times) {
      const ratio = pct(t.cluster, 0.5) / pct(t["one node"], 0.5);
      say(
        `| ${name} | ${ms(pct(t["one node"], 0.5))} | ${ms(pct(t["one node"], 0.95))} | ${ms(pct(t.cluster, 0.5))} | ${ms(pct(t.cluster, 0.95))} | ${ratio.toFixed(2)} | ${ratio <= 1.5 ? "yes" : "**no**"} |`,
      );
    }
    const n = Number(values["citus-ingest-n"]);
    if (n > 0) {
      const seconds: Record<string, number> = {};
      for (const [label, url] of Object.entries(urls)) {
        // A kept cluster's databases may hold an earlier run's two: these are new runs each time.
        const tag = `${label === "cluster" ? "citus-two" : "one-two"}-${Date.now().toString(36)}`;
        seconds[label] = await twoIngests(url, tag, n);
        say(
          `${label}: two runs of ${fmt(n)} at once in ${seconds[label].toFixed(1)} s = ${fmt((2 * n) / seconds[label])} rollouts/s (${load()})`,
        );
      }
      say(
        `ingest of two runs at once, cluster against one node: ${(seconds["one node"] / seconds.cluster).toFixed(2)}× the rate`,
      );
    }
  } finally {
    const { db } = await import("@/lib/db/client.ts");
    await db()
      .$disconnect()
      .catch(() => undefined);
    await cluster.stop();
    if (keepAt) say(`cluster stopped; its data kept in ${keepAt}`);
  }
}

async function main() {
  if (values.citus) return phaseCitus();
  const database = await ensureDatabase("postgres");
  adminUrl = database.adminUrl;
  say(
    `bench/scale: phases ${[...PHASES].join(", ")}; ${os.cpus()[0].model}, ${os.cpus().length} CPUs, node ${process.version}; free disk ${((fs.statfsSync(".").bavail * fs.statfsSync(".").bsize) / 1024 ** 3).toFixed(0)} GB; ${load()}`,
  );
  if (PHASES.has("ingest")) await phaseIngest();
  if (PHASES.has("reads")) await phaseReads();
  if (PHASES.has("concurrency")) await phaseConcurrency();
  if (PHASES.has("archive")) await phaseArchive();
  if (PHASES.has("grow")) await phaseGrow();
  say(`\nend: ${load()}`);
  if (!values.keep)
    for (const name of Object.values(DB)) await adminQuery(`drop database if exists "${name}" with (force)`);
  if (PHASES.has("reads") || PHASES.has("concurrency")) {
    const { db } = await import("@/lib/db/client.ts");
    await db()
      .$disconnect()
      .catch(() => undefined);
  }
  await database.stop();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
