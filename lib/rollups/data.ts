// Reads of the per-step rollups (O(steps) rows per run) for charts and monitors, and the same figures recomputed
// from the ledger itself (O(entries)), which the tests compare them with (lib/rollups/compare.ts).
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";
import { db } from "@/lib/db/client.ts";
import { GUARDRAIL_CODES } from "@/lib/verifier/codes.ts";
import { FLAT_STD, GROUP_STD_SQL, type GuardrailCounters, type StepCounts } from "@/lib/ledger/store/rollups.ts";
import { SUCCESS_THRESHOLD } from "@/lib/stats/agreement.ts";
import { TRAINED_REWARD_TOLERANCE } from "@/lib/stats/trained-reward.ts";

export type { GuardrailCounters };

export type StepRollupCounters = { step: number } & StepCounts & {
    groups: number;
    flatGroups: number;
    groupStdSum: number;
    /** Triggered guardrails of the step, by code (codes that never triggered are absent). */
    guardrails: Record<string, GuardrailCounters>;
  };

/** The run's rollups in step order, optionally within [from, to]. Steps whose entries were all superseded away
 * keep a row of zeros. */
export async function listStepRollups(
  runId: string,
  range: { from?: number; to?: number } = {},
  client: PrismaClient = db(),
): Promise<StepRollupCounters[]> {
  const where = { runId, step: { gte: range.from ?? 0, lte: range.to ?? 2147483647 } };
  const [steps, guardrails] = await Promise.all([
    client.stepRollup.findMany({ where, orderBy: { step: "asc" } }),
    client.stepGuardrailRollup.findMany({ where, orderBy: [{ step: "asc" }, { code: "asc" }] }),
  ]);
  const byStep = new Map<number, Record<string, GuardrailCounters>>();
  for (const g of guardrails) {
    if (g.hits === 0 && g.deciding === 0) continue;
    let m = byStep.get(g.step);
    if (!m) byStep.set(g.step, (m = {}));
    m[g.code] = { hits: g.hits, deciding: g.deciding, removedSum: g.removedSum };
  }
  return steps.map((s) => {
    const row: Omit<typeof s, "runId"> & { runId?: string } = { ...s };
    delete row.runId;
    return { ...row, guardrails: byStep.get(s.step) ?? {} };
  });
}

/** Per-step hit counts of one guardrail (e.g. missing_evidence, unauthorized_write) for a chart line. */
export async function listGuardrailSeries(
  runId: string,
  code: string,
  client: PrismaClient = db(),
): Promise<{ step: number; hits: number; deciding: number; removedSum: number; rollouts: number }[]> {
  const rows = await client.$queryRaw<
    { step: number; hits: number; deciding: number; removed_sum: number; rollouts: number }[]
  >`
    select s.step, coalesce(g.hits, 0) as hits, coalesce(g.deciding, 0) as deciding,
           coalesce(g.removed_sum, 0) as removed_sum, s.rollouts
      from step_rollups s
      left join step_guardrail_rollups g on g.run_id = s.run_id and g.step = s.step and g.code = ${code}
     where s.run_id = ${runId}
     order by s.step`;
  return rows.map((r) => ({
    step: r.step,
    hits: r.hits,
    deciding: r.deciding,
    removedSum: r.removed_sum,
    rollouts: r.rollouts,
  }));
}

/**
 * The same counters computed from scratch over the run's current ledger entries: the reference the incremental
 * rollups must equal (up to float rounding in the sums). Scans the run; not for pages.
 */
export async function computeStepRollupsFromLedger(
  runId: string,
  client: PrismaClient = db(),
): Promise<StepRollupCounters[]> {
  const steps = await client.$queryRawUnsafe<Record<string, number>[]>(
    `with cur as (select * from ledger where run_id = $1 and is_current),
          grp as (select step, group_id, count(*)::int as n, sum(reward) as reward_sum, sum(reward * reward) as reward_sumsq
                    from cur where reward is not null and group_id is not null group by step, group_id),
          spread as (select step, count(*) filter (where g.n >= 2)::int as groups,
                            count(*) filter (where g.n >= 2 and ${GROUP_STD_SQL} < ${FLAT_STD})::int as flat_groups,
                            coalesce(sum(${GROUP_STD_SQL}) filter (where g.n >= 2), 0) as group_std_sum
                       from grp g group by step)
     select c.step, count(*)::int as rollouts, count(reward)::int as rewarded,
            coalesce(sum(reward), 0) as reward_sum, coalesce(sum(reward * reward), 0) as reward_sumsq,
            count(*) filter (where reward >= ${SUCCESS_THRESHOLD})::int as success,
            count(*) filter (where handoff)::int as handoffs,
            count(*) filter (where guardrail_mask <> 0)::int as guardrail_hits,
            count(*) filter (where capped)::int as capped,
            coalesce(sum(raw_reward - reward) filter (where capped), 0) as removed_sum,
            count(*) filter (where status = 'spec_error')::int as spec_errors,
            count(*) filter (where status = 'input_error')::int as input_errors,
            count(*) filter (where source = 'external')::int as external,
            coalesce(max(s.groups), 0)::int as groups, coalesce(max(s.flat_groups), 0)::int as flat_groups,
            coalesce(max(s.group_std_sum), 0) as group_std_sum,
            count(*) filter (where trained_reward is not null and reward is not null)::int as trained,
            count(*) filter (where abs(trained_reward - reward) > ${TRAINED_REWARD_TOLERANCE})::int as trained_differs,
            coalesce(sum(abs(trained_reward - reward)), 0) as trained_abs_diff_sum
       from cur c left join spread s on s.step = c.step
      group by c.step order by c.step`,
    runId,
  );
  const hits = await client.$queryRawUnsafe<
    { step: number; code: string; hits: number; deciding: number; removed_sum: number }[]
  >(
    `select l.step, g.code, count(*)::int as hits, count(*) filter (where l.deciding_guardrail = g.code)::int as deciding,
            coalesce(sum(l.raw_reward - l.reward) filter (where l.deciding_guardrail = g.code and l.capped), 0) as removed_sum
       from ledger l cross join lateral unnest($2::text[]) with ordinality as g(code, i)
      where l.run_id = $1 and l.is_current and (l.guardrail_mask & (1 << (g.i::int - 1))) <> 0
      group by l.step, g.code`,
    runId,
    [...GUARDRAIL_CODES],
  );
  const byStep = new Map<number, Record<string, GuardrailCounters>>();
  for (const h of hits) {
    let m = byStep.get(h.step);
    if (!m) byStep.set(h.step, (m = {}));
    m[h.code] = { hits: h.hits, deciding: h.deciding, removedSum: h.removed_sum };
  }
  return steps.map((s) => ({
    step: s.step,
    rollouts: s.rollouts,
    rewarded: s.rewarded,
    rewardSum: s.reward_sum,
    rewardSumsq: s.reward_sumsq,
    success: s.success,
    handoffs: s.handoffs,
    guardrailHits: s.guardrail_hits,
    capped: s.capped,
    removedSum: s.removed_sum,
    specErrors: s.spec_errors,
    inputErrors: s.input_errors,
    external: s.external,
    groups: s.groups,
    flatGroups: s.flat_groups,
    groupStdSum: s.group_std_sum,
    trained: s.trained,
    trainedDiffers: s.trained_differs,
    trainedAbsDiffSum: s.trained_abs_diff_sum,
    guardrails: byStep.get(s.step) ?? {},
  }));
}
