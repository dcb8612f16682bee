// The alarms of a run: each a rule of lib/stats/alarms.ts built from the presets with the run's thresholds, and the
// series it reads. Pure.
import { createHash } from "node:crypto";
import {
  GROUP_STD_ALARM,
  GUARDRAIL_HIT_RATE_ALARM,
  HANDOFF_RATE_ALARM,
  MIN_WINDOW_REVIEWS,
  MIN_WINDOW_SLOTS,
  ORDERING_AGREEMENT_ALARM,
  REWARD_HACKING_ALARM,
  TRAINED_REWARD_MISMATCH_ALARM,
} from "@/lib/stats/alarm-presets.ts";
import type { AlarmRule, BandRule, CeilingRule, FloorRule, RewardHackingRule } from "@/lib/stats/alarms.ts";
import type { Thresholds } from "@/lib/monitors/schema.ts";

export const ALARMS = [
  "hit_rate",
  "handoff",
  "group_std",
  "extraction",
  "hacking_agreement",
  "hacking_success",
  "trained_mismatch",
  "ordering",
] as const;
export type AlarmKey = (typeof ALARMS)[number];

/** What the Monitors page and the webhook call each alarm. */
export const ALARM_LABELS: Record<AlarmKey, string> = {
  hit_rate: "Guardrail hit rate",
  handoff: "Hand-off rate",
  group_std: "Within-group reward std",
  extraction: "Extraction accuracy",
  hacking_agreement: "Reward hacking (shadow agreement)",
  hacking_success: "Reward hacking (human success)",
  trained_mismatch: "Trained-reward mismatch",
  ordering: "Ordering agreement (pairwise)",
};

/** Which series each alarm reads: per step from the rollups, or per audit window from the shadow reviews. */
export const ALARM_SOURCES: Record<AlarmKey, "steps" | "audit"> = {
  hit_rate: "steps",
  handoff: "steps",
  group_std: "steps",
  extraction: "audit",
  hacking_agreement: "audit",
  hacking_success: "audit",
  trained_mismatch: "steps",
  ordering: "audit",
};

export type AlarmRules = {
  hit_rate: BandRule;
  handoff: CeilingRule;
  group_std: FloorRule;
  extraction: FloorRule;
  hacking_agreement: RewardHackingRule;
  hacking_success: RewardHackingRule;
  trained_mismatch: CeilingRule;
  ordering: FloorRule;
};

/**
 * The rules for a run's thresholds. Warning lines keep the presets' distance from the alarm line, scaled: the hand-off
 * warning sits at 80% of the ceiling, the std warning at 120% of the floor. A window of human points needs at least
 * five reviews (a 1% sample gives thin windows; fewer is noise, not a trend).
 */
// Derived lines are rounded to 12 significant digits: 0.8 × 0.1 is 0.08000000000000002 in floating point.
const r12 = (x: number) => Number(x.toPrecision(12));

export function alarmRules(t: Thresholds): AlarmRules {
  const hacking = (humanLabel: string): RewardHackingRule => ({
    ...REWARD_HACKING_ALARM,
    window: t.hackingWindow,
    minSlope: r12(t.hackingRise / 1000),
    maxHumanSlope: r12(-t.hackingFall / 1000),
    humanLabel,
    minN: MIN_WINDOW_REVIEWS,
  });
  return {
    hit_rate: {
      ...GUARDRAIL_HIT_RATE_ALARM,
      low: t.hitRateLow,
      high: t.hitRateHigh,
      warnMargin: r12(0.1 * (t.hitRateHigh - t.hitRateLow)),
      exitMargin: r12(0.1 * (t.hitRateHigh - t.hitRateLow)),
    },
    handoff: {
      ...HANDOFF_RATE_ALARM,
      ceiling: t.handoffCeiling,
      warnAt: r12(0.8 * t.handoffCeiling),
      exitMargin: r12(0.1 * t.handoffCeiling),
    },
    group_std: {
      ...GROUP_STD_ALARM,
      floor: t.groupStdFloor,
      warnAt: r12(1.2 * t.groupStdFloor),
      exitMargin: r12(0.1 * t.groupStdFloor),
    },
    extraction: {
      kind: "floor",
      label: "extraction accuracy",
      format: "percent",
      floor: t.extractionFloor,
      warnAt: r12(Math.min(1, t.extractionFloor + 0.03)),
      exitMargin: 0.01,
      enterAfter: 2,
      exitAfter: 2,
      // Claim slots, not reviews: a review labels ~5 slots, so 30 slots is about six reviews.
      minN: MIN_WINDOW_SLOTS,
    },
    hacking_agreement: hacking("shadow agreement"),
    hacking_success: hacking("human-measured success"),
    trained_mismatch: {
      ...TRAINED_REWARD_MISMATCH_ALARM,
      ceiling: t.trainedMismatchCeiling,
      warnAt: r12(0.5 * t.trainedMismatchCeiling),
      exitMargin: r12(0.1 * t.trainedMismatchCeiling),
    },
    ordering: {
      ...ORDERING_AGREEMENT_ALARM,
      floor: t.orderingFloor,
      warnAt: r12(Math.min(1, t.orderingFloor + 0.05)),
    },
  };
}

/** A short stable hash of a rule (what the persisted state was evaluated with). */
export function ruleHash(rule: AlarmRule): string {
  const sorted = Object.fromEntries(Object.entries(rule).sort(([a], [b]) => (a < b ? -1 : 1)));
  return createHash("sha256").update(JSON.stringify(sorted)).digest("hex").slice(0, 16);
}
