// Monitors benchmark: `npx tsx bench/monitors.ts [--iterations 40] [--keep]`.
// The run page's reads (charts, alarms, runs list, Monitors page, CSV) against runs of 1,000,000 rollouts each:
//   main    250 logged steps × 4,000 rollouts (K = 4), the reward-hacking curves, with a shadow audit of 2,500 reviews
//   other   250 × 4,000, the normal curves (the comparison overlay)
//   fine    10,000 logged steps × 100 rollouts (every step logged: bucketed to 400 points per chart)
// plus three small runs, so the tables hold more than the run being read. The rollups are written by the ingest
// path's own rollup code (RollupDelta + applyRollupDelta) from simulated rollouts, not by ingesting 3M rollouts
// (hours on this machine); the audited rollouts, their batch and items go through the real ingest and createBatch,
// and the reviews are inserted directly. Prints p50/p95 per query; target p95 ≤ 100 ms.
import { parseArgs } from "node:util";
import crypto from "node:crypto";
import os from "node:os";
import pg from "pg";
import { createBatch } from "@/lib/audit/mutations.ts";
import { createClient } from "@/lib/db/client.ts";
import { createDatabaseIfMissing, ensureDatabase } from "@/lib/db/embedded.ts";
import { migrate } from "@/lib/db/migrate.ts";
import { demoRunValues } from "@/lib/demo/generate.ts";
import { ingestValues } from "@/lib/ingest/ingest.ts";
import { listAlarmEvents } from "@/lib/monitors/data.ts";
import { evaluateRunAlarms, refreshAlarms } from "@/lib/monitors/evaluate.ts";
import { loadChartCsv, loadRunCharts } from "@/lib/monitors/loaders.ts";
import { CHARTS } from "@/lib/monitors/schema.ts";
import { chartTable } from "@/lib/monitors/series.ts";
import { listStepRollups } from "@/lib/rollups/data.ts";
import { getRunSummary, listRunIds, listRunSummaries } from "@/lib/runs/data.ts";
import { writeSimulatedRollups, type SimulatedRun } from "@/bench/lib/rollup-fixture.ts";
import { afterWrite } from "@/lib/server/after-write.ts";

const { values } = parseArgs({ options: { iterations: { type: "string", default: "40" }, keep: { type: "boolean" } } });
const ITER = Number(values.iterations);
const say = (s: string) => process.stdout.write(s + "\n");

const RUNS: SimulatedRun[] = [
  { runId: "bench-main", steps: 250, perStep: 4000, k: 4, stride: 120, variant: "hacking", seed: "b1" },
  { runId: "bench-other", steps: 250, perStep: 4000, k: 4, stride: 120, variant: "normal", seed: "b2" },
  { runId: "bench-fine", steps: 10_000, perStep: 100, k: 4, stride: 3, variant: "hacking", seed: "b3" },
  ...[1, 2, 3].map((i) => ({
    runId: `bench-small-${i}`,
    steps: 250,
    perStep: 200,
    k: 4,
    stride: 120,
    variant: "normal" as const,
    seed: `s${i}`,
  })),
];

function quantile(sorted: number[], q: number): number {
  const i = (sorted.length - 1) * q;
  const lo = Math.floor(i);
  return sorted[lo] + (sorted[Math.ceil(i)] - sorted[lo]) * (i - lo);
}

/**
 * Wall-clock p50/p95/max of `fn`, and the median CPU time this Node process spent in it (the steadier figure on a
 * shared machine: it leaves out waiting for Postgres and for other processes).
 */
/** The first measurement of a run (one trivial round trip): every later p95 is also printed as a multiple of it. */
let baselineP95: number | undefined;

async function measure(
  name: string,
  fn: () => Promise<unknown>,
  iterations = ITER,
): Promise<{ name: string; p50: number; p95: number; max: number }> {
  for (let i = 0; i < 3; i++) await fn();
  const times: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    await fn();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  const r = { name, p50: quantile(times, 0.5), p95: quantile(times, 0.95), max: times[times.length - 1] };
  baselineP95 ??= r.p95;
  say(
    `| ${name} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${(r.p95 / baselineP95).toFixed(1)}× | ${r.max.toFixed(1)} | ${quantile(cpu, 0.5).toFixed(1)} |`,
  );
  return r;
}

async function seedAudit(url: string, pool: pg.Pool, client: ReturnType<typeof createClient>): Promise<number> {
  // 10 tickets at every logged step of bench-main, one rollout each, through the real ingest path (2,500 ledger
  // entries; their rollups add to the simulated ones), all of them sampled.
  const s = await ingestValues(
    demoRunValues({
      runId: "bench-main",
      tickets: 10,
      steps: 250,
      k: 1,
      stride: 120,
      seed: "audit",
      variant: "hacking",
    }),
    { pool, batchLines: 2000, after: afterWrite(pool) },
  );
  if (!s.ok || s.rejected) throw new Error(`audit ingest: ${s.error ?? JSON.stringify(s.rejects[0])}`);
  const batch = await createBatch(
    {
      runId: "bench-main",
      stepFrom: 0,
      stepTo: 30_000,
      rate: 1,
      salt: "bench",
      pick: "all",
      overlapRate: 0,
      tolerance: 0.1,
    },
    { label: "bench" },
    client,
  );
  if (!batch.ok) throw new Error(batch.error);
  const user = await client.user.create({
    data: { email: `bench-${crypto.randomBytes(3).toString("hex")}@verity.local`, role: "annotator" },
  });
  // Reviews: ~88% agree (the human reward is the ledger's), the rest differ by 0.3; one in ten drops a claimed write.
  const r = await pool.query(
    `insert into reviews (item_id, reviewer_id, outcome, policy, evidence, efficiency, communication, guardrails, reward, claims, seconds_spent)
     select i.id, $1, 1, 1, 1, 1, 1, '{}',
            case when i.id % 8 = 0 then greatest(0, least(1, coalesce(l.reward, 0.5) - 0.3 * sign(coalesce(l.reward, 0.5) - 0.5))) else coalesce(l.reward, 0.5) end,
            case when i.id % 10 = 0 then jsonb_set(coalesce(l.claims, '{"claimed_writes":[],"mentioned":[],"forbidden_hits":[]}'), '{claimed_writes}', '[]')
                 else coalesce(l.claims, '{"claimed_writes":[],"mentioned":[],"forbidden_hits":[]}') end,
            60
       from audit_items i join ledger l on l.id = i.ledger_id where i.batch_id = $2`,
    [user.id, batch.batchId],
  );
  await pool.query("update audit_items set status = 'done', reviews_done = 1 where batch_id = $1", [batch.batchId]);
  void url;
  return r.rowCount ?? 0;
}

async function main() {
  const database = await ensureDatabase("postgres");
  const name = `verity_bench_monitors_${crypto.randomBytes(3).toString("hex")}`;
  await createDatabaseIfMissing(database.adminUrl, name);
  const u = new URL(database.adminUrl);
  u.pathname = `/${name}`;
  const url = u.toString();
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const client = createClient(url);
  try {
    await migrate(url);
    const started = Date.now();
    for (const run of RUNS) {
      await pool.query("insert into runs (id, description) values ($1, $2)", [
        run.runId,
        `${run.steps} steps × ${run.perStep} rollouts, ${run.variant}`,
      ]);
      const c = await pool.connect();
      try {
        const n = await writeSimulatedRollups(c, run);
        say(`rollups of ${run.runId}: ${n.toLocaleString("en-US")} simulated rollouts`);
      } finally {
        c.release();
      }
    }
    const reviews = await seedAudit(url, pool, client);
    await pool.query("vacuum analyze");
    const sizes = await pool.query<{ t: string; n: string }>(
      "select 'step_rollups' as t, count(*)::text as n from step_rollups union all select 'step_guardrail_rollups', count(*)::text from step_guardrail_rollups union all select 'group_rollups', count(*)::text from group_rollups union all select 'ledger', count(*)::text from ledger",
    );
    say(
      `setup ${((Date.now() - started) / 1000).toFixed(0)} s; ${reviews} reviews; ${sizes.rows.map((r) => `${r.t} ${Number(r.n).toLocaleString("en-US")}`).join(", ")}`,
    );

    const main = await client.stepRollup.aggregate({ where: { runId: "bench-main" }, _sum: { rollouts: true } });
    say(`bench-main rollouts in the rollups: ${main._sum.rollouts?.toLocaleString("en-US")}`);
    const q = {} as const;
    const zoom = { from: 12_000, to: 18_000 };
    await evaluateRunAlarms("bench-main", { client, webhookUrl: null });

    say(
      "\n| query (bench-main: 250 steps × 4,000 rollouts) | p50 ms | p95 ms | p95 vs baseline | max ms | Node CPU ms (p50) |\n|---|---:|---:|---:|---:|---:|",
    );
    await measure("baseline: one round trip (`select 1` through the same client)", () => client.$queryRaw`select 1`);
    const pageReads = [
      await measure("run page: every read of /runs/[run], in parallel as the page does", () =>
        Promise.all([
          loadRunCharts("bench-main", q, client),
          getRunSummary("bench-main", client),
          evaluateRunAlarms("bench-main", { client, webhookUrl: null }),
          listAlarmEvents({ runId: "bench-main", limit: 10 }, client),
          listRunIds(client),
        ]),
      ),
      await measure("charts data, whole run (rollups + guardrail rollups + audit + overview)", () =>
        loadRunCharts("bench-main", q, client),
      ),
      await measure("charts data, zoomed to steps 12,000–18,000", () => loadRunCharts("bench-main", zoom, client)),
      await measure("charts data, bench-other overlaid", () =>
        loadRunCharts("bench-main", { compare: "bench-other" }, client),
      ),
      await measure("listStepRollups alone (250 rows + guardrail rows)", () =>
        listStepRollups("bench-main", {}, client),
      ),
      await measure("alarms, nothing changed (fingerprint check)", () =>
        evaluateRunAlarms("bench-main", { client, webhookUrl: null }),
      ),
      await measure("alarms, full evaluation and persist (forced)", () =>
        evaluateRunAlarms("bench-main", { client, webhookUrl: null, force: true }),
      ),
      await measure("one chart's CSV (hit rate)", () => loadChartCsv("bench-main", "hit-rate", q, client)),
      await measure("runs list (all 6 runs: totals + latest step)", () => listRunSummaries(client)),
      await measure("Monitors page: refreshAlarms over 6 runs, nothing changed", () =>
        refreshAlarms(undefined, { client, webhookUrl: null }),
      ),
    ];
    const loaded = await loadRunCharts("bench-main", q, client);
    const stress = [];
    if (loaded.state === "ok") {
      stress.push(
        await measure("client: the six chart tables, smoothing 10 (CPU only)", async () => {
          for (const c of CHARTS) chartTable({ runs: loaded.data.runs, smooth: 10 }, c);
        }),
      );
    }
    say(
      "\n| query (bench-fine: 10,000 steps × 100 rollouts) | p50 ms | p95 ms | p95 vs baseline | max ms | Node CPU ms (p50) |\n|---|---:|---:|---:|---:|---:|",
    );
    await evaluateRunAlarms("bench-fine", { client, webhookUrl: null });
    stress.push(
      await measure("charts data, whole run (bucketed to 400 points)", () => loadRunCharts("bench-fine", q, client)),
      await measure("charts data, zoomed to 1,200 logged steps (10-step buckets)", () =>
        loadRunCharts("bench-fine", { from: 9_000, to: 12_600 }, client),
      ),
      await measure("alarms, full evaluation and persist (forced)", () =>
        evaluateRunAlarms("bench-fine", { client, webhookUrl: null, force: true }),
      ),
    );
    say(
      `\nload average during the run: ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(", ")} (1, 5, 15 min) on ${os.cpus().length} CPUs`,
    );
    // The target is for what a page reads at 1M rollouts; a forced evaluation runs once per data change (after an
    // ingest batch), not per page view, and the 10,000-step run is a stress case.
    const reads = pageReads.filter((r) => !r.name.startsWith("alarms, full"));
    const worst = reads.reduce((m, r) => (r.p95 > m.p95 ? r : m));
    say(
      `\npage reads at 1M rollouts (bench-main): worst p95 ${worst.p95.toFixed(1)} ms (${worst.name}); target ≤ 100 ms: ${worst.p95 <= 100 ? "met" : "NOT met"}`,
    );
    const w2 = [...pageReads, ...stress].reduce((m, r) => (r.p95 > m.p95 ? r : m));
    say(`worst p95 of everything measured: ${w2.p95.toFixed(1)} ms (${w2.name})`);
  } finally {
    await client.$disconnect();
    await pool.end();
    if (!values.keep) {
      const c = new pg.Client({ connectionString: database.adminUrl });
      await c.connect();
      await c.query(`drop database if exists "${name}" with (force)`).catch(() => undefined);
      await c.end();
    } else say(`kept database ${url}`);
    await database.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench/monitors: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
