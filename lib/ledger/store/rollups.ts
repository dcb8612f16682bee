// Keeps step_rollups, step_guardrail_rollups and group_rollups current. Writers of the ledger collect the entries
// they add (+1) and the entries they supersede (-1) in a RollupDelta and apply it inside their own transaction, so
// a rollup never disagrees with the committed ledger. Upserts go in key order: two writers touching the same
// steps lock the rows in the same order and cannot deadlock.
import type pg from "pg";
import { codesOfMask } from "@/lib/verifier/guardrail-mask.ts";
import { SUCCESS_THRESHOLD } from "@/lib/stats/agreement.ts";
import { trainedRewardGap } from "@/lib/stats/trained-reward.ts";

/** What a rollup needs to know about one ledger entry. */
export type RollupEntry = {
  run_id: string;
  step: number;
  group_id: string | null;
  status: string;
  source: string;
  reward: number | null;
  raw_reward: number | null;
  capped: boolean;
  handoff: boolean | null;
  guardrail_mask: number;
  deciding_guardrail: string | null;
  /** The trainer's own reward (ledger.trained_reward). */
  trained_reward: number | null;
};

/** What a step's rollup counts of its entries (step_rollups' columns but the group figures). */
export type StepCounts = {
  rollouts: number;
  rewarded: number;
  rewardSum: number;
  rewardSumsq: number;
  success: number;
  handoffs: number;
  guardrailHits: number;
  capped: number;
  removedSum: number;
  specErrors: number;
  inputErrors: number;
  external: number;
  /** Entries with a trained reward and a ledger reward; those differing by more than 1e-6; Σ |trained − reward|. */
  trained: number;
  trainedDiffers: number;
  trainedAbsDiffSum: number;
};
export type GuardrailCounters = { hits: number; deciding: number; removedSum: number };
type GroupAcc = { n: number; rewardSum: number; rewardSumsq: number };

const SEP = "\u0000";

/**
 * Population standard deviation of a group's rewards from its moments, sqrt(E[r²] − E[r]²), clamped at 0 against
 * rounding (sums of floats make a flat group's variance a tiny ±1e-17 instead of 0).
 */
export const GROUP_STD_SQL = "sqrt(greatest(g.reward_sumsq / g.n - (g.reward_sum / g.n) ^ 2, 0))";
/** A group whose rewards spread less than this has no GRPO gradient (rewards are rounded to 1e-6). */
export const FLAT_STD = "1e-6";
const FLAT_STD_VALUE = 1e-6;

/** The reward a cap took away: raw_reward − reward on a capped entry, else 0. */
export function removedReward(e: Pick<RollupEntry, "capped" | "reward" | "raw_reward">): number {
  return e.capped && e.reward !== null && e.raw_reward !== null ? e.raw_reward - e.reward : 0;
}

export class RollupDelta {
  readonly steps = new Map<string, StepCounts>();
  readonly guardrails = new Map<string, GuardrailCounters>();
  readonly groups = new Map<string, GroupAcc>();

  /** Counts an entry in (+1) or out (−1) of the current ledger. */
  add(e: RollupEntry, sign: 1 | -1): void {
    const sk = `${e.run_id}${SEP}${e.step}`;
    let s = this.steps.get(sk);
    if (!s) {
      s = {
        rollouts: 0,
        rewarded: 0,
        rewardSum: 0,
        rewardSumsq: 0,
        success: 0,
        handoffs: 0,
        guardrailHits: 0,
        capped: 0,
        removedSum: 0,
        specErrors: 0,
        inputErrors: 0,
        external: 0,
        trained: 0,
        trainedDiffers: 0,
        trainedAbsDiffSum: 0,
      };
      this.steps.set(sk, s);
    }
    const removed = removedReward(e);
    s.rollouts += sign;
    if (e.reward !== null) {
      s.rewarded += sign;
      s.rewardSum += sign * e.reward;
      s.rewardSumsq += sign * e.reward * e.reward;
      if (e.reward >= SUCCESS_THRESHOLD) s.success += sign;
    }
    if (e.handoff) s.handoffs += sign;
    if (e.guardrail_mask !== 0) s.guardrailHits += sign;
    if (e.capped) s.capped += sign;
    s.removedSum += sign * removed;
    if (e.status === "spec_error") s.specErrors += sign;
    if (e.status === "input_error") s.inputErrors += sign;
    if (e.source === "external") s.external += sign;
    const gap = trainedRewardGap(e.trained_reward, e.reward);
    if (gap) {
      s.trained += sign;
      if (gap.differs) s.trainedDiffers += sign;
      s.trainedAbsDiffSum += sign * Math.abs(gap.difference);
    }

    for (const code of codesOfMask(e.guardrail_mask)) {
      const gk = `${sk}${SEP}${code}`;
      let g = this.guardrails.get(gk);
      if (!g) {
        g = { hits: 0, deciding: 0, removedSum: 0 };
        this.guardrails.set(gk, g);
      }
      g.hits += sign;
      if (code === e.deciding_guardrail) {
        g.deciding += sign;
        g.removedSum += sign * removed;
      }
    }

    if (e.group_id !== null && e.reward !== null) {
      const key = `${sk}${SEP}${e.group_id}`;
      let g = this.groups.get(key);
      if (!g) {
        g = { n: 0, rewardSum: 0, rewardSumsq: 0 };
        this.groups.set(key, g);
      }
      g.n += sign;
      g.rewardSum += sign * e.reward;
      g.rewardSumsq += sign * e.reward * e.reward;
    }
  }

  get isEmpty(): boolean {
    return this.steps.size === 0;
  }
}

function sortedEntries<T>(m: Map<string, T>): [string[], T][] {
  return [...m.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([k, v]) => [k.split(SEP), v]);
}

/** Population std of a group from its moments (same formula as GROUP_STD_SQL); null below two rewards. */
export function groupStd(n: number, sum: number, sumsq: number): number | null {
  if (n < 2) return null;
  const mean = sum / n;
  return Math.sqrt(Math.max(0, sumsq / n - mean * mean));
}

/**
 * Applies a delta in two round trips (and one that marks the transaction as the rollups' writer), inside the caller's
 * transaction. First the groups: `INSERT … SELECT FROM
 * unnest(…) ON CONFLICT DO UPDATE … RETURNING` gives each touched group's new moments; its old moments are the new
 * ones minus the delta, so the change of the step's group spread (groups with ≥ 2 rewards, flat ones, Σ std) is
 * known without reading other groups. Then steps and guardrails in one statement (two data-modifying CTEs).
 */
export async function applyRollupDelta(client: pg.PoolClient | pg.Client, delta: RollupDelta): Promise<void> {
  if (delta.isEmpty) return;
  // The rollup tables refuse any UPDATE or DELETE but their writer's (migration 034): this transaction is it. A SET
  // LOCAL statement rather than set_config(): on Citus it reaches the workers, where the shards' triggers read it.
  await client.query("set local verity.rollup_writer = 'on'");
  const spread = new Map<string, { groups: number; flat: number; std: number }>();
  if (delta.groups.size) {
    const g = sortedEntries(delta.groups);
    const { rows } = await client.query<{
      run_id: string;
      step: number;
      group_id: string;
      n: number;
      reward_sum: number;
      reward_sumsq: number;
    }>(
      `insert into group_rollups as t (run_id, step, group_id, n, reward_sum, reward_sumsq)
       select * from unnest($1::text[], $2::int[], $3::text[], $4::int[], $5::float8[], $6::float8[])
       on conflict (run_id, step, group_id) do update set
         n = t.n + excluded.n, reward_sum = t.reward_sum + excluded.reward_sum,
         reward_sumsq = t.reward_sumsq + excluded.reward_sumsq
       returning run_id, step, group_id, n, reward_sum, reward_sumsq`,
      [
        g.map(([k]) => k[0]),
        g.map(([k]) => Number(k[1])),
        g.map(([k]) => k[2]),
        g.map(([, v]) => v.n),
        g.map(([, v]) => v.rewardSum),
        g.map(([, v]) => v.rewardSumsq),
      ],
    );
    for (const r of rows) {
      const d = delta.groups.get(`${r.run_id}${SEP}${r.step}${SEP}${r.group_id}`)!;
      const after = groupStd(r.n, r.reward_sum, r.reward_sumsq);
      const before = groupStd(r.n - d.n, r.reward_sum - d.rewardSum, r.reward_sumsq - d.rewardSumsq);
      const key = `${r.run_id}${SEP}${r.step}`;
      const acc = spread.get(key) ?? { groups: 0, flat: 0, std: 0 };
      acc.groups += (after !== null ? 1 : 0) - (before !== null ? 1 : 0);
      acc.flat +=
        (after !== null && after < FLAT_STD_VALUE ? 1 : 0) - (before !== null && before < FLAT_STD_VALUE ? 1 : 0);
      acc.std += (after ?? 0) - (before ?? 0);
      spread.set(key, acc);
    }
  }
  const steps = sortedEntries(delta.steps);
  const g = sortedEntries(delta.guardrails);
  const sp = (k: string[]) => spread.get(`${k[0]}${SEP}${k[1]}`) ?? { groups: 0, flat: 0, std: 0 };
  await client.query(
    `with steps as (
       insert into step_rollups as t (run_id, step, rollouts, rewarded, reward_sum, reward_sumsq, success, handoffs,
                                      guardrail_hits, capped, removed_sum, spec_errors, input_errors, external,
                                      groups, flat_groups, group_std_sum, trained, trained_differs, trained_abs_diff_sum)
       select * from unnest($1::text[], $2::int[], $3::int[], $4::int[], $5::float8[], $6::float8[], $7::int[], $8::int[],
                            $9::int[], $10::int[], $11::float8[], $12::int[], $13::int[], $14::int[], $15::int[], $16::int[], $17::float8[],
                            $24::int[], $25::int[], $26::float8[])
       on conflict (run_id, step) do update set
         rollouts = t.rollouts + excluded.rollouts, rewarded = t.rewarded + excluded.rewarded,
         reward_sum = t.reward_sum + excluded.reward_sum, reward_sumsq = t.reward_sumsq + excluded.reward_sumsq,
         success = t.success + excluded.success, handoffs = t.handoffs + excluded.handoffs,
         guardrail_hits = t.guardrail_hits + excluded.guardrail_hits, capped = t.capped + excluded.capped,
         removed_sum = t.removed_sum + excluded.removed_sum, spec_errors = t.spec_errors + excluded.spec_errors,
         input_errors = t.input_errors + excluded.input_errors, external = t.external + excluded.external,
         groups = t.groups + excluded.groups, flat_groups = t.flat_groups + excluded.flat_groups,
         group_std_sum = t.group_std_sum + excluded.group_std_sum, trained = t.trained + excluded.trained,
         trained_differs = t.trained_differs + excluded.trained_differs,
         trained_abs_diff_sum = t.trained_abs_diff_sum + excluded.trained_abs_diff_sum
       returning 1),
     guardrails as (
       insert into step_guardrail_rollups as t (run_id, step, code, hits, deciding, removed_sum)
       select * from unnest($18::text[], $19::int[], $20::text[], $21::int[], $22::int[], $23::float8[])
       on conflict (run_id, step, code) do update set
         hits = t.hits + excluded.hits, deciding = t.deciding + excluded.deciding,
         removed_sum = t.removed_sum + excluded.removed_sum
       returning 1)
     select (select count(*) from steps) + (select count(*) from guardrails)`,
    [
      steps.map(([k]) => k[0]),
      steps.map(([k]) => Number(k[1])),
      steps.map(([, v]) => v.rollouts),
      steps.map(([, v]) => v.rewarded),
      steps.map(([, v]) => v.rewardSum),
      steps.map(([, v]) => v.rewardSumsq),
      steps.map(([, v]) => v.success),
      steps.map(([, v]) => v.handoffs),
      steps.map(([, v]) => v.guardrailHits),
      steps.map(([, v]) => v.capped),
      steps.map(([, v]) => v.removedSum),
      steps.map(([, v]) => v.specErrors),
      steps.map(([, v]) => v.inputErrors),
      steps.map(([, v]) => v.external),
      steps.map(([k]) => sp(k).groups),
      steps.map(([k]) => sp(k).flat),
      steps.map(([k]) => sp(k).std),
      g.map(([k]) => k[0]),
      g.map(([k]) => Number(k[1])),
      g.map(([k]) => k[2]),
      g.map(([, v]) => v.hits),
      g.map(([, v]) => v.deciding),
      g.map(([, v]) => v.removedSum),
      steps.map(([, v]) => v.trained),
      steps.map(([, v]) => v.trainedDiffers),
      steps.map(([, v]) => v.trainedAbsDiffSum),
    ],
  );
}
