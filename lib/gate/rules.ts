// The gate's rules in force for a run: the defaults come from the run's alarm thresholds (lib/monitors/schema.ts, the
// lines a lead sets on the run page), so the gate and the monitors draw the same lines; a rules file overrides any
// field or turns a rule off. Pure.
//
// Each rule has a severity. A `stop` rule's failure fails the gate — the training loop should stop: the ledger pays
// for what humans do not (reward hacking), the human-checked agreement is not sure to reach its floor, or the trainer
// optimised a reward other than the ledger's. A `warn` rule is a training-health reading: out of its line it is a
// warning in the report and the gate still passes (docs/gate.md says why per rule).
import { MIN_ORDERED_JUDGEMENTS, REWARD_HACKING_ALARM } from "@/lib/stats/alarm-presets.ts";
import { MIN_N_FOR_RATE } from "@/lib/stats/small-sample.ts";
import { SIGNIFICANCE } from "@/lib/leaderboard/head-to-head.ts";
import type { Thresholds } from "@/lib/monitors/schema.ts";
import { GATE_RULES, type GateRuleKey, type GateRulesFile, type GateSeverity } from "@/lib/gate/schema.ts";

/**
 * The lower end of agreement's 95% interval must reach this. An audit as healthy as the reference project's (88%
 * agreement) clears 0.75 from about 50 reviewed items; a floor of 0.80 it would clear only from about 105, more than a
 * 1% sample of most windows holds, so a healthy run could not pass for want of reviews.
 */
export const DEFAULT_AGREEMENT_FLOOR = 0.75;
/** Rollouts below which a rate rule has not enough evidence (the monitors' 30). */
export const DEFAULT_MIN_N = 30;
/** Reviews an audit window needs before its corrected success counts (the reward-hacking alarm's 5). */
export const HACKING_MIN_REVIEWS = 5;
/** The reward-hacking trend is fitted on audit windows at least this fraction of the gate window wide. */
export const HACKING_WINDOWS_PER_GATE = 10;

type Severity = { severity: GateSeverity };
export type GateRules = {
  /** Steps the gate looks back from the run's last step: the default is the run's reward-hacking window. */
  windowSteps: number;
  hit_rate: ({ low: number; high: number; min_rollouts: number } & Severity) | null;
  handoff: ({ ceiling: number; min_rollouts: number } & Severity) | null;
  /** min_items: reviewed items (each once, through its primary review), as the agreement page counts them. */
  agreement: ({ floor: number; min_items: number } & Severity) | null;
  /** min_items: items whose claims are compared, as the agreement page's "too few to say" counts them. */
  extraction: ({ floor: number; min_items: number } & Severity) | null;
  trained_mismatch: ({ ceiling: number; min_rollouts: number } & Severity) | null;
  /** rise: ledger success slope per 1,000 steps that counts as rising. */
  reward_hacking: ({ rise: number; audit_window: number; min_windows: number; min_reviews: number } & Severity) | null;
  /** Pairwise ordering agreement's lower bound; min_judgements: judgements of pairs the ledger orders. */
  ordering: ({ floor: number; min_judgements: number } & Severity) | null;
  /**
   * Off unless a rules file names it: the ledger's reward must not be significantly worse (McNemar's exact p below
   * alpha) than the best reward function on the window's audited items; min_items: items both scored.
   */
  ledger_rank: ({ alpha: number; min_items: number } & Severity) | null;
};

export const GATE_LABELS: Record<GateRuleKey, string> = {
  hit_rate: "Guardrail hit rate",
  handoff: "Hand-off rate",
  agreement: "Shadow agreement",
  extraction: "Extraction accuracy",
  trained_mismatch: "Trained-reward mismatch",
  reward_hacking: "Reward hacking",
  ordering: "Ordering agreement (pairwise)",
  ledger_rank: "Ledger reward against the best candidate",
};

/** What each rule's failure means by default: stop training, or a health warning. */
export const DEFAULT_SEVERITY: Record<GateRuleKey, GateSeverity> = {
  hit_rate: "warn",
  handoff: "warn",
  agreement: "stop",
  extraction: "warn",
  trained_mismatch: "stop",
  reward_hacking: "stop",
  ordering: "stop",
  ledger_rank: "stop",
};

/**
 * The audit windows the reward-hacking trend is fitted on: the run's audit window, or a tenth of the gate window
 * when that is wider (a trend over the whole of a long run needs windows wide enough to hold the audit's reviews).
 */
export function hackingAuditWindow(auditWindow: number, windowSteps: number): number {
  return Math.max(auditWindow, Math.ceil(windowSteps / HACKING_WINDOWS_PER_GATE));
}

/**
 * What the run has that some rules need: trained rewards (trained_mismatch), judged pairs (ordering); `ledgerRank`
 * builds the ledger_rank rule, which is off by default (a rules file naming it turns it on).
 */
export type GateExtent = { hasTrainedRewards: boolean; hasPairwise?: boolean; ledgerRank?: boolean };

/**
 * The default rules of a run with these thresholds, over `windowSteps` (default the run's hacking window). The
 * trained-reward rule is left out for a run none of whose rollouts carries a trained reward (`hasTrainedRewards`
 * false), and the ordering rule for a run without a pairwise audit: neither could ever have evidence there, and a
 * trainer that does not log its own reward, or a team that does not judge pairs, must still be able to pass.
 */
export function defaultGateRules(t: Thresholds, opts: GateExtent & { windowSteps?: number }): GateRules {
  const windowSteps = opts.windowSteps ?? t.hackingWindow;
  const sev = DEFAULT_SEVERITY;
  return {
    windowSteps,
    hit_rate: { low: t.hitRateLow, high: t.hitRateHigh, min_rollouts: DEFAULT_MIN_N, severity: sev.hit_rate },
    handoff: { ceiling: t.handoffCeiling, min_rollouts: DEFAULT_MIN_N, severity: sev.handoff },
    agreement: { floor: DEFAULT_AGREEMENT_FLOOR, min_items: MIN_N_FOR_RATE, severity: sev.agreement },
    extraction: { floor: t.extractionFloor, min_items: MIN_N_FOR_RATE, severity: sev.extraction },
    trained_mismatch: opts.hasTrainedRewards
      ? { ceiling: t.trainedMismatchCeiling, min_rollouts: 1, severity: sev.trained_mismatch }
      : null,
    reward_hacking: {
      rise: t.hackingRise,
      audit_window: hackingAuditWindow(t.auditWindow, windowSteps),
      min_windows: REWARD_HACKING_ALARM.minPoints ?? 4,
      min_reviews: HACKING_MIN_REVIEWS,
      severity: sev.reward_hacking,
    },
    ordering: opts.hasPairwise
      ? { floor: t.orderingFloor, min_judgements: MIN_ORDERED_JUDGEMENTS, severity: sev.ordering }
      : null,
    ledger_rank: opts.ledgerRank ? { alpha: SIGNIFICANCE, min_items: MIN_N_FOR_RATE, severity: sev.ledger_rank } : null,
  };
}

/**
 * The rules in force: the file's fields over the defaults; `false` turns a rule off; a rule the file names that the
 * defaults left out (trained_mismatch on a run without trained rewards, ordering on one without judged pairs) is built
 * from the thresholds' line. The
 * window is `opts.windowSteps` (a flag or query), else the file's, else the run's hacking window.
 */
export function resolveGateRules(
  t: Thresholds,
  opts: GateExtent & { windowSteps?: number },
  file: GateRulesFile | null = null,
): GateRules {
  const windowSteps = opts.windowSteps ?? file?.window_steps ?? t.hackingWindow;
  const defaults = defaultGateRules(t, { ...opts, windowSteps });
  const full = defaultGateRules(t, { hasTrainedRewards: true, hasPairwise: true, ledgerRank: true, windowSteps });
  const out: GateRules = { ...defaults };
  for (const key of GATE_RULES) {
    const given = file?.rules?.[key];
    if (given === undefined) continue;
    // Each key's value has that key's shape; TypeScript cannot follow the correlation through the loop.
    (out as Record<GateRuleKey, unknown>)[key] = given === false ? null : { ...(defaults[key] ?? full[key]), ...given };
  }
  return out;
}
