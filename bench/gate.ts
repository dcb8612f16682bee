// bench/gate: the audit gate's evaluation time on a run of --n ledger entries (docs/benchmarks.md), against the
// monitors' alarm evaluation of the same run measured in the same process (forced, so it does the work). Both read
// the step rollups and the run's reviews, never the ledger; the gate also pools its window in SQL. Also the run
// page's charts and own gate, cold (caches emptied, as after a change of the audit) and warm (unchanged since the
// last view: the corrected curve and the gate report are reused, lib/db/fingerprint-cache.ts).
//
// `npx tsx bench/gate.ts [--n 1000000] [--base 50000] [--iterations 20] [--keep]`. Not part of npm test; do not run it
// beside other work on a small machine.
//
// Data, as bench/scale.ts builds it: a generated GRPO run (the reward-hacking variant) of --base rollouts through the
// real ingest path, then copied with SQL (new ids and trajectory ids, same scores, guardrails, reasons and rollouts)
// up to --n entries; rollups recomputed from the ledger; 1% of the run sampled and reviewed in SQL.
import os from "node:os";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { createDatabaseIfMissing, ensureDatabase } from "@/lib/db/embedded.ts";
import { migrate } from "@/lib/db/migrate.ts";
import { copySourceEntries, recountRollups } from "@/bench/lib/bench-db.ts";

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const N = arg("n", 1_000_000);
const BASE = Math.min(N, arg("base", 50_000));
const ITER = arg("iterations", 20);
const KEEP = process.argv.includes("--keep");
const DB = "verity_bench_gate";
const RUN = "gate-big";

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)];
};

async function time(n: number, fn: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n + 2; i++) {
    const t0 = performance.now();
    await fn();
    if (i >= 2) out.push(performance.now() - t0);
  }
  return out;
}

/** Copies the run's first `base` entries (with rollouts, guardrail and reason rows) until it holds `n`. */
async function fill(c: pg.Client, n: number): Promise<void> {
  const base = Number((await c.query("select count(*) from src")).rows[0].count);
  for (let k = 1; base * k < n; k++) {
    const need = Math.min(base, n - base * k);
    const tag = `${RUN}#${k}`;
    await c.query("begin");
    await copySourceEntries(c, { tag, need, run: RUN, from: RUN });
    await c.query("commit");
  }
  // Step rollups from the ledger, as ingest would have kept them (the gate and the alarms read these).
  await recountRollups(c, RUN);
}

async function main() {
  const database = await ensureDatabase("postgres");
  const admin = new pg.Client({ connectionString: database.adminUrl });
  await admin.connect();
  await admin.query(`drop database if exists "${DB}" with (force)`);
  await admin.end();
  await createDatabaseIfMissing(database.adminUrl, DB);
  const u = new URL(database.adminUrl);
  u.pathname = `/${DB}`;
  const url = u.toString();
  await migrate(url);
  const { createClient } = await import("@/lib/db/client.ts");
  const { ingestValues } = await import("@/lib/ingest/ingest.ts");
  const { demoRunValues } = await import("@/lib/demo/generate.ts");
  const { loadGateReport } = await import("@/lib/gate/loaders.ts");
  const { evaluateRunAlarms } = await import("@/lib/monitors/evaluate.ts");
  const { evaluateRunGate } = await import("@/lib/gate/refresh.ts");
  const { loadRunCharts } = await import("@/lib/monitors/loaders.ts");
  const { clearProcessCaches } = await import("@/lib/db/fingerprint-cache.ts");
  const client = createClient(url);
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const pool = new pg.Pool({ connectionString: url, max: 3 });
  try {
    let t = performance.now();
    const steps = Math.max(1, Math.round(BASE / (250 * 4)));
    const s = await ingestValues(
      demoRunValues({ runId: RUN, tickets: 250, steps, k: 4, seed: "gate", variant: "hacking" }),
      { pool, batchLines: 4000 },
    );
    console.log(
      `ingested ${s.by_kind.rollout.accepted.toLocaleString("en-US")} generated rollouts (${steps} steps) in ${((performance.now() - t) / 1000).toFixed(1)} s`,
    );
    t = performance.now();
    await c.query("create temp table src as select * from ledger where run_id = $1 and is_current", [RUN]);
    await fill(c, N);
    for (const table of ["rollouts", "ledger", "ledger_guardrails", "ledger_reasons", "step_rollups"])
      await c.query(`vacuum analyze ${table}`);
    const entries = Number((await c.query("select count(*) from ledger where run_id = $1", [RUN])).rows[0].count);
    console.log(
      `copied up to ${entries.toLocaleString("en-US")} entries in ${((performance.now() - t) / 1000).toFixed(1)} s`,
    );

    // 1% of the run sampled and reviewed: the human agrees (within the tolerance) on 7 in 8.
    const user = await c.query<{ id: number }>(
      `insert into users (email, role) values ('bench@example.org', 'annotator') returning id`,
    );
    const batch = await c.query<{ id: number }>(
      `insert into audit_batches (name, run_id, step_from, step_to, rate, salt, pick) values ('bench', $1, 0, 2147483647, 0.01, 's', 'one') returning id`,
      [RUN],
    );
    await c.query(
      `insert into audit_items (batch_id, run_id, rollout_id, ledger_id, trajectory_id, ticket_id, inclusion_prob, reviews_done, status)
       select $1, l.run_id, l.rollout_id, l.id, l.trajectory_id, l.ticket_id, 0.01, 1, 'done' from ledger l
        where l.run_id = $2 and l.is_current and l.reward is not null and l.rollout_id is not null and hashint8(l.id) % 100 = 0`,
      [batch.rows[0].id, RUN],
    );
    const reviews = await c.query(
      `insert into reviews (item_id, reviewer_id, outcome, policy, evidence, efficiency, communication, guardrails, reward, claims, seconds_spent)
       select i.id, $1, coalesce(l.outcome, 0), coalesce(l.policy, 0), coalesce(l.evidence, 0), coalesce(l.efficiency, 0),
              coalesce(l.communication, 0), '{}'::text[],
              case when i.id % 8 = 0 then abs(l.reward - 0.5) else l.reward end, coalesce(l.claims, '{}'::jsonb), 60
         from audit_items i join ledger l on l.run_id = i.run_id and l.id = i.ledger_id where i.batch_id = $2`,
      [user.rows[0].id, batch.rows[0].id],
    );
    await c.query("analyze audit_items; analyze reviews");
    console.log(`reviewed ${reviews.rowCount?.toLocaleString("en-US")} sampled entries`);

    // A window of the whole run, so every rule reads every step and review.
    const windowSteps = 2147483647;
    const report = await loadGateReport(RUN, { windowSteps }, client);
    console.log(
      `gate: ${report!.verdict} (${report!.rules.map((r) => `${r.rule} ${r.status}`).join(", ")}), steps ${report!.window.from}–${report!.window.to}`,
    );
    // Uncached: every evaluation computes the corrected curve's bootstrap afresh.
    const gate = await time(ITER, () => {
      clearProcessCaches();
      return loadGateReport(RUN, { windowSteps }, client);
    });
    const alarms = await time(ITER, () => evaluateRunAlarms(RUN, { client, force: true, webhookUrl: null }));
    // What the run page pays: its charts (with the corrected curve) and its own gate, stored; cold after a change of
    // the audit (caches emptied), and warm (nothing changed since the last view).
    const page = () =>
      Promise.all([loadRunCharts(RUN, {}, client), evaluateRunGate(RUN, { webhookUrl: null }, client)]);
    const cold = await time(ITER, () => {
      clearProcessCaches();
      return page();
    });
    const warm = await time(ITER, page);
    console.log(
      `load average ${os
        .loadavg()
        .map((x) => x.toFixed(2))
        .join(" ")}, ${os.cpus().length} cores`,
    );
    console.log("| what | p50 ms | p95 ms |");
    console.log("|---|---|---|");
    console.log(`| gate evaluation (loadGateReport) | ${pct(gate, 0.5).toFixed(1)} | ${pct(gate, 0.95).toFixed(1)} |`);
    console.log(
      `| baseline: alarm evaluation (evaluateRunAlarms, forced) | ${pct(alarms, 0.5).toFixed(1)} | ${pct(alarms, 0.95).toFixed(1)} |`,
    );
    console.log(
      `| run page: charts + its own gate, after a change of the audit (cold) | ${pct(cold, 0.5).toFixed(1)} | ${pct(cold, 0.95).toFixed(1)} |`,
    );
    console.log(
      `| run page: charts + its own gate, unchanged since the last view (warm) | ${pct(warm, 0.5).toFixed(1)} | ${pct(warm, 0.95).toFixed(1)} |`,
    );
    console.log(`gate / alarms (p50): ${(pct(gate, 0.5) / pct(alarms, 0.5)).toFixed(2)}×`);
    console.log(`run page cold / warm (p50): ${(pct(cold, 0.5) / pct(warm, 0.5)).toFixed(1)}×`);
  } finally {
    await pool.end();
    await c.end();
    await client.$disconnect();
    if (!KEEP) {
      const a = new pg.Client({ connectionString: database.adminUrl });
      await a.connect();
      await a.query(`drop database if exists "${DB}" with (force)`);
      await a.end();
    }
    await database.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
