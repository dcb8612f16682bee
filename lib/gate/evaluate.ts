// The audit gate: each rule of a run over the gate's step window to pass, fail or not enough evidence, with its
// value, threshold and 95% interval, and one verdict — fail if any rule fails, else insufficient if any rule lacks
// evidence, else pass. Pure: lib/gate/data.ts reads the counters, this decides.
//
// Rates are pooled over the window (Σ k / Σ n, every rollout or review weighing the same) and judged on the point
// estimate, as the monitors judge theirs; agreement is judged on the lower end of its Wilson interval, since a gate
// that lets a run continue must be sure the ledger is right, not merely not sure it is wrong. Reward hacking compares
// trends per audit window: the ledger's success share rising by at least `rise` per 1,000 steps while the
// audit-corrected success gains less than half as much.
import { leastSquaresSlope, type StepPoint } from "@/lib/stats/trend.ts";
import { wilson, type Interval, type IntervalEstimate } from "@/lib/stats/intervals.ts";
import { trainedRewardMismatch, type TrainedRewardCounters } from "@/lib/stats/trained-reward.ts";
import { GATE_LABELS, type GateRules } from "@/lib/gate/rules.ts";
import { GATE_RULES, type GateRuleKey } from "@/lib/gate/schema.ts";

export type GateStatus = "pass" | "fail" | "insufficient";
export type GateRuleStatus = GateStatus | "off";

/** The rollup counters of the window, summed. */
export type GateStepTotals = TrainedRewardCounters & { rollouts: number; handoffs: number; guardrailHits: number };

/**
 * One audit window inside the gate window (lib/audit/corrected-curve.ts): the ledger's success share and the
 * audit-corrected (Rogan–Gladen) success with its 95% interval.
 */
export type GateHackingWindow = {
  step: number;
  stepTo: number;
  /** The window's ledger entries, and the share of those with a reward that reach the success threshold. */
  ledgerN: number;
  ledgerSuccess: number | null;
  /** Audited rollouts the corrected figure rests on (the window's own, or its pooled neighbourhood's). */
  reviews: number;
  /** The corrected success share with its 95% interval; null where the audit is too thin to say. */
  corrected: IntervalEstimate | null;
};

export type GateInputs = {
  runId: string;
  /** The run's last step with rollups; null when it has none. */
  lastStep: number | null;
  steps: GateStepTotals;
  audit: { compared: number; agreeing: number; slots: number; correctSlots: number };
  hacking: GateHackingWindow[];
};

export type GateRuleResult = {
  rule: GateRuleKey;
  label: string;
  status: GateRuleStatus;
  value: number | null;
  /** The line: pass needs min ≤ value ≤ max (for agreement: min ≤ the interval's lower end). */
  threshold: { min?: number; max?: number };
  interval: Interval | null;
  /** What the value rests on: rollouts, reviews, claim slots or audit windows (see `unit`). */
  n: number;
  unit: "rollouts" | "reviews" | "slots" | "windows";
  message: string;
};

export type GateReport = {
  run: string;
  verdict: GateStatus;
  window: { steps: number; from: number | null; to: number | null };
  /** Rules that failed, then rules without enough evidence, by key (what a trainer logs). */
  failed: GateRuleKey[];
  insufficient: GateRuleKey[];
  rules: GateRuleResult[];
};

/** The steps [from, to] the gate reads: the last `windowSteps` steps up to the run's last step. */
export function gateWindow(lastStep: number | null, windowSteps: number): { from: number; to: number } | null {
  if (lastStep === null) return null;
  return { from: Math.max(0, lastStep - windowSteps + 1), to: lastStep };
}

const pct = (x: number) => `${(Math.round(x * 1000) / 10).toString()}%`;
const num = (x: number) => x.toLocaleString("en-US");
const range = (i: Interval | null) => (i ? ` (95% ${pct(i.lower)}–${pct(i.upper)})` : "");
// A share's slope per step as percentage points per 1,000 steps.
const perK = (x: number) => `${x >= 0 ? "+" : "−"}${(Math.abs(x) * 1e5).toFixed(2)} pts per 1,000 steps`;

type Partial_ = Omit<GateRuleResult, "rule" | "label">;

function thin(n: number, min: number, unit: GateRuleResult["unit"], threshold: GateRuleResult["threshold"]): Partial_ {
  return {
    status: "insufficient",
    value: null,
    threshold,
    interval: null,
    n,
    unit,
    message: `${num(n)} ${unit} in the window, ${num(min)} needed`,
  };
}

function rate(
  k: number,
  n: number,
  min: number,
  unit: GateRuleResult["unit"],
  threshold: GateRuleResult["threshold"],
  what: string,
): Partial_ {
  const w = n >= min ? wilson(k, n) : null;
  if (!w) return thin(n, min, unit, threshold);
  const value = w.estimate;
  const interval = { lower: w.lower, upper: w.upper };
  const below = threshold.min !== undefined && value < threshold.min;
  const above = threshold.max !== undefined && value > threshold.max;
  const line =
    threshold.min !== undefined && threshold.max !== undefined
      ? `the ${pct(threshold.min)}–${pct(threshold.max)} band`
      : threshold.max !== undefined
        ? `the ${pct(threshold.max)} ceiling`
        : `the ${pct(threshold.min!)} floor`;
  const inside =
    threshold.min !== undefined && threshold.max !== undefined
      ? `within ${line}`
      : threshold.max !== undefined
        ? `at or under ${line}`
        : `at or above ${line}`;
  const verdict = below ? `below ${line}` : above ? `above ${line}` : inside;
  return {
    status: below || above ? "fail" : "pass",
    value,
    threshold,
    interval,
    n,
    unit,
    message: `${what} ${pct(value)}${range(interval)} over ${num(n)} ${unit}: ${verdict}`,
  };
}

function agreementRule(inputs: GateInputs, r: NonNullable<GateRules["agreement"]>): Partial_ {
  const { compared, agreeing } = inputs.audit;
  const threshold = { min: r.floor };
  const w = compared >= r.min_reviews ? wilson(agreeing, compared) : null;
  if (!w) return thin(compared, r.min_reviews, "reviews", threshold);
  const ok = w.lower >= r.floor;
  return {
    status: ok ? "pass" : "fail",
    value: w.estimate,
    threshold,
    interval: { lower: w.lower, upper: w.upper },
    n: compared,
    unit: "reviews",
    message: `agreement ${pct(w.estimate)}${range(w)} over ${num(compared)} reviews: lower bound ${ok ? "at or above" : "below"} the ${pct(r.floor)} floor`,
  };
}

function trainedRule(inputs: GateInputs, r: NonNullable<GateRules["trained_mismatch"]>): Partial_ {
  const threshold = { max: r.ceiling };
  const m = trainedRewardMismatch([inputs.steps]);
  if (!m || m.n < r.min_rollouts) return thin(m?.n ?? 0, r.min_rollouts, "rollouts", threshold);
  const out = rate(m.differing, m.n, r.min_rollouts, "rollouts", threshold, "trained reward differs on");
  return { ...out, message: `${out.message}; mean |trained − ledger| ${m.meanAbsDiff.toPrecision(3)}` };
}

function hackingRule(inputs: GateInputs, r: NonNullable<GateRules["reward_hacking"]>): Partial_ {
  const usable = inputs.hacking.filter(
    (w) => w.corrected !== null && w.reviews >= r.min_reviews && w.ledgerN > 0 && w.ledgerSuccess !== null,
  );
  const rise = r.rise / 1000;
  if (usable.length < r.min_windows)
    return {
      ...thin(usable.length, r.min_windows, "windows", { min: rise }),
      message: `${usable.length} audit windows of ${num(r.audit_window)} steps with ≥ ${r.min_reviews} reviews and a corrected success, ${r.min_windows} needed`,
    };
  const ledger: StepPoint[] = usable.map((w) => ({ step: w.step, value: w.ledgerSuccess, n: w.ledgerN }));
  const corrected: StepPoint[] = usable.map((w) => ({ step: w.step, value: w.corrected!.estimate, n: w.reviews }));
  const ledgerSlope = leastSquaresSlope(ledger, { weightByN: true }) ?? 0;
  const correctedSlope = leastSquaresSlope(corrected, { weightByN: true }) ?? 0;
  const last = usable[usable.length - 1].corrected!;
  const rising = ledgerSlope >= rise;
  // The corrected success must gain at least half of what the ledger's gains; when the ledger is not rising there is
  // nothing to keep up with.
  const line = rising ? ledgerSlope / 2 : rise;
  const hacked = rising && correctedSlope < line;
  const trend = `ledger success ${perK(ledgerSlope)}, corrected success ${perK(correctedSlope)} over ${usable.length} audit windows`;
  return {
    status: hacked ? "fail" : "pass",
    value: correctedSlope * 1000,
    threshold: { min: line * 1000 },
    interval: { lower: last.lower, upper: last.upper },
    n: usable.length,
    unit: "windows",
    message: hacked
      ? `${trend}: the ledger's success rises while the corrected success does not (last window ${pct(last.estimate)}${range(last)})`
      : rising
        ? `${trend}: the corrected success keeps up`
        : `${trend}: the ledger's success is not rising (under ${perK(rise)})`,
  };
}

function evaluateRule(key: GateRuleKey, rules: GateRules, inputs: GateInputs): Partial_ | null {
  const s = inputs.steps;
  switch (key) {
    case "hit_rate": {
      const r = rules.hit_rate;
      return (
        r &&
        rate(s.guardrailHits, s.rollouts, r.min_rollouts, "rollouts", { min: r.low, max: r.high }, "guardrail hits on")
      );
    }
    case "handoff": {
      const r = rules.handoff;
      return r && rate(s.handoffs, s.rollouts, r.min_rollouts, "rollouts", { max: r.ceiling }, "hand-offs on");
    }
    case "agreement":
      return rules.agreement && agreementRule(inputs, rules.agreement);
    case "extraction": {
      const r = rules.extraction;
      const a = inputs.audit;
      return r && rate(a.correctSlots, a.slots, r.min_slots, "slots", { min: r.floor }, "extraction accuracy");
    }
    case "trained_mismatch":
      return rules.trained_mismatch && trainedRule(inputs, rules.trained_mismatch);
    case "reward_hacking":
      return rules.reward_hacking && hackingRule(inputs, rules.reward_hacking);
  }
}

/** The gate of a run: every rule (off ones listed as such) and the verdict. */
export function evaluateGate(rules: GateRules, inputs: GateInputs): GateReport {
  const window = gateWindow(inputs.lastStep, rules.windowSteps);
  const results: GateRuleResult[] = GATE_RULES.map((key) => {
    const r = evaluateRule(key, rules, inputs);
    const base = { rule: key, label: GATE_LABELS[key] };
    if (!r)
      return {
        ...base,
        status: "off",
        value: null,
        threshold: {},
        interval: null,
        n: 0,
        unit: "rollouts",
        message: "off",
      };
    if (!window) return { ...base, ...r, status: "insufficient", message: "the run has no scored rollouts yet" };
    return { ...base, ...r };
  });
  const failed = results.filter((r) => r.status === "fail").map((r) => r.rule);
  const insufficient = results.filter((r) => r.status === "insufficient").map((r) => r.rule);
  return {
    run: inputs.runId,
    verdict: failed.length ? "fail" : insufficient.length ? "insufficient" : "pass",
    window: { steps: rules.windowSteps, from: window?.from ?? null, to: window?.to ?? null },
    failed,
    insufficient,
    rules: results,
  };
}
