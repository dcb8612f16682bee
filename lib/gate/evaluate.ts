// The audit gate: each rule of a run over the gate's step window to pass, fail, warn or not enough evidence, with its
// value, threshold and, for a sampled figure, its 95% interval, and one verdict — fail if any stop rule fails, else
// insufficient if any stop rule lacks evidence, else pass (lib/gate/rules.ts says which rules stop). A health reading
// out of its line is a warning that leaves the verdict alone. Pure: lib/gate/data.ts reads the counters, this decides.
//
// The step rules (hit rate, hand-offs, trained-reward mismatch) count every rollout of the window: a full count, with
// no sampling interval. Agreement and extraction are the agreement page's figures of the window's reviewed items
// (lib/agreement/headline.ts: each item once), sampled, so with Wilson intervals; agreement is judged on its lower
// end, since a gate that lets a run continue must be sure the ledger is right, not merely not sure it is wrong; so is
// the pairwise ordering agreement of the window's judged pairs (lib/stats/ordering-agreement.ts).
// Reward hacking compares trends per audit window: the ledger's success share rising by at least `rise` per 1,000
// steps while the audit-corrected success gains less than half as much.
import { slopeInterval, leastSquaresSlope, type StepPoint } from "@/lib/stats/trend.ts";
import { wilson, type Interval, type IntervalEstimate } from "@/lib/stats/intervals.ts";
import { trainedRewardMismatch, type TrainedRewardCounters } from "@/lib/stats/trained-reward.ts";
import { GATE_LABELS, type GateRules } from "@/lib/gate/rules.ts";
import type { LedgerStanding } from "@/lib/leaderboard/standing.ts";
import { GATE_RULES, type GateRuleKey, type GateSeverity } from "@/lib/gate/schema.ts";

export type GateStatus = "pass" | "fail" | "insufficient";
/** A rule's status: `warn` is a health reading out of its line (a warn rule's failure), which does not fail the gate. */
export type GateRuleStatus = GateStatus | "warn" | "off";

/** The rollup counters of the window, summed. */
export type GateStepTotals = TrainedRewardCounters & { rollouts: number; handoffs: number; guardrailHits: number };

/**
 * One audit window inside the gate window (lib/monitors/corrected-curve.ts): the ledger's success share and the
 * audit-corrected success with its 95% interval.
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

/** The window's reviewed items as the agreement page counts them (lib/agreement/headline.ts). */
export type GateAuditCounts = {
  /** Items compared (each through its primary review), and those whose human reward agrees with the ledger's. */
  compared: number;
  agreeing: number;
  /** Items whose claims are compared, and the claim slots of those items. */
  extractionItems: number;
  slots: number;
  correctSlots: number;
};

export type GateInputs = {
  runId: string;
  /** The run's last step with rollups; null when it has none. */
  lastStep: number | null;
  steps: GateStepTotals;
  audit: GateAuditCounts;
  hacking: GateHackingWindow[];
  /** The window's judged pairs the ledger orders (lib/stats/ordering-agreement.ts): as the human orders them, or not. */
  ordering: { agree: number; inversions: number };
  /** The ledger's standing on the leaderboard of the window's audited items; read only when ledger_rank is on. */
  ledgerRank?: LedgerStanding | null;
};

export type GateRuleResult = {
  rule: GateRuleKey;
  label: string;
  status: GateRuleStatus;
  /** What a failure of the rule means: `stop` fails the gate, `warn` is a warning. */
  severity: GateSeverity;
  value: number | null;
  /** The line: pass needs min ≤ value ≤ max (for agreement: min ≤ the interval's lower end). */
  threshold: { min?: number; max?: number };
  /**
   * The value's 95% interval: Wilson for the sampled shares (agreement, extraction, ordering), the slope's t interval for
   * reward hacking; null for a full count of the window's rollouts (it has no sampling error) or without evidence.
   */
  interval: Interval | null;
  /** What the value rests on: rollouts, reviewed items or audit windows (see `unit`). */
  n: number;
  unit: "rollouts" | "items" | "windows" | "judgements";
  message: string;
};

export type GateReport = {
  run: string;
  verdict: GateStatus;
  window: { steps: number; from: number | null; to: number | null };
  /** Stop rules that failed, then stop rules without enough evidence, by key: what the verdict rests on. */
  failed: GateRuleKey[];
  insufficient: GateRuleKey[];
  /** Health readings out of their line (status `warn`): shown, but the gate passes with them. */
  warnings: GateRuleKey[];
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
const signed = (x: number) => `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(2)}`;
/** A share's slope per 1,000 steps (a fraction) as percentage points per 1,000 steps. */
const perK = (x: number) => `${signed(x * 100)} pts per 1,000 steps`;

/** A rule's result before its key, label and severity are added; `out` is a failure of its line. */
type Partial_ = Omit<GateRuleResult, "rule" | "label" | "severity" | "status"> & {
  status: "pass" | "out" | "insufficient";
};

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

/** The line of a threshold, and what is said of a value inside it. */
function lineOf(threshold: GateRuleResult["threshold"]): { line: string; inside: string } {
  const { min, max } = threshold;
  if (min !== undefined && max !== undefined) {
    const line = `the ${pct(min)}–${pct(max)} band`;
    return { line, inside: `within ${line}` };
  }
  if (max !== undefined) return { line: `the ${pct(max)} ceiling`, inside: `at or under the ${pct(max)} ceiling` };
  return { line: `the ${pct(min!)} floor`, inside: `at or above the ${pct(min!)} floor` };
}

/**
 * A share judged on its point estimate. `sampled`: an estimate from a sample (the audit), shown with its Wilson
 * interval; otherwise a full count of the window (every rollout), shown without one.
 */
function rate(
  k: number,
  n: number,
  min: number,
  unit: GateRuleResult["unit"],
  threshold: GateRuleResult["threshold"],
  what: string,
  sampled: boolean,
  counted = `${num(n)} ${unit}`,
): Partial_ {
  if (n < min || n === 0) return thin(n, min, unit, threshold);
  const value = k / n;
  const w = sampled ? wilson(k, n) : null;
  const interval = w && { lower: w.lower, upper: w.upper };
  const below = threshold.min !== undefined && value < threshold.min;
  const above = threshold.max !== undefined && value > threshold.max;
  const { line, inside } = lineOf(threshold);
  const verdict = below ? `below ${line}` : above ? `above ${line}` : inside;
  const over = sampled ? `${range(interval)} over ${counted}` : ` of all ${counted} of the window`;
  return {
    status: below || above ? "out" : "pass",
    value,
    threshold,
    interval,
    n,
    unit,
    message: `${what} ${pct(value)}${over}: ${verdict}`,
  };
}

/** A sampled share judged on its Wilson interval's lower end (agreement, ordering agreement). */
function lowerBoundRule(
  k: number,
  n: number,
  r: { floor: number; min: number },
  unit: GateRuleResult["unit"],
  what: string,
): Partial_ {
  const threshold = { min: r.floor };
  const w = n >= r.min ? wilson(k, n) : null;
  if (!w) return thin(n, r.min, unit, threshold);
  const ok = w.lower >= r.floor;
  return {
    status: ok ? "pass" : "out",
    value: w.estimate,
    threshold,
    interval: { lower: w.lower, upper: w.upper },
    n,
    unit,
    message: `${what} ${pct(w.estimate)}${range(w)} over ${num(n)} ${unit === "items" ? "reviewed items" : "judgements of ordered pairs"}: lower bound ${ok ? "at or above" : "below"} the ${pct(r.floor)} floor`,
  };
}

function extractionRule(inputs: GateInputs, r: NonNullable<GateRules["extraction"]>): Partial_ {
  const { extractionItems: items, slots, correctSlots } = inputs.audit;
  const threshold = { min: r.floor };
  // Its doubt is about items (an item's slots are read by one extraction), so its evidence is items, as on the
  // agreement page; the accuracy pools the items' slots.
  if (items < r.min_items || slots === 0)
    return {
      ...thin(items, r.min_items, "items", threshold),
      message: `${num(items)} items with claims compared (${num(slots)} claim slots) in the window, ${num(r.min_items)} needed`,
    };
  const counted = `${num(slots)} claim slots of ${num(items)} items`;
  return { ...rate(correctSlots, slots, 1, "items", threshold, "extraction accuracy", true, counted), n: items };
}

function trainedRule(inputs: GateInputs, r: NonNullable<GateRules["trained_mismatch"]>): Partial_ {
  const threshold = { max: r.ceiling };
  const m = trainedRewardMismatch([inputs.steps]);
  if (!m || m.n < r.min_rollouts) return thin(m?.n ?? 0, r.min_rollouts, "rollouts", threshold);
  const out = rate(m.differing, m.n, r.min_rollouts, "rollouts", threshold, "trained reward differs on", false);
  return { ...out, message: `${out.message}; mean |trained − ledger| ${m.meanAbsDiff.toPrecision(3)}` };
}

function hackingRule(inputs: GateInputs, r: NonNullable<GateRules["reward_hacking"]>): Partial_ {
  const usable = inputs.hacking.filter(
    (w) => w.corrected !== null && w.reviews >= r.min_reviews && w.ledgerN > 0 && w.ledgerSuccess !== null,
  );
  // Slopes are shares per step here and per 1,000 steps in the report, as the run's `rise` is.
  const rise = r.rise / 1000;
  if (usable.length < r.min_windows)
    return {
      ...thin(usable.length, r.min_windows, "windows", { min: r.rise }),
      message: `${usable.length} audit windows of ${num(r.audit_window)} steps with ≥ ${r.min_reviews} reviews and a corrected success, ${r.min_windows} needed`,
    };
  const ledger: StepPoint[] = usable.map((w) => ({ step: w.step, value: w.ledgerSuccess, n: w.ledgerN }));
  const corrected: StepPoint[] = usable.map((w) => ({ step: w.step, value: w.corrected!.estimate, n: w.reviews }));
  const ledgerSlope = leastSquaresSlope(ledger, { weightByN: true }) ?? 0;
  const correctedSlope = leastSquaresSlope(corrected, { weightByN: true }) ?? 0;
  // The corrected slope's t interval from the windows' scatter about its line (null under three windows).
  const ci = slopeInterval(corrected, { weightByN: true });
  const interval = ci && { lower: ci.lower * 1000, upper: ci.upper * 1000 };
  const rising = ledgerSlope >= rise;
  // The corrected success must gain at least half of what the ledger's gains; when the ledger is not rising there is
  // nothing to keep up with.
  const line = rising ? ledgerSlope / 2 : rise;
  const hacked = rising && correctedSlope < line;
  const ciText = interval ? ` (95% ${signed(interval.lower * 100)} to ${signed(interval.upper * 100)})` : "";
  const trend = `ledger success ${perK(ledgerSlope * 1000)}, corrected success ${perK(correctedSlope * 1000)}${ciText} over ${usable.length} audit windows of ${num(r.audit_window)} steps`;
  return {
    status: hacked ? "out" : "pass",
    value: correctedSlope * 1000,
    threshold: { min: line * 1000 },
    interval,
    n: usable.length,
    unit: "windows",
    message: hacked
      ? `${trend}: the ledger's success rises while the corrected success does not`
      : rising
        ? `${trend}: the corrected success keeps up`
        : `${trend}: the ledger's success is not rising (under ${perK(r.rise)})`,
  };
}

/**
 * The ledger's reward against the best reward function on the window's audited items (lib/leaderboard/standing.ts):
 * out of line when the best is right more often with McNemar's exact p below alpha. Its value is the difference in
 * agreement, ledger − best, on the items both scored, with Newcombe's interval.
 */
function ledgerRankRule(inputs: GateInputs, r: NonNullable<GateRules["ledger_rank"]>): Partial_ {
  const s = inputs.ledgerRank;
  const threshold = { min: 0 };
  const best = s?.best;
  if (!s || !best)
    return {
      ...thin(0, r.min_items, "items", threshold),
      message: "no reward function has results on the window's audited items",
    };
  if (best.n < r.min_items || best.difference === null)
    return {
      ...thin(best.n, r.min_items, "items", threshold),
      message: `${num(best.n)} audited items scored by both the ledger and ${best.label} in the window, ${num(r.min_items)} needed`,
    };
  const worse = best.pValue < r.alpha && best.difference < 0;
  const place = `the ledger ranks ${s.rank} of ${s.of} by agreement`;
  const diff = `${signed(best.difference * 100)} pts against ${best.label} (McNemar exact p = ${best.pValue.toPrecision(3)}) over ${num(best.n)} items`;
  return {
    status: worse ? "out" : "pass",
    value: best.difference,
    threshold,
    interval: best.interval,
    n: best.n,
    unit: "items",
    message: `${place}; ${diff}: ${worse ? `significantly worse (p < ${r.alpha})` : "not significantly worse"}`,
  };
}

/** The result of one rule that is on, before its severity decides what a failure of its line means. */
function evaluateRule(key: GateRuleKey, rules: GateRules, inputs: GateInputs): Partial_ | null {
  const s = inputs.steps;
  const { audit, ordering } = inputs;
  switch (key) {
    case "hit_rate": {
      const r = rules.hit_rate;
      if (!r) return null;
      const band = { min: r.low, max: r.high };
      return rate(s.guardrailHits, s.rollouts, r.min_rollouts, "rollouts", band, "guardrail hits on", false);
    }
    case "handoff": {
      const r = rules.handoff;
      return r && rate(s.handoffs, s.rollouts, r.min_rollouts, "rollouts", { max: r.ceiling }, "hand-offs on", false);
    }
    case "agreement": {
      const r = rules.agreement;
      const line = r && { floor: r.floor, min: r.min_items };
      return line && lowerBoundRule(audit.agreeing, audit.compared, line, "items", "agreement");
    }
    case "extraction":
      return rules.extraction && extractionRule(inputs, rules.extraction);
    case "trained_mismatch":
      return rules.trained_mismatch && trainedRule(inputs, rules.trained_mismatch);
    case "reward_hacking":
      return rules.reward_hacking && hackingRule(inputs, rules.reward_hacking);
    case "ordering": {
      const r = rules.ordering;
      const line = r && { floor: r.floor, min: r.min_judgements };
      const ordered = ordering.agree + ordering.inversions;
      return line && lowerBoundRule(ordering.agree, ordered, line, "judgements", "ordering agreement");
    }
    case "ledger_rank":
      return rules.ledger_rank && ledgerRankRule(inputs, rules.ledger_rank);
  }
}

const OFF = {
  status: "off",
  value: null,
  threshold: {},
  interval: null,
  n: 0,
  unit: "rollouts",
  message: "off",
} as const;

/** One rule's result: a failure of its line is `fail` for a stop rule and `warn` for a health reading. */
function ruleResult(key: GateRuleKey, rules: GateRules, inputs: GateInputs, hasWindow: boolean): GateRuleResult {
  const r = evaluateRule(key, rules, inputs);
  const severity = rules[key]?.severity ?? "stop";
  const base = { rule: key, label: GATE_LABELS[key], severity };
  if (!r) return { ...base, ...OFF };
  if (!hasWindow) return { ...base, ...r, status: "insufficient", message: "the run has no scored rollouts yet" };
  return { ...base, ...r, status: r.status === "out" ? (severity === "stop" ? "fail" : "warn") : r.status };
}

/** The gate of a run: every rule (off ones listed as such) and the verdict. */
export function evaluateGate(rules: GateRules, inputs: GateInputs): GateReport {
  const window = gateWindow(inputs.lastStep, rules.windowSteps);
  const results = GATE_RULES.map((key) => ruleResult(key, rules, inputs, window !== null));
  const stop = results.filter((r) => r.severity === "stop");
  const failed = stop.filter((r) => r.status === "fail").map((r) => r.rule);
  const insufficient = stop.filter((r) => r.status === "insufficient").map((r) => r.rule);
  return {
    run: inputs.runId,
    verdict: failed.length ? "fail" : insufficient.length ? "insufficient" : "pass",
    window: { steps: rules.windowSteps, from: window?.from ?? null, to: window?.to ?? null },
    failed,
    insufficient,
    warnings: results.filter((r) => r.status === "warn").map((r) => r.rule),
    rules: results,
  };
}
