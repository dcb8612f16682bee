// Bulk-fix benchmark: `npx tsx bench/bulk-fix.ts [--n 100000] [--tickets 100] [--keep]`.
//
// Data: --tickets cases that allow a hand-off, each with rollouts that read, hand off and write nothing (the hand-off
// blind spot, lib/testing/handoff-run.ts): 10 per ticket through the real ingest path (verifier, narrow tables,
// rollups), then copied with INSERT … SELECT generate_series until the run holds --n rollouts (each copy keeps its
// ticket and its score, at a later step). Every rollout is affected by the fix.
//
// Measures, one after another on the same rollouts, wall time and this process's peak RSS (sampled every 50 ms):
//   baseline   rescoreTicket of every ticket under its unchanged case (scores every rollout, supersedes none) —
//              what `verity case revise` / the workbench's re-score costs on the same rollouts today
//   dry run    dryRunBulkFix of `handoff: "not_allowed"` (scores every rollout under the changed spec, writes nothing)
//   apply      applyBulkFix of the same change (each case's next version, every rollout superseded)
// and the blind spot before and after. Prints os.loadavg() with the figures: the machine is shared.
import { parseArgs } from "node:util";
import pg from "pg";
import { rescoreTicket } from "@/lib/cases/mutations.ts";
import { applyBulkFix, dryRunBulkFix } from "@/lib/clusters/bulk-fix.ts";
import { listClusterTickets } from "@/lib/clusters/detail-data.ts";
import { createClient } from "@/lib/db/client.ts";
import { createDatabaseIfMissing, ensureDatabase } from "@/lib/db/embedded.ts";
import { migrate } from "@/lib/db/migrate.ts";
import { ingestValues } from "@/lib/ingest/ingest.ts";
import { handoffRunLines } from "@/lib/testing/handoff-run.ts";
import { loadAverage, recountRollups } from "@/bench/lib/bench-db.ts";

const { values } = parseArgs({
  options: {
    n: { type: "string", default: "100000" },
    tickets: { type: "string", default: "100" },
    keep: { type: "boolean" },
  },
});
const say = (s: string) => process.stdout.write(s + "\n");
const RUN = "bench-bulk-fix";
const SEED_PER_TICKET = 10;
const fmt = (x: number) => x.toLocaleString("en-US");
const load = loadAverage;

function withDb(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Wall seconds and peak RSS (MB) of this process while `fn` runs. */
async function measure<T>(fn: () => Promise<T>): Promise<{ value: T; seconds: number; peakMb: number }> {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  const t = performance.now();
  try {
    const value = await fn();
    return {
      value,
      seconds: (performance.now() - t) / 1000,
      peakMb: Math.max(peak, process.memoryUsage().rss) / 2 ** 20,
    };
  } finally {
    clearInterval(timer);
  }
}

async function build(pool: pg.Pool, tickets: string[], n: number): Promise<number> {
  let t = performance.now();
  const s = await ingestValues(handoffRunLines(RUN, tickets, SEED_PER_TICKET), {
    pool,
    batchLines: 4000,
  });
  if (!s.ok || s.rejected) throw new Error(`seed ingest failed: ${s.error ?? `${s.rejected} rejected`}`);
  const seeded = s.by_kind.rollout.accepted;
  say(`seed: ${fmt(seeded)} rollouts through the ingest path in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  const copies = Math.max(1, Math.ceil(n / seeded));
  t = performance.now();
  const c = await pool.connect();
  try {
    const [{ r, l }] = (await c.query("select (select max(id) from rollouts) as r, (select max(id) from ledger) as l"))
      .rows;
    await c.query(
      `insert into rollouts (id, trajectory_id, run_id, step, group_id, sample_index, ticket_id, steps, final_reply, sandbox, registry_id, claims, tool_steps, content_hash)
       select x.id + c * $3, x.trajectory_id || '/c' || c, x.run_id, x.step + c * 1000, x.group_id || '/c' || c, x.sample_index, x.ticket_id, x.steps,
              x.final_reply, x.sandbox, x.registry_id, x.claims, x.tool_steps, x.content_hash
         from rollouts x cross join generate_series(1, $2::int) c where x.run_id = $1`,
      [RUN, copies - 1, r],
    );
    await c.query(
      `insert into ledger (id, trajectory_id, rollout_id, run_id, step, ticket_id, group_id, category, status, source, verifier_version, config_hash,
                           claims_source, raw_reward, reward, capped, outcome, policy, evidence, efficiency, communication, deciding_guardrail,
                           guardrail_mask, guardrails, reasons, claims, handoff, tool_steps, is_current, content_hash, case_version)
       select x.id + c * $4, x.trajectory_id || '/c' || c, x.rollout_id + c * $3, x.run_id, x.step + c * 1000, x.ticket_id, x.group_id || '/c' || c, x.category,
              x.status, x.source, x.verifier_version, x.config_hash, x.claims_source, x.raw_reward, x.reward, x.capped, x.outcome, x.policy, x.evidence,
              x.efficiency, x.communication, x.deciding_guardrail, x.guardrail_mask, x.guardrails, x.reasons, x.claims, x.handoff, x.tool_steps,
              x.is_current, x.content_hash, x.case_version
         from ledger x cross join generate_series(1, $2::int) c where x.run_id = $1`,
      [RUN, copies - 1, r, l],
    );
    await c.query(
      `insert into ledger_reasons (ledger_id, ord, run_id, step, dimension, guardrail, code, tool, field)
       select x.ledger_id + c * $3, x.ord, x.run_id, x.step + c * 1000, x.dimension, x.guardrail, x.code, x.tool, x.field
         from ledger_reasons x cross join generate_series(1, $2::int) c where x.run_id = $1`,
      [RUN, copies - 1, l],
    );
    await c.query(
      "select setval('rollouts_id_seq', (select max(id) from rollouts)), setval('ledger_id_seq', (select max(id) from ledger))",
    );
    // The copies bypass ingest, so their per-step rollups are recounted (the re-score updates them).
    await recountRollups(c, RUN);
    for (const table of ["rollouts", "ledger", "ledger_reasons", "step_rollups", "trajectories"])
      await c.query(`vacuum analyze ${table}`);
  } finally {
    c.release();
  }
  const total = Number(
    (await pool.query("select count(*) from ledger where run_id = $1 and is_current", [RUN])).rows[0].count,
  );
  say(
    `copies: ${copies - 1} with INSERT … SELECT generate_series, rollups recounted: ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );
  return total;
}

async function main() {
  const n = Number(values.n);
  const tickets = Array.from({ length: Number(values.tickets) }, (_, i) => `BF-${String(i).padStart(5, "0")}`);
  const database = await ensureDatabase("postgres");
  const name = `verity_bench_bulkfix_${Date.now().toString(36)}`;
  await createDatabaseIfMissing(database.adminUrl, name);
  const url = withDb(database.adminUrl, name);
  await migrate(url);
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const client = createClient(url);
  try {
    const total = await build(pool, tickets, n);
    const w = { runId: RUN, threshold: 0.5 };
    const blind = await listClusterTickets(w, { kind: "blind_spot" }, client);
    const blindBefore = blind.reduce((s, b) => s + b.rollouts, 0);
    say(
      `run ${RUN}: ${fmt(total)} rollouts over ${fmt(tickets.length)} tickets; blind spot ${fmt(blindBefore)} (${load()})`,
    );

    const base = await measure(async () => {
      let scored = 0;
      for (const ticketId of tickets) scored += (await rescoreTicket(pool, { ticketId, runId: RUN }))!.rollouts;
      return scored;
    });
    say(
      `baseline rescoreTicket, unchanged cases: ${fmt(base.value)} rollouts in ${base.seconds.toFixed(1)} s (${fmt(Math.round(base.value / base.seconds))}/s), peak RSS ${base.peakMb.toFixed(0)} MB (${load()})`,
    );
    let progress = 0;
    const dry = await measure(() =>
      dryRunBulkFix(pool, {
        tickets,
        change: { handoff: "not_allowed" },
        runId: RUN,
        onProgress: () => progress++,
      }),
    );
    say(
      `dry run handoff: not_allowed: ${fmt(dry.value.totals.rollouts)} rollouts (${fmt(dry.value.totals.rewardChanged)} changed, mean ${dry.value.meanBefore?.toFixed(3)} → ${dry.value.meanAfter?.toFixed(3)}) in ${dry.seconds.toFixed(1)} s (${fmt(Math.round(dry.value.totals.rollouts / dry.seconds))}/s), ${progress} progress reports, peak RSS ${dry.peakMb.toFixed(0)} MB; ${(dry.seconds / base.seconds).toFixed(2)}× the baseline (${load()})`,
    );
    const applied = await measure(() =>
      applyBulkFix(pool, client, {
        tickets,
        change: { handoff: "not_allowed" },
        reason: "bench: must not be handed off",
        cluster: "blind_spot:handoff_no_write",
        actor: { label: "bench" },
        runId: RUN,
      }),
    );
    say(
      `apply: ${fmt(applied.value.versions.length)} case versions, ${fmt(applied.value.rescored)} rollouts superseded (${fmt(applied.value.rewardChanged)} changed) in ${applied.seconds.toFixed(1)} s (${fmt(Math.round(applied.value.rescored / applied.seconds))}/s), peak RSS ${applied.peakMb.toFixed(0)} MB; ${(applied.seconds / base.seconds).toFixed(2)}× the baseline (${load()})`,
    );
    const after = (await listClusterTickets(w, { kind: "blind_spot" }, client)).reduce((s, b) => s + b.rollouts, 0);
    say(`blind spot after the fix: ${fmt(after)} rollouts (was ${fmt(blindBefore)})`);
  } finally {
    await client.$disconnect();
    await pool.end();
    if (!values.keep) {
      const admin = new pg.Client({ connectionString: database.adminUrl });
      await admin.connect();
      await admin.query(`drop database if exists "${name}" with (force)`);
      await admin.end();
    }
    await database.stop();
  }
}

main().catch((err) => {
  process.stderr.write(`bench/bulk-fix: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
});
