// Per-step health figures from the rollup counters. Pure; each returns null when its denominator is zero (no data is
// not the same as 0%).
import type { StepRollupCounters } from "@/lib/rollups/data.ts";

/** n / d, or null when d = 0. Range [0, 1] for counts. */
export function ratio(n: number, d: number): number | null {
  return d > 0 ? n / d : null;
}

/** Mean reward Σr / n over entries with a reward. */
export function meanReward(s: Pick<StepRollupCounters, "rewardSum" | "rewarded">): number | null {
  return ratio(s.rewardSum, s.rewarded);
}

/**
 * Population standard deviation of the step's rewards, sqrt(Σr²/n − (Σr/n)²), clamped at 0 (float sums can make
 * a constant sample's variance −1e-17). Range [0, 0.5] for rewards in [0, 1].
 */
export function rewardStd(s: Pick<StepRollupCounters, "rewardSum" | "rewardSumsq" | "rewarded">): number | null {
  if (s.rewarded <= 0) return null;
  const mean = s.rewardSum / s.rewarded;
  return Math.sqrt(Math.max(0, s.rewardSumsq / s.rewarded - mean * mean));
}

export type StepHealth = {
  step: number;
  rollouts: number;
  meanReward: number | null;
  rewardStd: number | null;
  /** reward >= 0.9 among entries with a reward (pass@1). */
  successRate: number | null;
  /** Among all current entries. */
  handoffRate: number | null;
  guardrailHitRate: number | null;
  cappedRate: number | null;
  /** Mean reward removed by caps per rewarded entry. */
  removedPerRollout: number | null;
  /** Mean within-group reward standard deviation over GRPO groups with ≥ 2 rewards; GRPO's learning signal. */
  meanGroupStd: number | null;
  /** Share of those groups whose rewards are all equal (no gradient). */
  flatGroupRate: number | null;
  /** Per guardrail: share of current entries it triggered on. */
  guardrailRates: Record<string, number | null>;
};

export function stepHealth(s: StepRollupCounters): StepHealth {
  const guardrailRates: Record<string, number | null> = {};
  for (const [code, g] of Object.entries(s.guardrails)) guardrailRates[code] = ratio(g.hits, s.rollouts);
  return {
    step: s.step,
    rollouts: s.rollouts,
    meanReward: meanReward(s),
    rewardStd: rewardStd(s),
    successRate: ratio(s.success, s.rewarded),
    handoffRate: ratio(s.handoffs, s.rollouts),
    guardrailHitRate: ratio(s.guardrailHits, s.rollouts),
    cappedRate: ratio(s.capped, s.rewarded),
    removedPerRollout: ratio(s.removedSum, s.rewarded),
    meanGroupStd: ratio(s.groupStdSum, s.groups),
    flatGroupRate: ratio(s.flatGroups, s.groups),
    guardrailRates,
  };
}
