// Clustering benchmark: `npx tsx bench/clusters.ts [--n 1000000] [--seed-rollouts 50000] [--runs 7] [--keep]`
// or, on a database built before, `npx tsx bench/clusters.ts --db URL --run RUN`.
//
// Data: one run of the demo generator's reward-hacking variant (hand-offs creep from 8% to 41%) of --seed-rollouts
// rollouts, ingested through the real path (verifier, narrow tables, rollups), then copied with INSERT … SELECT
// generate_series until it holds --n rollouts. Copy c of a rollout keeps its ticket, its behaviour and its score and
// lands at step + c·(stride / copies), between the logged steps, so the run keeps the generator's trends over the
// same 30,000 training steps at a finer step grid. (Ingesting 1M rollouts one by one takes ~6 min here.)
//
// Measures (medians of --runs after one warm-up): the whole clustering report and each of its three queries; the
// same queries with the 005 indexes hidden (DROP INDEX inside a rolled-back transaction); examples + reply phrasings
// of every level-1 cluster and the blind spot; the backlog export of the largest cluster. Wall-clock, plus the CPU
// time the PostgreSQL server spent (from /proc, when the server is local) — the steadier figure on a shared machine.
// `--ingest-ab N` instead ingests N generated rollouts into fresh databases with and without the 005 indexes,
// alternating (A B A B), and prints what the indexes cost the ingest path.
import fs from "node:fs";
import os from "node:os";
import { parseArgs } from "node:util";
import pg from "pg";
import { createClient } from "@/lib/db/client.ts";
import { createDatabaseIfMissing, ensureDatabase } from "@/lib/db/embedded.ts";
import { migrate } from "@/lib/db/migrate.ts";
import { binSteps } from "@/lib/clusters/bins.ts";
import { blindSpotQuery, levelOneQuery, readWindowSteps, signatureSampleQuery } from "@/lib/clusters/data.ts";
import { clusterBacklog } from "@/lib/clusters/export.ts";
import { parseKey } from "@/lib/clusters/keys.ts";
import { clusterReport, computeClusterReport, loadClusterExtras } from "@/lib/clusters/loaders.ts";
import { describeDemoRun, demoRunValues, strideOf } from "@/lib/demo/generate.ts";
import { describeRun } from "@/lib/demo/seed.ts";
import { ingestValues } from "@/lib/ingest/ingest.ts";
import type { Prisma } from "@/lib/generated/prisma/client.ts";
import { afterWrite } from "@/lib/server/after-write.ts";
import { recountRollups } from "@/bench/lib/bench-db.ts";

const { values } = parseArgs({
  options: {
    n: { type: "string", default: "1000000" },
    "seed-rollouts": { type: "string", default: "50000" },
    runs: { type: "string", default: "7" },
    db: { type: "string" },
    run: { type: "string", default: "bench-clusters" },
    keep: { type: "boolean" },
    "ingest-ab": { type: "string" },
  },
});
const say = (s: string) => process.stdout.write(s + "\n");
const RUN = values.run!;
const RUNS = Number(values.runs);
const INDEXES = [
  "ledger_clusters_idx",
  "ledger_handoffs_idx",
  "ledger_reasons_signature_idx",
  "rollouts_no_writes_idx",
];

function withDb(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** CPU seconds of the PostgreSQL server: live children plus the exited ones the postmaster has reaped. */
async function serverCpu(c: pg.Client): Promise<() => number | null> {
  try {
    const pid = (await c.query<{ pid: number }>("select pg_backend_pid() as pid")).rows[0].pid;
    const stat = (p: number | string) =>
      fs
        .readFileSync(`/proc/${p}/stat`, "utf8")
        .replace(/^.*\) /, "")
        .split(" ");
    const postmaster = Number(stat(pid)[1]);
    const tick = 100;
    return () => {
      try {
        const pm = stat(postmaster);
        let t = Number(pm[13]) + Number(pm[14]);
        for (const d of fs.readdirSync("/proc")) {
          if (!/^\d+$/.test(d)) continue;
          try {
            const s = stat(d);
            if (Number(s[1]) === postmaster) t += Number(s[11]) + Number(s[12]);
          } catch {
            /* gone */
          }
        }
        return t / tick;
      } catch {
        return null;
      }
    };
  } catch {
    return () => null;
  }
}

type Timing = { wall: number[]; cpu: number[] };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (s: number) => (s < 1 ? `${Math.round(s * 1000)} ms` : `${s.toFixed(2)} s`);

async function time(cpu: () => number | null, fn: () => Promise<unknown>, runs = RUNS): Promise<Timing> {
  await fn(); // warm-up: caches and plans
  const t: Timing = { wall: [], cpu: [] };
  for (let i = 0; i < runs; i++) {
    const c0 = cpu();
    const w0 = performance.now();
    await fn();
    t.wall.push((performance.now() - w0) / 1000);
    const c1 = cpu();
    if (c0 !== null && c1 !== null) t.cpu.push(c1 - c0);
  }
  return t;
}

/** The demo generator's hacking run of about `n` rollouts (100 steps of K = 4 over n / 400 tickets). */
const seedSpec = (n: number) => ({
  runId: RUN,
  variant: "hacking" as const,
  seed: "7",
  k: 4,
  steps: 100,
  tickets: Math.max(1, Math.round(n / 400)),
});

async function build(admin: string): Promise<string> {
  const name = `verity_bench_clusters_${Date.now().toString(36)}`;
  await createDatabaseIfMissing(admin, name);
  const url = withDb(admin, name);
  await migrate(url);
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const spec = seedSpec(Number(values["seed-rollouts"]));
  await describeRun(pool, RUN, describeDemoRun(spec));
  let t = performance.now();
  const s = await ingestValues(demoRunValues(spec), { pool, batchLines: 4000, after: afterWrite(pool) });
  const secs = (performance.now() - t) / 1000;
  const seeded = s.by_kind.rollout.accepted;
  say(
    `seed: ${seeded.toLocaleString("en-US")} rollouts through the ingest path (verifier, 005 indexes) in ${secs.toFixed(1)} s (${Math.round(seeded / secs).toLocaleString("en-US")}/s)`,
  );
  const copies = Math.max(1, Math.ceil(Number(values.n) / seeded));
  const delta = Math.floor(strideOf(spec) / copies);
  if (delta < 1) throw new Error(`too many copies (${copies}) for the step stride ${strideOf(spec)}`);
  t = performance.now();
  const c = await pool.connect();
  try {
    const [{ r, l }] = (await c.query("select (select max(id) from rollouts) as r, (select max(id) from ledger) as l"))
      .rows;
    const params = [RUN, copies - 1, delta, r, l];
    await c.query(
      `insert into rollouts (id, trajectory_id, run_id, step, group_id, sample_index, ticket_id, steps, final_reply, sandbox, registry_id, claims, tool_steps, content_hash)
       select x.id + c * $4, x.trajectory_id || '/c' || c, x.run_id, x.step + c * $3, x.group_id || '/c' || c, x.sample_index, x.ticket_id, x.steps,
              x.final_reply, x.sandbox, x.registry_id, x.claims, x.tool_steps, x.content_hash
         from rollouts x cross join generate_series(1, $2::int) c where x.run_id = $1`,
      [RUN, copies - 1, delta, r],
    );
    await c.query(
      `insert into ledger (id, trajectory_id, rollout_id, run_id, step, ticket_id, group_id, category, status, source, verifier_version, config_hash,
                           claims_source, raw_reward, reward, capped, outcome, policy, evidence, efficiency, communication, deciding_guardrail,
                           guardrail_mask, guardrails, reasons, claims, handoff, tool_steps, is_current, content_hash)
       select x.id + c * $5, x.trajectory_id || '/c' || c, x.rollout_id + c * $4, x.run_id, x.step + c * $3, x.ticket_id, x.group_id || '/c' || c, x.category,
              x.status, x.source, x.verifier_version, x.config_hash, x.claims_source, x.raw_reward, x.reward, x.capped, x.outcome, x.policy, x.evidence,
              x.efficiency, x.communication, x.deciding_guardrail, x.guardrail_mask, x.guardrails, x.reasons, x.claims, x.handoff, x.tool_steps,
              x.is_current, x.content_hash
         from ledger x cross join generate_series(1, $2::int) c where x.run_id = $1`,
      params,
    );
    await c.query(
      `insert into ledger_guardrails (ledger_id, run_id, step, code, cap, deciding)
       select g.ledger_id + c * $4, g.run_id, g.step + c * $3, g.code, g.cap, g.deciding
         from ledger_guardrails g cross join generate_series(1, $2::int) c where g.run_id = $1`,
      [RUN, copies - 1, delta, l],
    );
    await c.query(
      `insert into ledger_reasons (ledger_id, ord, run_id, step, dimension, guardrail, code, tool, field)
       select x.ledger_id + c * $4, x.ord, x.run_id, x.step + c * $3, x.dimension, x.guardrail, x.code, x.tool, x.field
         from ledger_reasons x cross join generate_series(1, $2::int) c where x.run_id = $1`,
      [RUN, copies - 1, delta, l],
    );
    await c.query(
      "select setval('rollouts_id_seq', (select max(id) from rollouts)), setval('ledger_id_seq', (select max(id) from ledger))",
    );
    // The copies bypass ingest, so their per-step rollups (the denominators of every share) are recounted.
    await recountRollups(c, RUN);
    // What autovacuum does after a bulk load; index-only scans need the visibility map.
    for (const table of ["rollouts", "ledger", "ledger_guardrails", "ledger_reasons", "step_rollups"])
      await c.query(`vacuum analyze ${table}`);
  } finally {
    c.release();
    await pool.end();
  }
  say(
    `copies: ${copies - 1} × (steps + c·${delta}) with INSERT … SELECT generate_series, rollups recounted, VACUUM ANALYZE: ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );
  return url;
}

/** Runs a query with the 005 indexes dropped inside a transaction that is rolled back (they are never really gone). */
async function withoutIndexes(c: pg.Client, q: Prisma.Sql): Promise<void> {
  await c.query("begin");
  try {
    // Parallel workers stay allowed here: without the indexes they are what the planner would lean on.
    await c.query("set local work_mem = '32MB'");
    for (const i of INDEXES) await c.query(`drop index ${i}`);
    await c.query(q.text, q.values);
  } finally {
    await c.query("rollback");
  }
}

async function plan(c: pg.Client, q: Prisma.Sql): Promise<string> {
  await c.query("begin");
  try {
    await c.query("set local work_mem = '32MB'");
    await c.query("set local max_parallel_workers_per_gather = 0");
    const r = await c.query(`explain (format json) ${q.text}`, q.values);
    const names = new Set<string>();
    const walk = (n: Record<string, unknown>) => {
      if (n["Index Name"]) names.add(`${n["Node Type"]} ${n["Index Name"]}`);
      if (n["Node Type"] === "Seq Scan") names.add(`Seq Scan ${n["Relation Name"]}`);
      for (const k of (n.Plans as Record<string, unknown>[]) ?? []) walk(k);
    };
    walk(r.rows[0]["QUERY PLAN"][0].Plan);
    return [...names].join("; ");
  } finally {
    await c.query("rollback");
  }
}

/** Ingest rate with and without the 005 indexes, alternating so that a change of machine load hits both. */
async function ingestAb(admin: string, n: number): Promise<void> {
  const spec = seedSpec(n);
  const rates: Record<string, number[]> = { with: [], without: [] };
  for (const round of [0, 1]) {
    for (const variant of round === 0 ? ["with", "without"] : ["without", "with"]) {
      const name = `verity_bench_ingest_ab_${Date.now().toString(36)}`;
      await createDatabaseIfMissing(admin, name);
      const url = withDb(admin, name);
      await migrate(url);
      const pool = new pg.Pool({ connectionString: url, max: 4 });
      try {
        if (variant === "without") for (const i of INDEXES) await pool.query(`drop index ${i}`);
        await describeRun(pool, RUN, describeDemoRun(spec));
        const t = performance.now();
        const s = await ingestValues(demoRunValues(spec), { pool, batchLines: 4000, after: afterWrite(pool) });
        rates[variant].push(s.by_kind.rollout.accepted / ((performance.now() - t) / 1000));
      } finally {
        await pool.end();
        const c = new pg.Client({ connectionString: admin });
        await c.connect();
        await c.query(`drop database if exists "${name}" with (force)`);
        await c.end();
      }
    }
  }
  const med = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  say(
    `ingest of ${n.toLocaleString("en-US")} generated rollouts (verifier on), mean of 2 runs each, load average ${os.loadavg()[0].toFixed(1)}:`,
  );
  say(
    `  without the 005 indexes ${Math.round(med(rates.without)).toLocaleString("en-US")}/s (${rates.without.map(Math.round).join(", ")})`,
  );
  say(
    `  with the 005 indexes    ${Math.round(med(rates.with)).toLocaleString("en-US")}/s (${rates.with.map(Math.round).join(", ")})`,
  );
  say(`  ratio ${(med(rates.with) / med(rates.without)).toFixed(2)}`);
}

async function main() {
  if (values["ingest-ab"]) {
    const database = await ensureDatabase("postgres");
    try {
      await ingestAb(database.adminUrl, Number(values["ingest-ab"]));
    } finally {
      await database.stop();
    }
    return;
  }
  const database = values.db ? null : await ensureDatabase("postgres");
  const url = values.db ?? (await build(database!.adminUrl));
  const client = createClient(url);
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const cpu = await serverCpu(c);
  try {
    const w = { runId: RUN, threshold: 0.5 };
    const { edges } = binSteps(await readWindowSteps(w, client));
    const report = await computeClusterReport(w, client);
    const sizes = (
      await c.query(
        "select pg_size_pretty(pg_relation_size('ledger')) as ledger, pg_size_pretty(pg_relation_size('ledger_clusters_idx')) as idx",
      )
    ).rows[0];
    say(
      `\nrun ${RUN}: ${report.rollouts.toLocaleString("en-US")} rollouts (ledger heap ${sizes.ledger}, ledger_clusters_idx ${sizes.idx}), ${report.population.toLocaleString("en-US")} below 0.5, ${report.clusters.length} level-1 clusters, blind spot ${report.blindSpot.size.toLocaleString("en-US")}`,
    );
    say(
      `machine: ${os.cpus()[0].model} (${os.cpus().length} logical CPUs), load average ${os
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(" ")}\n`,
    );

    const queries: [string, Prisma.Sql][] = [
      ["level 1 + co-fired (exact)", levelOneQuery(w, edges)],
      ["levels 2–3 (reason sample)", signatureSampleQuery(w, edges)],
      ["blind spot (exact)", blindSpotQuery(w, edges)],
    ];
    const rows: string[] = [
      "| what | wall (median) | wall (min) | server CPU (median) | without the 005 indexes | plan |",
      "|---|---:|---:|---:|---:|---|",
    ];
    const total = await time(cpu, () => computeClusterReport(w, client));
    rows.push(
      `| **whole clustering report** (3 queries concurrently) | **${fmt(median(total.wall))}** | ${fmt(Math.min(...total.wall))} | ${total.cpu.length ? fmt(median(total.cpu)) : "n/a"} | | |`,
    );
    const again = await time(cpu, () => clusterReport(w, client));
    rows.push(
      `| the same report again, rollups unchanged (cache.ts: fingerprint query only) | ${fmt(median(again.wall))} | ${fmt(Math.min(...again.wall))} | ${again.cpu.length ? fmt(median(again.cpu)) : "n/a"} | | |`,
    );
    for (const [name, q] of queries) {
      const run = async () => {
        await c.query("begin");
        await c.query("set local work_mem = '32MB'");
        await c.query("set local max_parallel_workers_per_gather = 0");
        await c.query(q.text, q.values);
        await c.query("commit");
      };
      const t = await time(cpu, run);
      const base = await time(cpu, () => withoutIndexes(c, q), 1);
      rows.push(
        `| ${name} | ${fmt(median(t.wall))} | ${fmt(Math.min(...t.wall))} | ${t.cpu.length ? fmt(median(t.cpu)) : "n/a"} | ${fmt(base.wall[0])} | ${await plan(c, q)} |`,
      );
    }
    const keys = ["blind_spot:handoff_no_write", ...report.clusters.map((x) => x.key)];
    const extras = await time(cpu, () => loadClusterExtras(w, report, keys, { phrasings: true }, client), 3);
    rows.push(
      `| examples + phrasings of ${keys.length} clusters (≤ 2,000 replies each, MinHash) | ${fmt(median(extras.wall))} | ${fmt(Math.min(...extras.wall))} | ${extras.cpu.length ? fmt(median(extras.cpu)) : "n/a"} | | |`,
    );
    const biggest = report.clusters.reduce((a, b) => (b.size > a.size ? b : a));
    let lines = 0;
    const exp = await time(
      cpu,
      async () => {
        lines = 0;
        for await (const line of clusterBacklog(w, parseKey(biggest.key)!, client)) lines += line ? 1 : 0;
      },
      1,
    );
    rows.push(
      `| backlog export of ${biggest.key} (${biggest.size.toLocaleString("en-US")} rollouts, ${lines} lines) | ${fmt(exp.wall[0])} | | ${exp.cpu.length ? fmt(exp.cpu[0]) : "n/a"} | | |`,
    );
    for (const r of rows) say(r);
    say(
      `\ntarget: clustering ≤ 1 s at 1M rollouts — ${median(total.wall) <= 1 ? "met" : "NOT met"} (median ${fmt(median(total.wall))}, load average ${os.loadavg()[0].toFixed(1)})`,
    );
  } finally {
    await c.end();
    await client.$disconnect();
    if (!values.db && !values.keep) {
      const admin = new pg.Client({ connectionString: database!.adminUrl });
      await admin.connect();
      await admin.query(`drop database if exists "${new URL(url).pathname.slice(1)}" with (force)`);
      await admin.end();
    } else if (!values.db) say(`kept: ${url}`);
    await database?.stop();
  }
}

main().catch((err) => {
  process.stderr.write(`bench/clusters: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
});
