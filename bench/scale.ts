// bench/scale: storage at size (docs/scale.md). Builds --runs runs partitioned by run (014), the biggest of --n current
// ledger entries and the others of --small, and measures, on the biggest and on a small run: the browser's first
// page p95 per single filter and its count, the rollout detail, the run page's charts, the clusters report
// (uncached) and the agreement report; then the sizes per run (rows, heap and index bytes of its partitions) and the
// archive of the biggest run (export to NDJSON, then detach and drop). Prints figures and the big/small ratios: with
// partitions, a small run's pages should not pay for the big one.
//
// `npx tsx bench/scale.ts [--n 1000000] [--small 50000] [--runs 3] [--base 50000] [--iterations 20] [--keep]
//  [--no-archive]`. Not part of npm test; do not run it beside other work on a small machine.
//
// Data: a generated GRPO run of --base rollouts through the real ingest path (so rows are the verifier's own), then
// copied with SQL (new ids and trajectory ids, same scores, reasons, guardrails and rollouts) up to each run's size,
// like bench/browse.ts; rollups are recomputed from the ledger, and 1% of the big run is sampled and reviewed in
// SQL for the agreement report.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { ensureDatabase, createDatabaseIfMissing } from "@/lib/db/embedded.ts";
import { migrate } from "@/lib/db/migrate.ts";

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const N = arg("n", 1_000_000);
const SMALL = arg("small", 50_000);
const RUNS = Math.max(2, arg("runs", 3));
const BASE = arg("base", 50_000);
const ITER = arg("iterations", 20);
const KEEP = process.argv.includes("--keep");
const ARCHIVE = !process.argv.includes("--no-archive");
const DB = "verity_bench_scale";
const BIG = "scale-big";
const runIds = [BIG, ...Array.from({ length: RUNS - 1 }, (_, i) => `scale-small-${i + 1}`)];
const sizeOf = (run: string) => (run === BIG ? N : SMALL);

function pct(xs: number[], p: number) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)];
}
const ms = (x: number) => x.toFixed(1);
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);

async function time<T>(n: number, fn: () => Promise<T>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n + 2; i++) {
    const t0 = performance.now();
    await fn();
    if (i >= 2) out.push(performance.now() - t0);
  }
  return out;
}

/** Copies the source run's current entries (with their rollouts, guardrail and reason rows) into `run` up to `n`. */
async function fill(c: pg.Client, source: string, run: string, n: number): Promise<void> {
  await c.query("insert into runs (id) values ($1) on conflict do nothing", [run]);
  const base = Number((await c.query("select count(*) from src")).rows[0].count);
  for (let k = 0; base * k < n; k++) {
    if (run === source && k === 0) continue;
    const need = Math.min(base, n - base * k);
    const tag = `${run}#${k}`;
    await c.query("begin");
    await c.query(
      `with pick as (select * from src order by id limit $2),
       ro as (
         insert into rollouts (trajectory_id, run_id, step, group_id, sample_index, ticket_id, steps, final_reply, sandbox,
                               registry_id, claims, tool_steps, content_hash)
         select r.trajectory_id || '#' || $1, $3, r.step, r.group_id || '#' || $1, r.sample_index, r.ticket_id, r.steps,
                r.final_reply, r.sandbox, r.registry_id, r.claims, r.tool_steps, r.content_hash
           from pick s join rollouts r on r.run_id = $4 and r.id = s.rollout_id
         returning id, trajectory_id),
       ins as (
         insert into ledger (trajectory_id, rollout_id, run_id, step, ticket_id, group_id, category, status, source,
                             verifier_version, config_hash, claims_source, raw_reward, reward, capped, outcome, policy,
                             evidence, efficiency, communication, deciding_guardrail, guardrail_mask, guardrails, reasons,
                             claims, handoff, tool_steps, content_hash)
         select s.trajectory_id || '#' || $1, ro.id, $3, s.step, s.ticket_id, s.group_id || '#' || $1, s.category,
                s.status, s.source, s.verifier_version, s.config_hash, s.claims_source, s.raw_reward, s.reward, s.capped,
                s.outcome, s.policy, s.evidence, s.efficiency, s.communication, s.deciding_guardrail, s.guardrail_mask,
                s.guardrails, s.reasons, s.claims, s.handoff, s.tool_steps, s.content_hash
           from pick s left join ro on ro.trajectory_id = s.trajectory_id || '#' || $1
         returning id, trajectory_id),
       pairs as (select i.id as new_id, s.id as old_id from ins i join pick s on s.trajectory_id || '#' || $1 = i.trajectory_id),
       g as (insert into ledger_guardrails (ledger_id, run_id, step, code, cap, deciding)
             select p.new_id, $3, lg.step, lg.code, lg.cap, lg.deciding
               from pairs p join ledger_guardrails lg on lg.run_id = $4 and lg.ledger_id = p.old_id)
       insert into ledger_reasons (ledger_id, ord, run_id, step, dimension, guardrail, code, tool, field)
       select p.new_id, lr.ord, $3, lr.step, lr.dimension, lr.guardrail, lr.code, lr.tool, lr.field
         from pairs p join ledger_reasons lr on lr.run_id = $4 and lr.ledger_id = p.old_id`,
      [tag, need, run, source],
    );
    await c.query("commit");
  }
  // Step rollups from the ledger, as ingest would have kept them (the charts read these).
  await c.query("delete from step_rollups where run_id = $1", [run]);
  await c.query(
    `insert into step_rollups (run_id, step, rollouts, rewarded, reward_sum, reward_sumsq, success, handoffs, guardrail_hits,
                               capped, removed_sum, spec_errors, input_errors, external)
     select run_id, step, count(*), count(reward), coalesce(sum(reward), 0), coalesce(sum(reward * reward), 0),
            count(*) filter (where reward >= 0.9), count(*) filter (where handoff), count(*) filter (where guardrail_mask <> 0),
            count(*) filter (where capped), coalesce(sum(raw_reward - reward), 0), count(*) filter (where status = 'spec_error'),
            count(*) filter (where status = 'input_error'), count(*) filter (where source = 'external')
       from ledger where run_id = $1 and is_current group by run_id, step
`,
    [run],
  );
}

async function main() {
  const database = await ensureDatabase("postgres");
  const admin = new pg.Client({ connectionString: database.adminUrl });
  await admin.connect();
  const u = new URL(database.adminUrl);
  u.pathname = `/${DB}`;
  const url = u.toString();
  await admin.query(`drop database if exists "${DB}" with (force)`);
  await admin.end();
  await createDatabaseIfMissing(database.adminUrl, DB);
  await migrate(url);
  const { bindDatabase, db } = await import("@/lib/db/client.ts");
  await bindDatabase(url);
  const c = new pg.Client({ connectionString: url });
  await c.connect();

  // ---- build ----
  const { ingestValues } = await import("@/lib/ingest/ingest.ts");
  const { demoRunValues } = await import("@/lib/demo/generate.ts");
  const pool = new pg.Pool({ connectionString: url, max: 3 });
  const steps = Math.max(1, Math.round(BASE / (250 * 4)));
  let t = performance.now();
  const s = await ingestValues(
    demoRunValues({ runId: BIG, tickets: 250, steps, k: 4, seed: "scale", variant: "normal" }),
    { pool, batchLines: 4000 },
  );
  const ingestSeconds = (performance.now() - t) / 1000;
  const base = s.by_kind.rollout.accepted;
  console.log(
    `ingested ${base.toLocaleString("en-US")} generated rollouts in ${ingestSeconds.toFixed(1)} s (${Math.round(base / ingestSeconds).toLocaleString("en-US")} rollouts/s)`,
  );
  t = performance.now();
  await c.query("create temp table src as select * from ledger where run_id = $1 and is_current", [BIG]);
  for (const run of runIds) await fill(c, BIG, run, sizeOf(run));
  for (const table of ["rollouts", "ledger", "ledger_guardrails", "ledger_reasons", "step_rollups", "trajectories"])
    await c.query(`vacuum analyze ${table}`);
  console.log(
    `copied up to ${runIds.map((r) => sizeOf(r).toLocaleString("en-US")).join(" + ")} entries in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );

  // 1% of the big run sampled and reviewed (a human agreeing within 0.05), for the agreement report.
  const user = await c.query<{ id: number }>(
    `insert into users (email, role) values ('bench@example.org', 'annotator') returning id`,
  );
  const batch = await c.query<{ id: number }>(
    `insert into audit_batches (name, run_id, step_from, step_to, rate, salt, pick) values ('bench', $1, 0, 2147483647, 0.01, 's', 'one') returning id`,
    [BIG],
  );
  await c.query(
    `insert into audit_items (batch_id, run_id, rollout_id, ledger_id, trajectory_id, ticket_id, inclusion_prob, reviews_done, status)
     select $1, l.run_id, l.rollout_id, l.id, l.trajectory_id, l.ticket_id, 0.01, 1, 'done' from ledger l
      where l.run_id = $2 and l.is_current and l.reward is not null and l.rollout_id is not null and hashint8(l.id) % 100 = 0`,
    [batch.rows[0].id, BIG],
  );
  await c.query(
    `insert into reviews (item_id, reviewer_id, outcome, policy, evidence, efficiency, communication, guardrails, reward, claims, seconds_spent)
     select i.id, $1, coalesce(l.outcome, 0), coalesce(l.policy, 0), coalesce(l.evidence, 0), coalesce(l.efficiency, 0),
            coalesce(l.communication, 0), '{}'::text[],
            least(1, l.reward + 0.02), coalesce(l.claims, '{}'::jsonb), 60
       from audit_items i join ledger l on l.run_id = i.run_id and l.id = i.ledger_id where i.batch_id = $2`,
    [user.rows[0].id, batch.rows[0].id],
  );
  await c.query("analyze audit_items; analyze reviews");

  // ---- measure ----
  const { browseLedger, countLedger } = await import("@/lib/ledger/browse.ts");
  const { parseBrowseParams } = await import("@/lib/ledger/browse-schema.ts");
  const { loadTrajectoryDetail } = await import("@/lib/ledger/detail.ts");
  const { loadRunCharts } = await import("@/lib/monitors/loaders.ts");
  const { computeClusterReport } = await import("@/lib/clusters/loaders.ts");
  const { loadAgreementItems } = await import("@/lib/agreement/data.ts");
  const { buildAgreementReport } = await import("@/lib/agreement/report.ts");
  const small = runIds[1];
  const category = (await c.query("select category from ledger where run_id = $1 limit 1", [BIG])).rows[0].category;
  const filters: [string, Record<string, string>][] = [
    ["baseline: run only, newest first", {}],
    ["step range (last 10%)", { step_from: String(Math.floor(steps * 0.9)) }],
    ["category", { category }],
    ["reward ≤ 0.5", { reward_max: "0.5" }],
    ["guardrail any of missing_evidence", { any: "missing_evidence" }],
    ["deciding = empty_promise", { deciding: "empty_promise" }],
    ["capped", { capped: "yes" }],
    ["hand-off", { handoff: "yes" }],
    ["status spec_error", { status: "spec_error" }],
    ["reason over_step_budget", { reason: "over_step_budget" }],
    ["no sandbox write", { sandbox_write: "no" }],
    ["sort by reward ascending", { sort: "reward", dir: "asc" }],
  ];
  const lines: string[] = [];
  const row = (name: string, big: number[], sm: number[]) => {
    const b = pct(big, 0.95);
    const x = pct(sm, 0.95);
    lines.push(
      `| ${name} | ${ms(pct(big, 0.5))} | ${ms(b)} | ${ms(pct(sm, 0.5))} | ${ms(x)} | ${(b / x).toFixed(2)}× |`,
    );
    console.log(lines[lines.length - 1]);
  };
  console.log(
    `\nruns: ${runIds.map((r) => `${r} ${sizeOf(r).toLocaleString("en-US")}`).join(", ")}; ${ITER} iterations each; ${os.cpus()[0].model}, ${os.cpus().length} CPUs, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}\n`,
  );
  console.log(
    `| figure | big p50 ms | big p95 ms | small p50 ms | small p95 ms | big / small p95 |\n|---|---:|---:|---:|---:|---:|`,
  );
  for (const [name, q] of filters) {
    const measure = async (run: string) => {
      const parsed = parseBrowseParams({ run, ...q });
      if (!parsed.ok) throw new Error(parsed.errors.join("; "));
      const page = await time(ITER, () => browseLedger(parsed.params, 100));
      const count = await time(Math.max(3, Math.floor(ITER / 4)), () => countLedger(parsed.params));
      return { page, count };
    };
    const [b, sm] = [await measure(BIG), await measure(small)];
    row(`first page: ${name}`, b.page, sm.page);
    row(`count: ${name}`, b.count, sm.count);
  }
  const trajOf = async (run: string) =>
    (
      await c.query("select trajectory_id from ledger where run_id = $1 and is_current order by random() limit 40", [
        run,
      ])
    ).rows.map((r) => r.trajectory_id as string);
  const detail = async (run: string) => {
    const ids = await trajOf(run);
    let i = 0;
    return time(ids.length - 2, async () => {
      if (!(await loadTrajectoryDetail(ids[i++ % ids.length]))) throw new Error("no detail");
    });
  };
  row("rollout detail (40 random)", await detail(BIG), await detail(small));
  row(
    "run page charts (loadRunCharts, whole run)",
    await time(ITER, () => loadRunCharts(BIG, {})),
    await time(ITER, () => loadRunCharts(small, {})),
  );
  const clusters = (run: string) => time(3, () => computeClusterReport({ runId: run, threshold: 0.5 }));
  row("clusters report, uncached (threshold 0.5)", await clusters(BIG), await clusters(small));
  const agreement = await time(5, async () => {
    const f = { run: BIG, tolerance: 0.1 };
    buildAgreementReport(await loadAgreementItems(f), f);
  });
  const items = Number((await c.query("select count(*) from audit_items")).rows[0].count);
  lines.push(
    `| agreement report (${items.toLocaleString("en-US")} reviewed items of the big run) | ${ms(pct(agreement, 0.5))} | ${ms(pct(agreement, 0.95))} | | | |`,
  );
  console.log(lines[lines.length - 1]);

  // ---- sizes ----
  const sizes = await c.query<{ run: string; rows: string; heap: string; idx: string; toast: string }>(
    `select pg_get_expr(ch.relpartbound, ch.oid) as run,
            sum(ch.reltuples)::bigint::text as rows,
            sum(pg_relation_size(ch.oid))::text as heap,
            sum(pg_indexes_size(ch.oid))::text as idx,
            sum(pg_total_relation_size(ch.oid) - pg_relation_size(ch.oid) - pg_indexes_size(ch.oid))::text as toast
       from pg_class ch where ch.relispartition and ch.relkind = 'r' group by 1 order by 1`,
  );
  console.log(`\n| partition set | rows (all tables) | heap MB | toast MB | index MB |\n|---|---:|---:|---:|---:|`);
  for (const r of sizes.rows)
    console.log(
      `| ${r.run} | ${Number(r.rows).toLocaleString("en-US")} | ${mb(Number(r.heap))} | ${mb(Number(r.toast))} | ${mb(Number(r.idx))} |`,
    );

  // ---- archive ----
  if (ARCHIVE) {
    const { archiveRun } = await import("@/lib/runs/archive.ts");
    const target = `${BIG}-archive`;
    // The big run has the audit batch; a copy of its size without one is archived.
    await fill(c, BIG, target, N);
    await c.query(`vacuum analyze ledger`);
    const out = path.join(os.tmpdir(), `verity-scale-archive-${process.pid}.ndjson`);
    const a = await archiveRun(pool, target, out);
    console.log(
      `\narchive of ${a.entries.toLocaleString("en-US")} entries + ${a.rollouts.toLocaleString("en-US")} rollouts: export ${(a.exportMs / 1000).toFixed(1)} s (${mb(a.bytes)} MB NDJSON), detach + drop ${(a.dropMs / 1000).toFixed(2)} s`,
    );
    fs.rmSync(out, { force: true });
  }
  console.log(
    `\nload average at the end: ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );

  await pool.end();
  await c.end();
  await db().$disconnect();
  if (!KEEP) {
    const a = new pg.Client({ connectionString: database.adminUrl });
    await a.connect();
    await a.query(`drop database if exists "${DB}" with (force)`);
    await a.end();
  }
  await database.stop();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
