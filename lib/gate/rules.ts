// The gate's rules in force for a run: the defaults come from the run's alarm thresholds (lib/monitors/schema.ts, the
// lines a lead sets on the run page), so the gate and the monitors draw the same lines; a rules file overrides any
// field or turns a rule off. Pure.
import { REWARD_HACKING_ALARM } from "@/lib/stats/alarm-presets.ts";
import type { Thresholds } from "@/lib/monitors/schema.ts";
import { GATE_RULES, type GateRuleKey, type GateRulesFile } from "@/lib/gate/schema.ts";

/** The lower bound of the 95% agreement interval must reach this (the domain's healthy audit is 88% agreement). */
export const DEFAULT_AGREEMENT_FLOOR = 0.8;
/** Reviews, rollouts or claim slots below which a rate rule has not enough evidence (the monitors' 30). */
export const DEFAULT_MIN_N = 30;
/** Reviews an audit window needs before its corrected success counts (the reward-hacking alarm's 5). */
export const HACKING_MIN_REVIEWS = 5;

export type GateRules = {
  /** Steps the gate looks back from the run's last step: the default is the run's reward-hacking window. */
  windowSteps: number;
  hit_rate: { low: number; high: number; min_rollouts: number } | null;
  handoff: { ceiling: number; min_rollouts: number } | null;
  agreement: { floor: number; min_reviews: number } | null;
  extraction: { floor: number; min_slots: number } | null;
  trained_mismatch: { ceiling: number; min_rollouts: number } | null;
  /** rise: ledger success slope per 1,000 steps that counts as rising. */
  reward_hacking: { rise: number; audit_window: number; min_windows: number; min_reviews: number } | null;
};

export const GATE_LABELS: Record<GateRuleKey, string> = {
  hit_rate: "Guardrail hit rate",
  handoff: "Hand-off rate",
  agreement: "Shadow agreement",
  extraction: "Extraction accuracy",
  trained_mismatch: "Trained-reward mismatch",
  reward_hacking: "Reward hacking",
};

/**
 * The default rules of a run with these thresholds. The trained-reward rule is left out for a run none of whose
 * rollouts carries a trained reward (`hasTrainedRewards` false): it could never have evidence there, and a trainer
 * that does not log its own reward must still be able to pass.
 */
export function defaultGateRules(t: Thresholds, opts: { hasTrainedRewards: boolean }): GateRules {
  return {
    windowSteps: t.hackingWindow,
    hit_rate: { low: t.hitRateLow, high: t.hitRateHigh, min_rollouts: DEFAULT_MIN_N },
    handoff: { ceiling: t.handoffCeiling, min_rollouts: DEFAULT_MIN_N },
    agreement: { floor: DEFAULT_AGREEMENT_FLOOR, min_reviews: DEFAULT_MIN_N },
    extraction: { floor: t.extractionFloor, min_slots: DEFAULT_MIN_N },
    trained_mismatch: opts.hasTrainedRewards ? { ceiling: t.trainedMismatchCeiling, min_rollouts: 1 } : null,
    reward_hacking: {
      rise: t.hackingRise,
      audit_window: t.auditWindow,
      min_windows: REWARD_HACKING_ALARM.minPoints ?? 4,
      min_reviews: HACKING_MIN_REVIEWS,
    },
  };
}

/**
 * The rules in force: the file's fields over the defaults; `false` turns a rule off; a rule the file names that the
 * defaults left out (trained_mismatch on a run without trained rewards) is built from the thresholds' line.
 */
export function resolveGateRules(
  t: Thresholds,
  opts: { hasTrainedRewards: boolean },
  file: GateRulesFile | null = null,
): GateRules {
  const defaults = defaultGateRules(t, opts);
  const full = defaultGateRules(t, { hasTrainedRewards: true });
  const out: GateRules = { ...defaults, windowSteps: file?.window_steps ?? defaults.windowSteps };
  for (const key of GATE_RULES) {
    const given = file?.rules?.[key];
    if (given === undefined) continue;
    // Each key's value has that key's shape; TypeScript cannot follow the correlation through the loop.
    (out as Record<GateRuleKey, unknown>)[key] = given === false ? null : { ...(defaults[key] ?? full[key]), ...given };
  }
  return out;
}
