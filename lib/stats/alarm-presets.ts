// The monitors of domain.md as alarm rules, with the reference figures as defaults. Starting points: a run's
// configuration may override any field (the rule objects are plain data).

import type { BandRule, CeilingRule, FloorRule, RewardHackingRule } from "@/lib/stats/alarms.ts";

/** Hand-off rate alarm at 10% (the blind spot: hand-offs trigger no guardrail; 8% → 41% in 30k steps). */
export const HANDOFF_RATE_ALARM: CeilingRule = {
  kind: "ceiling",
  label: "hand-off rate",
  ceiling: 0.1,
  warnAt: 0.08,
  exitMargin: 0.01,
  enterAfter: 3,
  exitAfter: 3,
  minN: 30,
};

/** Guardrail hit rate healthy between 10% and 30%: below, guardrails are not working; above, caps flatten rewards. */
export const GUARDRAIL_HIT_RATE_ALARM: BandRule = {
  kind: "band",
  label: "guardrail hit rate",
  low: 0.1,
  high: 0.3,
  warnMargin: 0.02,
  exitMargin: 0.02,
  enterAfter: 3,
  exitAfter: 3,
  minN: 30,
};

/**
 * The least evidence a run needs before any of its alarms can leave green, counted over the whole run: rollouts, and
 * logged steps that hold any. A toy run (the ten worked examples, a 96-rollout import) can meet a step alarm's
 * per-step minimum a few times in a row and turn red on what is noise; below these every alarm of the run reads "not
 * judged" and stays green. The one statement of the numbers (README, "Training alarms", quotes them).
 */
export const MIN_RUN_EVIDENCE = { rollouts: 500, steps: 5 } as const;

/** The fewest reviews an audit window needs before its human figures count (the reward-hacking rules, the chart). */
export const MIN_WINDOW_REVIEWS = 5;
/** The fewest claim slots an audit window needs before its extraction accuracy counts (a review labels ~5 slots). */
export const MIN_WINDOW_SLOTS = 30;

/**
 * The fewest GRPO groups (with two or more rewarded rollouts) a step needs before the within-group std alarm judges
 * it. A mean over a handful of groups is noise: three groups that happen to be flat read 0 and would count towards
 * red, as would a step whose rollouts are still arriving. A step with fewer reads "not enough groups" and moves no
 * state. The one statement of the number (README, "Training alarms", quotes it).
 */
export const MIN_GROUPS_PER_STEP = 10;

/** Mean within-group reward std below 0.05: GRPO has (almost) no gradient. */
export const GROUP_STD_ALARM: FloorRule = {
  kind: "floor",
  label: "within-group reward std",
  format: "number",
  floor: 0.05,
  warnAt: 0.06,
  exitMargin: 0.005,
  enterAfter: 3,
  exitAfter: 3,
  minN: MIN_GROUPS_PER_STEP,
  minNUnit: "groups",
};

/**
 * Reward hacking: over 2,000 steps the ledger's mean reward rises by more than 1 point per 1k steps while human
 * agreement falls by more than 1 point per 1k steps.
 */
export const REWARD_HACKING_ALARM: RewardHackingRule = {
  kind: "reward-hacking",
  label: "reward hacking",
  format: "number",
  window: 2000,
  minSlope: 1e-5,
  maxHumanSlope: -1e-5,
  minPoints: 4,
  enterAfter: 2,
  exitAfter: 3,
  humanLabel: "human agreement",
};

/**
 * The trainer's reward against the ledger's: share of a step's entries (with both) whose trained reward differs by
 * more than 1e-6. The two should agree exactly — a mismatch means the trainer optimizes something other than what
 * the ledger records — so one step past 1% turns it red (enterAfter 1) and a single entry is enough to judge (minN 1).
 */
export const TRAINED_REWARD_MISMATCH_ALARM: CeilingRule = {
  kind: "ceiling",
  label: "trained-reward mismatch",
  ceiling: 0.01,
  warnAt: 0.005,
  exitMargin: 0.001,
  enterAfter: 1,
  exitAfter: 3,
  minN: 1,
};

/**
 * The fewest ordered pairwise judgements (agree + inversions; ties and pairs the ledger scores equal do not count) an
 * audit window needs before the ordering-agreement alarm judges it. Below it the lower bound says more about n than
 * about the reward: 15 judgements that all agree have a 95% Wilson lower bound of 0.80. The one statement of the
 * number (README, "Training alarms", quotes it).
 */
export const MIN_ORDERED_JUDGEMENTS = 30;

/**
 * Pairwise ordering agreement: the 95% Wilson lower bound of the share of a window's judgements that order a pair as
 * the ledger does must stay at or above 0.8 (GRPO consumes the order within a group, so inversions push the policy
 * the wrong way). Two windows below turn it red; a window with fewer than MIN_ORDERED_JUDGEMENTS reads "not enough".
 */
export const ORDERING_AGREEMENT_ALARM: FloorRule = {
  kind: "floor",
  label: "ordering agreement's 95% lower bound",
  format: "percent",
  floor: 0.8,
  warnAt: 0.85,
  exitMargin: 0.02,
  enterAfter: 2,
  exitAfter: 2,
  minN: MIN_ORDERED_JUDGEMENTS,
  minNUnit: "ordered judgements",
};
