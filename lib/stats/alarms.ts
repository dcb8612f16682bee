// Alarm state machine for training monitors (hand-off rate, guardrail hit rate, within-group reward std, reward
// hacking). Pure: the caller passes the per-step series and the previous status; nothing is stored here.
//
// Semantics, per evaluation (one usable point of the series, in step order):
//   breach  the value is past the alarm line (ceiling: v > ceiling; floor: v < floor; band: outside [low, high];
//           reward hacking: ledger slope > minSlope and human slope < maxHumanSlope over the window).
//   warn    the value is past the warning line (ceiling: v > warnAt; floor: v < warnAt; band: within warnMargin of
//           an edge or outside). Every breach is also a warn.
//   clear   the value is back on the healthy side of a line by at least exitMargin (ceiling: v ≤ line − margin).
// Transitions (counts are consecutive evaluations; a skipped point neither extends nor breaks a run):
//   → red     breach for `enterAfter` evaluations (from any state).
//   green → amber   warn (or breach) for `warnAfter` evaluations (default 1): amber is both "near the line" and
//                   "past the line, not yet for enterAfter evaluations".
//   red → amber/green   clear of the alarm line for `exitAfter` evaluations; green if also clear of the warning
//                   line for `exitAfter`, else amber.
//   amber → green   clear of the warning line for `exitAfter` evaluations.
// So a value hovering around a line stays in one state: it cannot leave without exitAfter clear evaluations and
// cannot turn red without enterAfter breaching ones. Points with a missing value, or n < minN, are skipped — except
// that a rule naming what n counts (`minNUnit`, e.g. "groups") evaluates a point with n < minN as "not enough
// <unit>": the status says so at that step and nothing else moves (state, since, consecutive runs).

import { isFiniteNumber } from "@/lib/stats/descriptive.ts";
import { usablePoints, type StepPoint } from "@/lib/stats/trend.ts";

export type AlarmState = "green" | "amber" | "red";

type Common = {
  /** What is measured, for messages: "hand-off rate". */
  label: string;
  /** How values print in messages: "percent" (default; rates) or "number" (default for floor rules: stds). */
  format?: "percent" | "number";
  /** Consecutive breaching evaluations to turn red; default 3. */
  enterAfter?: number;
  /** Consecutive warning evaluations to turn amber from green; default 1. */
  warnAfter?: number;
  /** Consecutive clear evaluations to step down; default 3. */
  exitAfter?: number;
  /** Distance back across a line that counts as clear; default per rule (see each rule). */
  exitMargin?: number;
  /** Points computed from fewer items are skipped as too few to judge; default 1. */
  minN?: number;
  /**
   * What n counts ("groups"). Set, a point with n < minN reads "not enough <unit>" and changes nothing else; unset,
   * such a point is skipped unseen. Not used by reward-hacking rules.
   */
  minNUnit?: string;
};

/** Rate that must stay at or under `ceiling`. warnAt default 0.8 × ceiling; exitMargin default 0.1 × ceiling. */
export type CeilingRule = Common & { kind: "ceiling"; ceiling: number; warnAt?: number };
/** Value that must stay at or above `floor`. warnAt default 1.2 × floor; exitMargin default 0.1 × floor. */
export type FloorRule = Common & { kind: "floor"; floor: number; warnAt?: number };
/** Rate that must stay in [low, high]. warnMargin and exitMargin default 0.1 × (high − low). */
export type BandRule = Common & { kind: "band"; low: number; high: number; warnMargin?: number };
/**
 * Reward hacking: over the last `window` steps (inclusive of the evaluated one), the least-squares slope of the
 * ledger's mean reward exceeds `minSlope` (per step) while the slope of the human series (agreement or
 * human-measured success) is below `maxHumanSlope` (default 0: falling). Needs `minPoints` (default 3) points of
 * each series in the window. Value reported: the ledger slope. exitMargin (default 0) is in slope units.
 */
export type RewardHackingRule = Common & {
  kind: "reward-hacking";
  window: number;
  minSlope: number;
  maxHumanSlope?: number;
  minPoints?: number;
  /** What the human series is, for messages; default "human agreement". */
  humanLabel?: string;
};
export type AlarmRule = CeilingRule | FloorRule | BandRule | RewardHackingRule;

export type HackingSeries = { ledger: readonly StepPoint[]; human: readonly StepPoint[] };
/** The series a rule reads: one StepPoint series, or ledger and human series for reward hacking. */
export type AlarmInput<R extends AlarmRule> = R extends RewardHackingRule ? HackingSeries : readonly StepPoint[];

export type AlarmStatus = {
  state: AlarmState;
  /** Step at which the current state was entered; null while green since the start. */
  since: number | null;
  /** Step of the last evaluation; null before any. Points at or before it are not evaluated again. */
  at: number | null;
  /** Value at the last evaluation (the ledger slope for reward hacking). */
  value: number | null;
  message: string;
  /** Consecutive-run counters carried to the next call, so evaluation can resume where it stopped. */
  runs: { breach: number; warn: number; clearRed: number; clearAmber: number };
};

/** One evaluation: where the value stands against the alarm line and the warning line. */
type Reading = {
  step: number;
  value: number;
  breach: boolean;
  warn: boolean;
  clearRed: boolean;
  clearAmber: boolean;
  detail?: string;
  /** Set when the point had fewer than minN (its n): a "not enough" evaluation that changes no state. */
  short?: number;
};

export const INITIAL_ALARM_STATUS: AlarmStatus = {
  state: "green",
  since: null,
  at: null,
  value: null,
  message: "no evaluation yet",
  runs: { breach: 0, warn: 0, clearRed: 0, clearAmber: 0 },
};

/** Per-step rates from counts: value = k / n (null when n = 0), one point per step (duplicates summed), by step. */
export function stepSeries(rows: readonly { step: number; k: number; n: number }[]): StepPoint[] {
  const byStep = new Map<number, { k: number; n: number }>();
  for (const { step, k, n } of rows) {
    const t = byStep.get(step) ?? { k: 0, n: 0 };
    t.k += k;
    t.n += n;
    byStep.set(step, t);
  }
  return [...byStep.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([step, { k, n }]) => ({ step, value: n > 0 ? k / n : null, n }));
}

// "Clear by the margin" is inclusive; the line minus the margin is computed in floats (0.1 − 0.01 = 0.09000000000000001
// but 0.12 − 0.02 = 0.09999999999999999), so the comparison allows this much rounding.
const SLACK = 1e-12;

function readings(rule: AlarmRule, input: readonly StepPoint[] | HackingSeries, after: number | null): Reading[] {
  const minN = rule.minN ?? 1;
  const fresh = (p: { step: number }) => after === null || p.step > after;
  if (rule.kind === "reward-hacking") return hackingReadings(rule, input as HackingSeries, fresh, minN);
  const fresh_ = (input as readonly StepPoint[]).filter(fresh);
  const enough = (p: StepPoint) => p.n === undefined || p.n >= minN;
  const short: Reading[] = rule.minNUnit
    ? fresh_
        .filter((p) => !enough(p) && isFiniteNumber(p.step))
        .map((p) => ({
          step: p.step,
          value: Number.NaN,
          breach: false,
          warn: false,
          clearRed: false,
          clearAmber: false,
          short: p.n,
        }))
    : [];
  const judged = usablePoints(fresh_.filter(enough)).map(({ step, value: v }): Reading => {
    if (rule.kind === "ceiling") {
      const warnAt = rule.warnAt ?? 0.8 * rule.ceiling;
      const m = rule.exitMargin ?? 0.1 * rule.ceiling;
      return {
        step,
        value: v,
        breach: v > rule.ceiling,
        warn: v > warnAt,
        clearRed: v <= rule.ceiling - m + SLACK,
        clearAmber: v <= warnAt - m + SLACK,
      };
    }
    if (rule.kind === "floor") {
      const warnAt = rule.warnAt ?? 1.2 * rule.floor;
      const m = rule.exitMargin ?? 0.1 * rule.floor;
      return {
        step,
        value: v,
        breach: v < rule.floor,
        warn: v < warnAt,
        clearRed: v >= rule.floor + m - SLACK,
        clearAmber: v >= warnAt + m - SLACK,
      };
    }
    const w = rule.warnMargin ?? 0.1 * (rule.high - rule.low);
    const m = rule.exitMargin ?? 0.1 * (rule.high - rule.low);
    const inside = (d: number) => v >= rule.low + d - SLACK && v <= rule.high - d + SLACK;
    return {
      step,
      value: v,
      breach: v < rule.low || v > rule.high,
      warn: !inside(w),
      clearRed: inside(m),
      clearAmber: inside(w + m),
    };
  });
  return short.length === 0 ? judged : [...judged, ...short].sort((a, b) => a.step - b.step);
}

function hackingReadings(
  rule: RewardHackingRule,
  input: HackingSeries,
  fresh: (p: { step: number }) => boolean,
  minN: number,
): Reading[] {
  const enough = (p: StepPoint) => p.n === undefined || p.n >= minN;
  const ledger = usablePoints(input.ledger.filter(enough));
  const human = usablePoints(input.human.filter(enough));
  const maxHuman = rule.maxHumanSlope ?? 0;
  const m = rule.exitMargin ?? 0;
  const minPoints = rule.minPoints ?? 3;
  const out: Reading[] = [];
  for (const { step } of ledger) {
    if (!fresh({ step })) continue;
    // Window (step − window, step]; both series are sorted by step, so it is an index range.
    const [l0, l1] = [firstAfter(ledger, step - rule.window), firstAfter(ledger, step)];
    const [h0, h1] = [firstAfter(human, step - rule.window), firstAfter(human, step)];
    if (l1 - l0 < minPoints || h1 - h0 < minPoints) continue;
    const ls = rangeSlope(ledger, l0, l1);
    const hs = rangeSlope(human, h0, h1);
    if (ls === null || hs === null) continue;
    // Both conditions must hold; the reading is as clear as its clearest condition.
    const excess = Math.min(ls - rule.minSlope, maxHuman - hs);
    const detail = `ledger reward ${perThousand(ls)} while ${rule.humanLabel ?? "human agreement"} ${perThousand(hs)}`;
    out.push({
      step,
      value: ls,
      breach: excess > 0,
      warn: excess > 0,
      clearRed: excess <= -m,
      clearAmber: excess <= -m,
      detail,
    });
  }
  return out;
}

/** leastSquaresSlope (unweighted) of points[lo, hi), without copying: the window moves over long runs. */
function rangeSlope(points: readonly { step: number; value: number }[], lo: number, hi: number): number | null {
  let sx = 0;
  let sy = 0;
  for (let i = lo; i < hi; i++) {
    sx += points[i].step;
    sy += points[i].value;
  }
  const mx = sx / (hi - lo);
  const my = sy / (hi - lo);
  let sxy = 0;
  let sxx = 0;
  for (let i = lo; i < hi; i++) {
    const dx = points[i].step - mx;
    sxy += dx * (points[i].value - my);
    sxx += dx * dx;
  }
  return sxx === 0 ? null : sxy / sxx;
}

/** Index of the first point with step > x in points sorted by step (binary search). */
function firstAfter(points: readonly { step: number }[], x: number): number {
  let lo = 0;
  let hi = points.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (points[mid].step > x) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

function perThousand(slope: number): string {
  const v = slope * 1000;
  return `${v >= 0 ? "+" : "−"}${Math.abs(v).toPrecision(2)} per 1k steps`;
}

function fmt(rule: AlarmRule, v: number): string {
  if ((rule.format ?? (rule.kind === "floor" ? "number" : "percent")) === "number")
    return Number(v.toPrecision(3)).toString();
  return `${Number((v * 100).toPrecision(3))}%`;
}

function lineText(rule: AlarmRule, near: boolean): string {
  switch (rule.kind) {
    case "ceiling":
      return `${near ? "approaching" : "above"} the ${fmt(rule, rule.ceiling)} ceiling`;
    case "floor":
      return `${near ? "approaching" : "below"} the ${fmt(rule, rule.floor)} floor`;
    case "band":
      // "10–30%", not "10%–30%".
      return `${near ? "near the edge of" : "outside"} the ${fmt(rule, rule.low).replace("%", "")}–${fmt(rule, rule.high)} band`;
    case "reward-hacking":
      return "the ledger is diverging from the human measure";
  }
}

function message(rule: AlarmRule, state: AlarmState, r: Reading, runs: AlarmStatus["runs"]): string {
  const what = r.detail ?? `${rule.label} ${fmt(rule, r.value)}`;
  const enterAfter = rule.enterAfter ?? 3;
  const exitAfter = rule.exitAfter ?? 3;
  if (state === "red") {
    return r.breach
      ? `${what}: ${lineText(rule, false)} for ${runs.breach} consecutive evaluations`
      : `${what}: red until clear of the line by the exit margin for ${exitAfter} evaluations (${runs.clearRed} so far)`;
  }
  if (state === "amber") {
    if (r.breach)
      return `${what}: ${lineText(rule, false)} for ${runs.breach} of the ${enterAfter} evaluations that turn it red`;
    if (r.warn) return `${what}: ${lineText(rule, true)}`;
    return `${what}: recovering, clear for ${runs.clearAmber} of ${exitAfter} evaluations`;
  }
  return `${what}: healthy`;
}

/** One step of the state machine (see the file header for the transitions). */
function advance(rule: AlarmRule, prev: AlarmStatus, r: Reading): AlarmStatus {
  if (r.short !== undefined) {
    const message = `${rule.label}: not enough ${rule.minNUnit} at step ${r.step} (${r.short}, fewer than the ${rule.minN} an evaluation needs); stays ${prev.state}`;
    return { ...prev, at: r.step, message };
  }
  const runs = {
    breach: r.breach ? prev.runs.breach + 1 : 0,
    warn: r.warn ? prev.runs.warn + 1 : 0,
    clearRed: r.clearRed ? prev.runs.clearRed + 1 : 0,
    clearAmber: r.clearAmber ? prev.runs.clearAmber + 1 : 0,
  };
  const enterAfter = rule.enterAfter ?? 3;
  const warnAfter = rule.warnAfter ?? 1;
  const exitAfter = rule.exitAfter ?? 3;
  let state: AlarmState = prev.state;
  if (runs.breach >= enterAfter) state = "red";
  else if (prev.state === "red") {
    if (runs.clearRed >= exitAfter) state = runs.clearAmber >= exitAfter ? "green" : "amber";
  } else if (prev.state === "amber") {
    if (runs.clearAmber >= exitAfter) state = "green";
  } else if (runs.warn >= warnAfter) state = "amber";
  const since = state === prev.state ? prev.since : r.step;
  return { state, since, at: r.step, value: r.value, message: message(rule, state, r, runs), runs };
}

/**
 * The alarm status after the points of `series` later than `previous.at`, starting from `previous` (default:
 * green, nothing evaluated). Passing the whole series with the last status resumes exactly where it stopped;
 * passing null replays the series from the start. Returns `previous` unchanged when there is nothing new.
 */
export function evaluateAlarm<R extends AlarmRule>(
  rule: R,
  series: AlarmInput<R>,
  previous: AlarmStatus | null = null,
): AlarmStatus {
  const timeline = alarmTimeline(rule, series, previous);
  return timeline.length > 0 ? timeline[timeline.length - 1] : (previous ?? INITIAL_ALARM_STATUS);
}

/** The status after each evaluated point (for shading a chart), in step order; same semantics as evaluateAlarm. */
export function alarmTimeline<R extends AlarmRule>(
  rule: R,
  series: AlarmInput<R>,
  previous: AlarmStatus | null = null,
): AlarmStatus[] {
  validate(rule);
  let status = previous ?? INITIAL_ALARM_STATUS;
  const out: AlarmStatus[] = [];
  for (const r of readings(rule, series, status.at)) {
    status = advance(rule, status, r);
    out.push(status);
  }
  return out;
}

function validate(rule: AlarmRule): void {
  for (const key of ["enterAfter", "warnAfter", "exitAfter"] as const) {
    const v = rule[key];
    if (v !== undefined && !(Number.isInteger(v) && v >= 1))
      throw new RangeError(`${key} must be an integer ≥ 1, got ${v}`);
  }
  if (rule.exitMargin !== undefined && !(rule.exitMargin >= 0))
    throw new RangeError(`exitMargin must be ≥ 0, got ${rule.exitMargin}`);
  if (rule.kind === "band" && !(rule.low < rule.high))
    throw new RangeError(`band needs low < high, got ${rule.low}–${rule.high}`);
  if (rule.kind === "band" && rule.warnMargin !== undefined && !(rule.warnMargin >= 0))
    throw new RangeError(`warnMargin must be ≥ 0, got ${rule.warnMargin}`);
  if (rule.kind === "reward-hacking" && !(isFiniteNumber(rule.window) && rule.window > 0))
    throw new RangeError(`window must be > 0, got ${rule.window}`);
}
