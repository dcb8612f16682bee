// bench/agreement: the agreement report computed from scratch (no cache), before and after the rewrite of its load
// (Prisma relation queries → set-based SQL) and of its build (shared bootstrap draws, one pass for both bases), in
// the same process, alternating, so the load of a shared machine falls on both alike. Before: the Prisma loader
// (lib/testing/agreement-items-prisma.ts) and the build as it was (lib/testing/agreement-report-before.ts); after:
// lib/agreement.
// Both outputs are compared deep-equal before anything is timed.
// Then the fingerprint every read of the agreement page runs first, before 028 (a probe of each reviewed item's
// current entry) and after (the runs' counts of superseding entries), in turns.
//
// The database (--db, verity_bench_agreement by default, kept between runs; --rebuild makes it again): one run of --entries ledger
// entries (a generated run of --base rollouts ingested, then copied in SQL, each copy with its own rollout row
// without steps), --rate of it (1%) sampled into two batches and reviewed by three annotators — a tenth of the items twice,
// some reviews corrected (superseded), some excluded, disagreements disputed and half of them adjudicated (some
// adjudications revised), 5% of the reviewed items' entries re-scored since — and, beside it, three small runs.
//
// `npx tsx bench/agreement.ts [--entries 1000000] [--base 20000] [--rate 0.01] [--iterations 20] [--rebuild]
// [--db verity_bench_agreement] [--skip-before]` (--rate: the share of the run's entries sampled and reviewed; --db: the
// database, so databases of different rates can be kept side by side). Not part of npm test.
import os from "node:os";
import { isDeepStrictEqual } from "node:util";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import pg from "pg";
import { loadAverage, migratedBenchDatabase } from "@/bench/lib/bench-db.ts";

const { values } = parseArgs({
  options: {
    entries: { type: "string", default: "1000000" },
    base: { type: "string", default: "20000" },
    iterations: { type: "string", default: "20" },
    rate: { type: "string", default: "0.01" },
    rebuild: { type: "boolean" },
    db: { type: "string", default: "verity_bench_agreement" },
    "skip-before": { type: "boolean" },
  },
});
const ENTRIES = Number(values.entries);
const BASE = Number(values.base);
const ITER = Number(values.iterations);
const RATE = Number(values.rate);
if (!(RATE > 0 && RATE <= 1)) throw new Error(`--rate: must be in (0, 1], got ${values.rate}`);
const DB = values.db;
if (!/^[a-z_][a-z0-9_]*$/.test(DB)) throw new Error(`--db: a lower-case SQL name, got ${JSON.stringify(DB)}`);
const RUN = "agree-big";

const load = loadAverage;
const say = (s: string) => console.log(s);
const fmt = (x: number) => Math.round(x).toLocaleString("en-US");
function pct(xs: number[], p: number) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
}

async function build(c: pg.Client, url: string) {
  const t0 = performance.now();
  await ingestRuns(url, t0);
  await copyEntries(c);
  const lead = await sampleAndReview(c);
  await adjudicate(c, lead);
  await rescoreSome(c);
  await c.query("analyze audit_items; analyze reviews; analyze adjudications; analyze ledger");
  say(`built in ${((performance.now() - t0) / 1000).toFixed(1)} s (${load()})`);
}

/** The big run's --base rollouts and three small runs, ingested as the product does. */
async function ingestRuns(url: string, t0: number) {
  const { ingestValues } = await import("@/lib/ingest/ingest.ts");
  const { demoRunValues } = await import("@/lib/demo/generate.ts");
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const steps = Math.max(1, Math.round(BASE / (250 * 4)));
  await ingestValues(demoRunValues({ runId: RUN, tickets: 250, steps, k: 4, seed: "agree", variant: "normal" }), {
    pool,
    batchLines: 4000,
  });
  for (const [j, variant] of (["normal", "normal", "normal"] as const).entries())
    await ingestValues(
      demoRunValues({ runId: `agree-small-${j + 1}`, tickets: 50, steps: 5, k: 4, seed: `s${j}`, variant }),
      { pool, batchLines: 4000 },
    );
  await pool.end();
  say(`ingested ${RUN} (${fmt(BASE)} rollouts) and 3 small runs in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

/**
 * Copies of the ingested entries up to --entries, each with its own rollout (no steps: nothing measured here reads
 * them), so an item's rollout is its own trajectory's, as ingest makes it.
 */
async function copyEntries(c: pg.Client) {
  await c.query(
    "create temp table src as select * from ledger where run_id = $1 and is_current and position('#' in trajectory_id) = 0",
    [RUN],
  );
  const base = Number((await c.query("select count(*) from src")).rows[0].count);
  let have = base;
  while (have < ENTRIES) {
    const need = Math.min(base, ENTRIES - have);
    const tag = `#${have}`;
    await c.query(
      `with pick as (select * from src order by id limit $2),
       ro as (
         insert into rollouts (trajectory_id, run_id, step, group_id, sample_index, ticket_id, steps, final_reply, sandbox,
                               registry_id, claims, tool_steps, content_hash)
         select r.trajectory_id || $1, $3, r.step, r.group_id || $1, r.sample_index, r.ticket_id, '[]'::jsonb, '',
                '{}'::jsonb, r.registry_id, r.claims, r.tool_steps, r.content_hash
           from pick s join rollouts r on r.run_id = $3 and r.id = s.rollout_id
         returning id, trajectory_id)
       insert into ledger (trajectory_id, rollout_id, run_id, step, ticket_id, group_id, category, status, source,
                           verifier_version, config_hash, claims_source, raw_reward, reward, capped, outcome, policy,
                           evidence, efficiency, communication, deciding_guardrail, guardrail_mask, guardrails, reasons,
                           claims, handoff, tool_steps, content_hash)
       select s.trajectory_id || $1, ro.id, $3, s.step, s.ticket_id, s.group_id || $1, s.category, s.status, s.source,
              s.verifier_version, s.config_hash, s.claims_source, s.raw_reward, s.reward, s.capped, s.outcome, s.policy,
              s.evidence, s.efficiency, s.communication, s.deciding_guardrail, s.guardrail_mask, s.guardrails, s.reasons,
              s.claims, s.handoff, s.tool_steps, s.content_hash
         from pick s join ro on ro.trajectory_id = s.trajectory_id || $1`,
      [tag, need, RUN],
    );
    have += need;
    if (have % 200_000 < base) say(`  ${fmt(have)} entries (${load()})`);
  }
  for (const table of ["rollouts", "ledger"]) await c.query(`vacuum analyze ${table}`);
}

/** Three annotators and a lead; two batches (even and odd steps) sampled at --rate and reviewed; returns the lead. */
async function sampleAndReview(c: pg.Client): Promise<number> {
  const users = await c.query<{ id: number }>(
    `insert into users (email, role) values ('bench-a1@example.org', 'annotator'), ('bench-a2@example.org', 'annotator'),
       ('bench-a3@example.org', 'annotator') returning id`,
  );
  const [a1] = users.rows.map((u) => u.id);
  const lead = (
    await c.query<{ id: number }>(
      `insert into users (email, role) values ('bench-lead@example.org', 'lead') returning id`,
    )
  ).rows[0].id;
  for (const [name, parity] of [
    ["bench-even", 0],
    ["bench-odd", 1],
  ] as const) {
    const b = await c.query<{ id: number }>(
      `insert into audit_batches (name, run_id, step_from, step_to, rate, salt, pick, tolerance)
       values ($1, $2, 0, 2147483647, $3, 's', 'one', 0.1) returning id`,
      [name, RUN, RATE],
    );
    await c.query(
      `insert into audit_items (batch_id, run_id, rollout_id, ledger_id, trajectory_id, ticket_id, inclusion_prob, reviews_needed,
                                reviews_done, status)
       select $1, l.run_id, l.rollout_id, l.id, l.trajectory_id, l.ticket_id, $5::float8,
              case when abs(hashint8(l.id)) % 1000 < 100 then 2 else 1 end, 0, 'done'
         from ledger l
        where l.run_id = $2 and l.is_current and l.reward is not null and l.rollout_id is not null
          and abs(hashint8(l.id)) % 10000 < $4 and l.step % 2 = $3`,
      [b.rows[0].id, RUN, parity, Math.round(RATE * 10000), RATE],
    );
  }
  // First reviews: within 0.05 of the ledger, except one item in 7 (the other side of the scale); guardrails as the
  // ledger's deciding one, missed one time in 5; over 20 days.
  const review = (who: string, later: string, excluded: string, where: string) =>
    c.query(
      `insert into reviews (item_id, reviewer_id, outcome, policy, evidence, efficiency, communication, guardrails, reward, claims,
                            seconds_spent, created_at, excluded_reason)
       select i.id, ${who}, coalesce(l.outcome, 0), coalesce(l.policy, 0), coalesce(l.evidence, 0), coalesce(l.efficiency, 0),
              coalesce(l.communication, 0),
              case when l.deciding_guardrail is not null and abs(hashint8(i.id + 1)) % 5 <> 0 then array[l.deciding_guardrail]
                   else '{}'::text[] end,
              case when abs(hashint8(i.id)) % 7 = 0 then 1 - l.reward else least(1, l.reward + 0.02) end,
              coalesce(l.claims, '{}'::jsonb), 60, now() - make_interval(days => (i.id % 20)::int) + interval '${later}', ${excluded}
         from audit_items i join ledger l on l.run_id = i.run_id and l.id = i.ledger_id join audit_batches b on b.id = i.batch_id
        where b.run_id = '${RUN}' ${where}`,
    );
  await review(`${a1} + (i.id % 3)::int`, "0 hours", "null", "");
  await review(`${a1} + ((i.id + 1) % 3)::int`, "1 hour", "null", "and i.reviews_needed = 2");
  const excluded = "'author''s role (lead) can read the ledger'";
  await review(`${a1} + ((i.id + 2) % 3)::int`, "2 hours", excluded, "and abs(hashint8(i.id)) % 100 = 1");
  // Corrections: 3% of first reviews superseded by a new review of the same reviewer a day later.
  await c.query(
    `insert into reviews (item_id, reviewer_id, outcome, policy, evidence, efficiency, communication, guardrails, reward, claims,
                          seconds_spent, created_at, supersedes_id)
     select r.item_id, r.reviewer_id, r.outcome, r.policy, r.evidence, r.efficiency, r.communication, r.guardrails,
            greatest(0, r.reward - 0.3), r.claims, 30, r.created_at + interval '1 day', r.id
       from reviews r where abs(hashint8(r.id)) % 100 < 3 and r.excluded_reason is null`,
  );
  await c.query(
    `update audit_items i set reviews_done = (select count(*) from reviews r where r.item_id = i.id and r.excluded_reason is null
                                               and not exists (select 1 from reviews s where s.supersedes_id = r.id)),
            disputed_at = case when exists (select 1 from reviews r join ledger l on l.run_id = i.run_id and l.id = i.ledger_id
                                             where r.item_id = i.id and abs(r.reward - l.reward) > 0.1) then now() end`,
  );
  return lead;
}

async function adjudicate(c: pg.Client, lead: number) {
  // Half the disputes adjudicated, causes in turn; a fifth of those revised.
  await c.query(
    `insert into adjudications (item_id, lead_id, cause, guardrail, note)
     select i.id, $1, (array['spec_wrong','extraction_wrong','verifier_rule_wrong','annotator_wrong','ambiguous'])[1 + (i.id % 5)]::"DisagreementCause",
            case when i.id % 5 = 2 then 'missing_evidence' end, ''
       from audit_items i where i.disputed_at is not null and abs(hashint8(i.id)) % 2 = 0`,
    [lead],
  );
  await c.query(
    `insert into adjudications (item_id, lead_id, cause, guardrail, note, supersedes_id)
     select a.item_id, a.lead_id, 'ambiguous', null, 'revised', a.id from adjudications a where abs(hashint8(a.id)) % 5 = 0`,
  );
}

async function rescoreSome(c: pg.Client) {
  // 5% of the reviewed items' entries re-scored: a successor entry, the old one no longer current.
  await c.query("begin");
  await c.query(
    `create temp table moved as
     select l.* from ledger l join audit_items i on i.run_id = l.run_id and i.ledger_id = l.id where abs(hashint8(i.id)) % 20 = 0`,
  );
  // The old entries stop being current before their successors arrive: one current entry per trajectory (034).
  await c.query(
    "update ledger l set is_current = false from moved m where l.run_id = m.run_id and l.id = m.id and l.is_current",
  );
  await c.query(
    `insert into ledger (trajectory_id, rollout_id, run_id, step, ticket_id, group_id, category, status, source, verifier_version,
                         config_hash, claims_source, raw_reward, reward, capped, outcome, policy, evidence, efficiency,
                         communication, deciding_guardrail, guardrail_mask, guardrails, reasons, claims, handoff, tool_steps,
                         content_hash, supersedes_id)
     select trajectory_id, rollout_id, run_id, step, ticket_id, group_id, category, status, source, verifier_version, 'rescored',
            claims_source, raw_reward, least(1, reward + 0.3), capped, outcome, policy, evidence, efficiency, communication, null, 0,
            '[]'::jsonb, reasons, claims, handoff, tool_steps, content_hash, id
       from moved`,
  );
  await c.query("commit");
}

async function main() {
  const { database, url, fresh } = await migratedBenchDatabase(DB, !!values.rebuild);
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  if (fresh) await build(c, url);
  const entries = Number((await c.query("select count(*) from ledger where run_id = $1", [RUN])).rows[0].count);
  const items = Number(
    (
      await c.query(
        `select count(*) from audit_items i join audit_batches b on b.id = i.batch_id
          where b.run_id = $1 and exists (select 1 from reviews r where r.item_id = i.id)`,
        [RUN],
      )
    ).rows[0].count,
  );
  await c.end();

  const { bindDatabase } = await import("@/lib/db/client.ts");
  const client = await bindDatabase(url);
  const { loadAgreementItems } = await import("@/lib/agreement/data.ts");
  const { buildAgreementReport } = await import("@/lib/agreement/report.ts");
  const { loadAgreementItemsPrisma } = await import("@/lib/testing/agreement-items-prisma.ts");
  const { buildAgreementReportBefore } = await import("@/lib/testing/agreement-report-before.ts");
  const f = { run: RUN, tolerance: 0.1 };

  say(
    `bench/agreement: ${fmt(items)} reviewed items in a run of ${fmt(entries)} ledger entries; ${os.cpus().length} CPUs, node ${process.version}; ${load()}`,
  );
  const before = !values["skip-before"];
  if (before) {
    const oldItems = await loadAgreementItemsPrisma(f, client);
    const newItems = await loadAgreementItems(f, client);
    say(`same items: ${isDeepStrictEqual(oldItems, newItems)} (${fmt(newItems.length)})`);
    say(
      `same report: ${isDeepStrictEqual(buildAgreementReportBefore(oldItems, f), buildAgreementReport(newItems, f))}`,
    );
  }

  const t = { oldLoad: [] as number[], newLoad: [] as number[], oldBuild: [] as number[], newBuild: [] as number[] };
  const timed = async <T>(xs: number[], fn: () => Promise<T> | T): Promise<T> => {
    const t0 = performance.now();
    const r = await fn();
    xs.push(performance.now() - t0);
    return r;
  };
  for (let i = 0; i < ITER + 2; i++) {
    const warm = i < 2;
    const sink = {
      oldLoad: [] as number[],
      newLoad: [] as number[],
      oldBuild: [] as number[],
      newBuild: [] as number[],
    };
    const into = warm ? sink : t;
    // alternate which goes first
    const old = async () => {
      if (!before) return;
      const items = await timed(into.oldLoad, () => loadAgreementItemsPrisma(f, client));
      await timed(into.oldBuild, () => buildAgreementReportBefore(items, f));
    };
    const after = async () => {
      const items = await timed(into.newLoad, () => loadAgreementItems(f, client, { lean: true }));
      await timed(into.newBuild, () => buildAgreementReport(items, f));
    };
    if (i % 2) {
      await after();
      await old();
    } else {
      await old();
      await after();
    }
  }
  const oldTotal = t.oldLoad.map((x, j) => x + t.oldBuild[j]);
  const newTotal = t.newLoad.map((x, j) => x + t.newBuild[j]);
  say(`\n| ${fmt(items)} items, ${fmt(entries)} entries, ${ITER} rounds | p50 ms | p95 ms |\n|---|---:|---:|`);
  for (const [name, xs] of [
    ["load, before (Prisma relation queries)", t.oldLoad],
    ["load, after (SQL)", t.newLoad],
    ["build, before", t.oldBuild],
    ["build, after", t.newBuild],
    ["total, before", oldTotal],
    ["total, after", newTotal],
  ] as const)
    if (xs.length) say(`| ${name} | ${pct(xs, 0.5).toFixed(0)} | ${pct(xs, 0.95).toFixed(0)} |`);
  say(`(${load()})`);

  // The fingerprint every read of the agreement page runs first (lib/agreement/cached.ts), before 028 (a probe of each
  // item's current entry) and after (the runs' counts of superseding entries), in turns.
  const { agreementFingerprint } = await import("@/lib/agreement/cached.ts");
  const { agreementFingerprintBefore } = await import("@/bench/lib/scale-baseline.ts");
  const fp = { before: [] as number[], after: [] as number[] };
  for (let i = 0; i < ITER + 2; i++) {
    const into = i < 2 ? { before: [] as number[], after: [] as number[] } : fp;
    const runs = [
      () => timed(into.before, () => agreementFingerprintBefore(f, client)),
      () => timed(into.after, () => agreementFingerprint(f, client)),
    ];
    for (const run of i % 2 ? runs.reverse() : runs) await run();
  }
  const ratio = pct(fp.before, 0.5) / pct(fp.after, 0.5);
  say(`\n| the page's fingerprint, ${fmt(items)} items, ${ITER} rounds | p50 ms | p95 ms |\n|---|---:|---:|`);
  say(
    `| before 028: a probe of each item's current entry | ${pct(fp.before, 0.5).toFixed(1)} | ${pct(fp.before, 0.95).toFixed(1)} |`,
  );
  say(
    `| after: the runs' counts of superseding entries | ${pct(fp.after, 0.5).toFixed(1)} | ${pct(fp.after, 0.95).toFixed(1)} |`,
  );
  say(`(${ratio.toFixed(1)}× faster at p50; ${load()})`);
  await client.$disconnect();
  await database.stop();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
