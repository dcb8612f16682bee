// Reads of the training monitors. Chart and alarm reads are O(steps) over the rollups (never the ledger); the shadow
// audit read is O(reviews of the run), a ~1% sample. Typed raw SQL where Prisma cannot express the query.
import { listCaseSlots } from "@/lib/agreement/case-slots.ts";
import { db, type Db } from "@/lib/db/client.ts";
import type { Claims } from "@/lib/stats/extraction-accuracy.ts";
import type { AlarmState } from "@/lib/stats/alarms.ts";
import type { StepRollupCounters } from "@/lib/rollups/data.ts";
import { AuditWindows, auditStepsOf, type AuditPair, type AuditSteps } from "@/lib/monitors/audit.ts";
import type { OrderingJudgement } from "@/lib/monitors/ordering.ts";
import { ledgerOrder } from "@/lib/ledger/order.ts";
import { bucketWidthFor } from "@/lib/monitors/buckets.ts";
import type { AlarmStepRow, PersistedAlarm } from "@/lib/monitors/alarm-state.ts";
import { ALARMS, type AlarmKey } from "@/lib/monitors/rules.ts";
import { resolveThresholds, type Thresholds } from "@/lib/monitors/schema.ts";

export type StepRange = { from?: number; to?: number };
const MAX_STEP = 2147483647;

/** An alarm step row's fields, in the order the query below builds each row's array. */
const ALARM_STEP_FIELDS = [
  "step",
  "rollouts",
  "handoffs",
  "guardrailHits",
  "groups",
  "groupStdSum",
  "rewarded",
  "rewardSum",
  "trained",
  "trainedDiffers",
  "trainedAbsDiffSum",
] as const satisfies readonly (keyof AlarmStepRow)[];

/**
 * The rollup counters the alarms read, for a whole run, in step order (one indexed range scan of step_rollups). The
 * rows come back as one JSON array of arrays: per-row decoding in the driver costs more than the query itself once
 * a run logs thousands of steps.
 */
export async function listAlarmStepRows(runId: string, client: Db = db()): Promise<AlarmStepRow[]> {
  const [r] = await client.$queryRaw<{ rows: number[][] }[]>`
    select coalesce(json_agg(json_build_array(step, rollouts, handoffs, guardrail_hits, groups, group_std_sum, rewarded, reward_sum,
                                              trained, trained_differs, trained_abs_diff_sum) order by step), '[]') as rows
      from step_rollups where run_id = ${runId}`;
  return r.rows.map((row) => {
    const out = {} as AlarmStepRow;
    ALARM_STEP_FIELDS.forEach((k, i) => (out[k] = row[i]));
    return out;
  });
}

type AuditRow = {
  item_id: bigint;
  step: number;
  ledger_reward: number | null;
  human_reward: number;
  tolerance: number;
  ledger_claims: Claims | null;
  human_claims: Claims | null;
};

/** Items per statement of forEachAuditPair: a chunk's pairs with their claims are a few MB. */
const AUDIT_CHUNK_ITEMS = 2000;

/**
 * Current shadow reviews of a run (no later review supersedes them) next to the ledger entry each was compared with,
 * with the claim slots the annotator was shown (listCaseSlots, the read the agreement report uses), handed to `each`
 * in chunks of items (item id order; an item's reviews together, in review order). An item's first current review is
 * its primary one. Starts from the run's batches, so it reads only the run's reviews. A run's reviews with their
 * claims are hundreds of MB at 100,000 reviews; a chunk is a few MB, dropped once `each` has returned.
 */
export async function forEachAuditPair(
  runId: string,
  range: StepRange,
  each: (pairs: AuditPair[]) => void,
  client: Db = db(),
  chunkItems = AUDIT_CHUNK_ITEMS,
): Promise<void> {
  const [{ ids }] = await client.$queryRaw<{ ids: bigint[] | null }[]>`
    select array_agg(i.id order by i.id) as ids
      from audit_batches b join audit_items i on i.batch_id = b.id
     where b.run_id = ${runId} and exists (select 1 from reviews r where r.item_id = i.id)`;
  const all = ids ?? [];
  for (let at = 0; at < all.length; at += chunkItems) {
    const chunk = all.slice(at, at + chunkItems);
    const [rows, slots] = await Promise.all([
      // The reviews first, then their entries in the run: on Citus (docs/scale.md) the audit tables stay on the
      // coordinator, where the reviews' own conditions are met, and the run's entries are one worker's.
      client.$queryRaw<AuditRow[]>`
        with ir as materialized (
          select i.id as item_id, i.ledger_id, r.id as review_id, r.reward as human_reward, b.tolerance,
                 r.claims as human_claims
            from audit_items i
            join audit_batches b on b.id = i.batch_id
            join reviews r on r.item_id = i.id
           where i.id = any(${chunk}::bigint[]) and i.run_id = ${runId}
             and not exists (select 1 from reviews s where s.supersedes_id = r.id)
             and r.excluded_reason is null) -- only blind reviews count (lib/review/blind.ts)
        select ir.item_id, l.step, l.reward as ledger_reward, ir.human_reward, ir.tolerance,
               l.claims as ledger_claims, ir.human_claims
          from ir join ledger l on l.run_id = ${runId} and l.id = ir.ledger_id
         where l.step between ${range.from ?? 0} and ${range.to ?? MAX_STEP}
         order by ir.item_id, ir.review_id`,
      listCaseSlots(chunk, client, runId),
    ]);
    let previous: bigint | null = null;
    each(
      rows.map((r) => {
        // Rows of one item are adjacent and in review order (one item, one ledger entry, one step).
        const primary = r.item_id !== previous;
        previous = r.item_id;
        return {
          itemId: r.item_id,
          primary,
          step: r.step,
          ledgerReward: r.ledger_reward,
          humanReward: r.human_reward,
          tolerance: r.tolerance,
          ledgerClaims: r.ledger_claims,
          humanClaims: r.human_claims,
          slots: slots.get(r.item_id) ?? { writeTools: [] },
        };
      }),
    );
  }
}

/** forEachAuditPair's pairs all at once, in step order (then item, then review). */
export async function listAuditPairs(runId: string, range: StepRange = {}, client: Db = db()): Promise<AuditPair[]> {
  const out: AuditPair[] = [];
  await forEachAuditPair(runId, range, (pairs) => out.push(...pairs), client);
  return out.sort((a, b) => a.step - b.step || (a.itemId < b.itemId ? -1 : a.itemId > b.itemId ? 1 : 0));
}

/** The run's reviews with a step in [range] pooled per step, read in chunks (forEachAuditPair). */
export async function readAuditSteps(
  runId: string,
  range: StepRange = {},
  client: Db = db(),
  chunkItems = AUDIT_CHUNK_ITEMS,
): Promise<AuditSteps> {
  const perStep = new AuditWindows(1);
  await forEachAuditPair(runId, range, (pairs) => pairs.forEach((p) => perStep.add(p)), client, chunkItems);
  return auditStepsOf(perStep);
}

type JudgedItem = {
  ledger_id: bigint;
  ledger_b_id: bigint | null;
  b_on_left: boolean;
  preferred: string | null;
  inclusion_prob: number;
};

/**
 * The run's judged pairs, each once through its first current judgement that counts (not superseded, not excluded:
 * lib/review/blind.ts), as the pairwise report counts them (the further judgements of overlap pairs are for
 * agreement between annotators), against the ledger's order of the pair, in step order. O(pair reviews of the run).
 * Two statements: the items' judgements from the audit tables, then (when there are any) their entries in the run.
 * On Citus (docs/scale.md) the audit tables stay on the coordinator and the run's entries are one worker's: joined
 * in one statement, the judgements were planned apart and sent to the worker first, 10–20 ms more per run page even
 * for a run without pairs; apart, the entries are one statement on the run's shard, and a run without pairs reads
 * no entries at all.
 */
export async function listOrderingJudgements(runId: string, client: Db = db()): Promise<OrderingJudgement[]> {
  const items = await client.$queryRaw<JudgedItem[]>`
    select distinct on (i.id) i.ledger_id, i.ledger_b_id, i.b_on_left, i.inclusion_prob,
           r.preferred_trajectory_id as preferred
      from audit_batches ab
      join audit_items i on i.batch_id = ab.id
      join pair_reviews r on r.item_id = i.id
     where ab.run_id = ${runId} and ab.kind = 'pairwise' and i.run_id = ${runId}
       and not exists (select 1 from pair_reviews s where s.supersedes_id = r.id)
       and r.excluded_reason is null
     order by i.id, r.id`;
  if (items.length === 0) return [];
  const ids = [...new Set(items.flatMap((i) => [i.ledger_id, i.ledger_b_id]).filter((id) => id !== null))];
  const entries = await client.$queryRaw<{ id: bigint; step: number; trajectory_id: string; reward: number | null }[]>`
    select l.id, l.step, l.trajectory_id, l.reward from ledger l where l.run_id = ${runId} and l.id = any(${ids})`;
  const byId = new Map(entries.map((e) => [e.id, e]));
  const judged = items.flatMap((i) => {
    const a = byId.get(i.ledger_id);
    const b = i.ledger_b_id === null ? undefined : byId.get(i.ledger_b_id);
    return a && b ? [{ i, a, b }] : [];
  });
  // Stable: pairs of one step stay in item order.
  judged.sort((x, y) => x.a.step - y.a.step);
  return judged.map(({ i, a, b }) => {
    const left = i.b_on_left ? b.trajectory_id : a.trajectory_id;
    return {
      step: a.step,
      verdict: ledgerOrder(
        { trajectoryId: a.trajectory_id, reward: a.reward },
        { trajectoryId: b.trajectory_id, reward: b.reward },
        i.preferred,
      ).verdict,
      side: i.preferred === null ? "tie" : i.preferred === left ? "left" : "right",
      inclusionProb: i.inclusion_prob,
    };
  });
}

/**
 * A summary of what a run's alarms and its gate read: its rollups (row count, last step, and the sums that any
 * ingest, re-score or trained-reward record changes) and its current reviews (count, newest id), plus its stored thresholds. An unchanged summary
 * means an evaluation would conclude the same, so reads can skip it. O(steps + reviews) inside Postgres, no rows
 * transferred.
 */
export async function runFingerprints(runIds: readonly string[], client: Db = db()): Promise<Map<string, string>> {
  if (runIds.length === 0) return new Map();
  const rows = await client.$queryRaw<
    {
      id: string;
      rollups: string | null;
      reviews: string | null;
      pair_reviews: string | null;
      thresholds: string | null;
    }[]
  >`
    select r.id, r.thresholds::text as thresholds, coalesce(s.rollups, '0') as rollups,
           -- counted on insert (027, 040): reading the join of the run's items and reviews was O(its reviews)
           concat_ws(':', coalesce(k.review_count, 0), k.last_review_id) as reviews,
           concat_ws(':', coalesce(k.pair_review_count, 0), k.last_pair_review_id) as pair_reviews
      from runs r
      -- filtered by the runs asked for, as the rollups below: on Citus a join on r.id alone reads every shard
      left join (select * from run_counters where run_id = any(${[...runIds]}::text[])) k on k.run_id = r.id
      -- grouped and joined rather than a subquery per run: on Citus (docs/scale.md) the rollups are on the workers
      -- and runs is a reference table, beside which Citus plans no correlated subquery
      -- the float sums in step order: summed in the order of whichever plan read them (one run's index, every run's
      -- scan), their last digits differed, and a run read once alone and once with every run seemed changed
      left join (
        select s.run_id, concat_ws(':', count(*), max(step), sum(rollouts), sum(rewarded), sum(reward_sum order by step),
                                   sum(handoffs), sum(guardrail_hits), sum(success), sum(groups),
                                   sum(group_std_sum order by step), sum(trained), sum(trained_differs),
                                   sum(trained_abs_diff_sum order by step)) as rollups
          from step_rollups s where s.run_id = any(${[...runIds]}::text[]) group by s.run_id) s on s.run_id = r.id
     where r.id = any(${[...runIds]}::text[])`;
  return new Map(
    rows.map((r) => [r.id, `${r.rollups ?? ""}|${r.reviews ?? ""}|${r.pair_reviews ?? ""}|${r.thresholds ?? ""}`]),
  );
}

type AlarmRow = Omit<PersistedAlarm, "alarm"> & { alarm: string };

const isAlarmKey = (a: string): a is AlarmKey => (ALARMS as readonly string[]).includes(a);

/** Persisted alarm states of the given runs (all runs when omitted), by run then ALARMS order. */
export async function listPersistedAlarms(runIds?: readonly string[], client: Db = db()): Promise<PersistedAlarm[]> {
  const rows: AlarmRow[] = await client.monitorAlarm.findMany({
    where: runIds ? { runId: { in: [...runIds] } } : {},
    orderBy: [{ runId: "asc" }],
  });
  return rows
    .filter((r): r is AlarmRow & { alarm: AlarmKey } => isAlarmKey(r.alarm))
    .sort((a, b) =>
      a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : ALARMS.indexOf(a.alarm) - ALARMS.indexOf(b.alarm),
    );
}

export type AlarmEventRow = {
  id: bigint;
  runId: string;
  alarm: AlarmKey;
  fromState: AlarmState;
  toState: AlarmState;
  step: number | null;
  value: number | null;
  message: string;
  at: Date;
  webhook: string | null;
};

/** The latest alarm state changes, newest first (of one run, or of all), paged by id. */
export async function listAlarmEvents(
  opts: { runId?: string; limit?: number; beforeId?: bigint } = {},
  client: Db = db(),
): Promise<AlarmEventRow[]> {
  const rows = await client.monitorAlarmEvent.findMany({
    where: { ...(opts.runId ? { runId: opts.runId } : {}), ...(opts.beforeId ? { id: { lt: opts.beforeId } } : {}) },
    orderBy: { id: "desc" },
    take: opts.limit ?? 20,
  });
  return rows.filter((r): r is typeof r & { alarm: AlarmKey } => isAlarmKey(r.alarm));
}

/** A run's id, description and stored thresholds. */
export async function getRunThresholds(
  runId: string,
  client: Db = db(),
): Promise<{ id: string; description: string; thresholds: unknown } | null> {
  return client.run.findUnique({ where: { id: runId }, select: { id: true, description: true, thresholds: true } });
}

/** The thresholds in force for every run (stored overrides over the defaults), by run id. */
export async function listRunThresholds(client: Db = db()): Promise<Map<string, Thresholds>> {
  const rows = await client.run.findMany({ select: { id: true, thresholds: true } });
  return new Map(rows.map((r) => [r.id, resolveThresholds(r.thresholds).thresholds]));
}

/**
 * Distinct steps of the runs' rollups within [from, to] and the first and last of them: what decides the bucket
 * width of a chart. One index range scan per run.
 */
export async function countSteps(
  runIds: readonly string[],
  range: { from: number; to: number },
  client: Db = db(),
): Promise<{ count: number; first: number | null; last: number | null }> {
  const [r] = await client.$queryRaw<{ count: number; first: number | null; last: number | null }[]>`
    select count(distinct step)::int as count, min(step) as first, max(step) as last
      from step_rollups where run_id = any(${[...runIds]}::text[]) and step between ${range.from} and ${range.to}`;
  return r;
}

/**
 * A run's rollup counters within [from, to], pooled in Postgres into buckets [origin + k·width, origin + (k+1)·width)
 * labelled by their start (width 1: one row per step), with the per-guardrail counters of each bucket. Every counter
 * is a count or a sum, so the buckets are exact. Returns at most (to − from + 1) / width points however many steps
 * the run logged — a run that logs every one of 30,000 steps costs 400 points, not 30,000 — as one JSON value (see
 * listAlarmStepRows). lib/rollups' listStepRollups returns the same counters unbucketed; this is the charts' read.
 */
export async function listBucketedRollups(
  runId: string,
  range: { from: number; to: number },
  width: number,
  origin: number,
  client: Db = db(),
): Promise<StepRollupCounters[]> {
  const w = Math.max(1, Math.floor(width));
  // Steps and guardrails as two JSON arrays in one row; grouping the guardrails per bucket is left to Node (a second
  // aggregate in Postgres cost more than the loop below).
  const [r] = await client.$queryRaw<
    { steps: number[][] | null; guardrails: [number, string, number, number, number][] | null }[]
  >`
    with s as (
      select ${origin}::int + ((step - ${origin}::int) / ${w}::int) * ${w}::int as b,
             sum(rollouts) as rollouts, sum(rewarded) as rewarded, sum(reward_sum) as reward_sum, sum(reward_sumsq) as reward_sumsq,
             sum(success) as success, sum(handoffs) as handoffs, sum(guardrail_hits) as guardrail_hits, sum(capped) as capped,
             sum(removed_sum) as removed_sum, sum(spec_errors) as spec_errors, sum(input_errors) as input_errors,
             sum(external) as external, sum(groups) as groups, sum(flat_groups) as flat_groups, sum(group_std_sum) as group_std_sum,
             sum(trained) as trained, sum(trained_differs) as trained_differs, sum(trained_abs_diff_sum) as trained_abs_diff_sum
        from step_rollups where run_id = ${runId} and step between ${range.from} and ${range.to} group by 1),
    g as (
      select ${origin}::int + ((step - ${origin}::int) / ${w}::int) * ${w}::int as b, code,
             sum(hits) as hits, sum(deciding) as deciding, sum(removed_sum) as removed_sum
        from step_guardrail_rollups where run_id = ${runId} and step between ${range.from} and ${range.to}
       group by 1, 2 having sum(hits) > 0 or sum(deciding) > 0)
    select (select json_agg(json_build_array(b, rollouts, rewarded, reward_sum, reward_sumsq, success, handoffs, guardrail_hits, capped,
                                             removed_sum, spec_errors, input_errors, external, groups, flat_groups, group_std_sum,
                                             trained, trained_differs, trained_abs_diff_sum) order by b)
              from s) as steps,
           (select json_agg(json_build_array(b, code, hits, deciding, removed_sum)) from g) as guardrails`;
  const byBucket = new Map<number, StepRollupCounters["guardrails"]>();
  for (const [bucket, code, hits, deciding, removedSum] of r.guardrails ?? []) {
    let m = byBucket.get(bucket);
    if (!m) byBucket.set(bucket, (m = {}));
    m[code] = { hits, deciding, removedSum };
  }
  return (r.steps ?? []).map((n) => ({
    step: n[0],
    rollouts: n[1],
    rewarded: n[2],
    rewardSum: n[3],
    rewardSumsq: n[4],
    success: n[5],
    handoffs: n[6],
    guardrailHits: n[7],
    capped: n[8],
    removedSum: n[9],
    specErrors: n[10],
    inputErrors: n[11],
    external: n[12],
    groups: n[13],
    flatGroups: n[14],
    groupStdSum: n[15],
    trained: n[16],
    trainedDiffers: n[17],
    trainedAbsDiffSum: n[18],
    guardrails: byBucket.get(n[0]) ?? {},
  }));
}

/** Hit rate and hand-off rate of a whole run, pooled in Postgres into at most `maxPoints` buckets: the zoom brush. */
export async function listOverview(
  runId: string,
  maxPoints: number,
  client: Db = db(),
): Promise<{ step: number; stepTo: number; hitRate: number | null; handoffRate: number | null }[]> {
  const { count, first, last } = await countSteps([runId], { from: 0, to: MAX_STEP }, client);
  if (first === null || last === null) return [];
  const w = bucketWidthFor(count, first, last, maxPoints);
  const [r] = await client.$queryRaw<{ rows: [number, number, number, number][] }[]>`
    select coalesce(json_agg(json_build_array(b, n, hits, handoffs) order by b), '[]') as rows
      from (select ${first}::int + ((step - ${first}::int) / ${w}::int) * ${w}::int as b,
                   sum(rollouts) as n, sum(guardrail_hits) as hits, sum(handoffs) as handoffs
              from step_rollups where run_id = ${runId} group by 1) o`;
  return r.rows.map(([step, n, hits, handoffs]) => ({
    step,
    stepTo: Math.min(last, step + w - 1),
    hitRate: n > 0 ? hits / n : null,
    handoffRate: n > 0 ? handoffs / n : null,
  }));
}

/** Count and newest id of a run's reviews: reviews are append-only, so these two change whenever the audit data does.
 * Both are kept in the run's counters as reviews are written (027, 040); a run without reviews has none. */
export async function reviewFingerprint(runId: string, client: Db = db()): Promise<string> {
  const [r] = await client.$queryRaw<{ n: number; max: bigint | null }[]>`
    select review_count as n, last_review_id as max from run_counters where run_id = ${runId}`;
  return r ? `${r.n}:${r.max ?? ""}` : "0:";
}
