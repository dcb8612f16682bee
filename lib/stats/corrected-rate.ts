// The ledger's success rate and mean reward corrected by the shadow audit. Pure.
//
// The ledger's verdict (reward ≥ 0.9) is an imperfect test of the human one. Against the human verdicts of audited
// rollouts, weighted by 1/π (π: the rollout's inclusion probability, so an oversampled stratum counts as much as it
// is worth in the population), its sensitivity Se = P(ledger success | human success) and specificity
// Sp = P(ledger failure | human failure) correct the observed share p of ledger successes (a census of the window,
// not a sample) into the Rogan–Gladen prevalence
//   π̂ = (p + Sp − 1) / (Se + Sp − 1),   defined when Se + Sp − 1 > 0 (Youden's J), clamped to [0, 1].
// The mean reward is corrected additively: the ledger's mean plus the weighted mean of (human − ledger) reward.
// Both intervals come from one cluster bootstrap over audited tickets: the K rollouts of a ticket are correlated (the
// planner's design effect, lib/stats/audit-plan.ts), so whole tickets are resampled, never single rollouts.

import { mulberry32, randomIndex } from "@/lib/stats/prng.ts";
import { quantileSorted } from "@/lib/stats/descriptive.ts";

/** One audited rollout: its ticket (the resampling unit), both verdicts and rewards, and its inclusion probability. */
export type AuditedVerdict = {
  ticket: string;
  /** The ledger's verdict: reward ≥ SUCCESS_THRESHOLD. */
  ledger: boolean;
  /** The human verdict (the counted review's reward ≥ SUCCESS_THRESHOLD): taken as the truth. */
  human: boolean;
  ledgerReward: number;
  humanReward: number;
  /** π in (0, 1]: the probability this rollout had of entering the audit. */
  inclusionProbability: number;
};

/**
 * What "too thin to say" means, said once. Below any of these the evidence is thin: the caller pools a wider window
 * or draws nothing. Se is estimated from the human successes and Sp from the human failures, so each needs a few.
 */
export const THIN = {
  /** Audited rollouts compared with the ledger. */
  minItems: 20,
  /** Distinct audited tickets: the bootstrap's resampling units. */
  minTickets: 10,
  /** Human successes (Se's denominator) and human failures (Sp's denominator), each. */
  minPerVerdict: 3,
} as const;

export const BOOTSTRAP_DEFAULTS = { iterations: 1000, seed: 20261201, level: 0.95 } as const;

export type BootstrapSettings = { iterations?: number; seed?: number; level?: number };

/** Inclusion-weighted sensitivity and specificity of the ledger's verdict against the human one. */
export type SensitivitySpecificity = {
  /** Σw[L ∧ H] / Σw[H], in [0, 1]. null when no human success carries weight. */
  se: number | null;
  /** Σw[¬L ∧ ¬H] / Σw[¬H], in [0, 1]. null when no human failure carries weight. */
  sp: number | null;
  /** Items (rollouts) judged a success and a failure by the human side, unweighted counts. */
  humanSuccesses: number;
  humanFailures: number;
};

/** The reason a set of audited verdicts is too thin (THIN), or null when it is not. */
export function thinReason(items: readonly AuditedVerdict[]): string | null {
  const tickets = new Set(items.map((i) => i.ticket)).size;
  const successes = items.filter((i) => i.human).length;
  const failures = items.length - successes;
  if (items.length < THIN.minItems) return `${items.length} audited rollouts, fewer than ${THIN.minItems}`;
  if (tickets < THIN.minTickets) return `${tickets} audited tickets, fewer than ${THIN.minTickets}`;
  if (successes < THIN.minPerVerdict)
    return `${successes} human success${successes === 1 ? "" : "es"}, fewer than ${THIN.minPerVerdict}: no sensitivity`;
  if (failures < THIN.minPerVerdict)
    return `${failures} human failure${failures === 1 ? "" : "s"}, fewer than ${THIN.minPerVerdict}: no specificity`;
  return null;
}

function checkWeights(items: readonly AuditedVerdict[]): void {
  for (const i of items) {
    const p = i.inclusionProbability;
    if (!(p > 0 && p <= 1)) throw new RangeError(`inclusion probability must be in (0, 1], got ${p}`);
    if (!Number.isFinite(i.ledgerReward) || !Number.isFinite(i.humanReward))
      throw new RangeError(`rewards must be finite numbers, got ${i.ledgerReward} and ${i.humanReward}`);
  }
}

/** Se and Sp with weights 1/π. Throws a RangeError on a π outside (0, 1]: a weight cannot be invented. */
export function weightedSensitivitySpecificity(items: readonly AuditedVerdict[]): SensitivitySpecificity {
  checkWeights(items);
  const s = sums(items);
  return {
    se: s.pos > 0 ? s.truePos / s.pos : null,
    sp: s.neg > 0 ? s.trueNeg / s.neg : null,
    humanSuccesses: items.filter((i) => i.human).length,
    humanFailures: items.filter((i) => !i.human).length,
  };
}

export type RoganGladen =
  { ok: true; rate: number; unclamped: number; clamped: boolean } | { ok: false; reason: string };

/**
 * Rogan–Gladen: the true prevalence from the observed share `observed` of positives of a test with sensitivity `se`
 * and specificity `sp`. (p + Sp − 1)/(Se + Sp − 1), clamped to [0, 1] (an observed share below 1 − Sp or above Se
 * has no prevalence that explains it; the nearest one is taken and `clamped` says so). Undefined when
 * Se + Sp − 1 ≤ 0: the test is no better than chance, and its positives say nothing about the truth.
 */
export function roganGladen(observed: number, se: number, sp: number): RoganGladen {
  for (const [name, v] of [
    ["observed share", observed],
    ["sensitivity", se],
    ["specificity", sp],
  ] as const)
    if (!(v >= 0 && v <= 1)) throw new RangeError(`${name} must be in [0, 1], got ${v}`);
  const j = se + sp - 1;
  if (!(j > 1e-12))
    return {
      ok: false,
      reason: `the ledger's verdict is no better than chance against the human one (Se + Sp − 1 = ${round(j)} ≤ 0)`,
    };
  const unclamped = (observed + sp - 1) / j;
  const rate = Math.min(1, Math.max(0, unclamped));
  return { ok: true, rate, unclamped, clamped: rate !== unclamped };
}

const round = (x: number) => Math.round(x * 1000) / 1000;

type Sums = { w: number; pos: number; truePos: number; neg: number; trueNeg: number; diff: number };

function sums(items: readonly AuditedVerdict[]): Sums {
  const s: Sums = { w: 0, pos: 0, truePos: 0, neg: 0, trueNeg: 0, diff: 0 };
  for (const i of items) addItem(s, i);
  return s;
}

function addItem(s: Sums, i: AuditedVerdict): void {
  const w = 1 / i.inclusionProbability;
  s.w += w;
  if (i.human) {
    s.pos += w;
    if (i.ledger) s.truePos += w;
  } else {
    s.neg += w;
    if (!i.ledger) s.trueNeg += w;
  }
  s.diff += w * (i.humanReward - i.ledgerReward);
}

/** The Rogan–Gladen rate of weighted sums, or null where Se, Sp or the correction is undefined. */
function rateOf(observed: number, s: Sums): number | null {
  if (!(s.pos > 0) || !(s.neg > 0)) return null;
  const r = roganGladen(observed, Math.min(1, s.truePos / s.pos), Math.min(1, s.trueNeg / s.neg));
  return r.ok ? r.rate : null;
}

export type CorrectedRate = {
  /** Rogan–Gladen estimate, clamped to [0, 1]. */
  rate: number;
  /** Percentile bootstrap interval over tickets, in [0, 1]; lo ≤ rate ≤ hi is not guaranteed (percentiles). */
  lo: number;
  hi: number;
  se: number;
  sp: number;
  /** The point estimate was outside [0, 1] before clamping. */
  clamped: boolean;
  items: number;
  tickets: number;
  /**
   * Resamples where the correction was undefined (no human success or failure drawn, or Se + Sp − 1 ≤ 0). Each is
   * counted at 0 for the lower bound and at 1 for the upper one: it widens the interval rather than being dropped.
   */
  undefinedResamples: number;
  iterations: number;
};

export type CorrectedMeanReward = {
  /** The ledger's mean reward (as given) and the mean corrected by the weighted mean human − ledger difference. */
  ledger: number;
  corrected: number;
  /** Weighted mean of human − ledger reward over the audited rollouts (Hájek), in [−1, 1]. */
  difference: number;
  lo: number;
  hi: number;
  items: number;
  tickets: number;
  iterations: number;
};

export type Corrected<T> = ({ ok: true } & T) | { ok: false; reason: string };

/** Items grouped by ticket into the weighted sums the bootstrap adds up. */
function ticketSums(items: readonly AuditedVerdict[]): Sums[] {
  const by = new Map<string, Sums>();
  for (const i of items) {
    let s = by.get(i.ticket);
    if (!s) by.set(i.ticket, (s = { w: 0, pos: 0, truePos: 0, neg: 0, trueNeg: 0, diff: 0 }));
    addItem(s, i);
  }
  return [...by.values()];
}

/**
 * `iterations` cluster-bootstrap resamples: each draws as many tickets as were audited, with replacement, and adds up
 * their weighted sums. Seeded (lib/stats/prng.ts), so the same audit always gives the same interval.
 */
function* resamples(tickets: readonly Sums[], settings: Required<BootstrapSettings>): Generator<Sums> {
  const rng = mulberry32(settings.seed);
  const n = tickets.length;
  for (let it = 0; it < settings.iterations; it++) {
    const s: Sums = { w: 0, pos: 0, truePos: 0, neg: 0, trueNeg: 0, diff: 0 };
    for (let k = 0; k < n; k++) {
      const t = tickets[randomIndex(rng, n)];
      s.w += t.w;
      s.pos += t.pos;
      s.truePos += t.truePos;
      s.neg += t.neg;
      s.trueNeg += t.trueNeg;
      s.diff += t.diff;
    }
    yield s;
  }
}

function settingsOf(b: BootstrapSettings): Required<BootstrapSettings> {
  const s = { ...BOOTSTRAP_DEFAULTS, ...b };
  if (!Number.isInteger(s.iterations) || s.iterations < 1)
    throw new RangeError(`iterations must be a positive integer, got ${s.iterations}`);
  if (!(s.level > 0 && s.level < 1)) throw new RangeError(`confidence level must be in (0, 1), got ${s.level}`);
  return s;
}

/**
 * The success rate of a window corrected by the audit: `observed` is the ledger's success share of the window's
 * rollouts (every rollout, not a sample), `items` the audited verdicts Se and Sp are estimated from (the window's,
 * or a wider pooled window's). Not ok, with the reason, when the items are thin (THIN) or Se + Sp − 1 ≤ 0.
 */
export function correctedSuccessRate(
  observed: number,
  items: readonly AuditedVerdict[],
  bootstrap: BootstrapSettings = {},
): Corrected<CorrectedRate> {
  if (!(observed >= 0 && observed <= 1)) throw new RangeError(`observed share must be in [0, 1], got ${observed}`);
  checkWeights(items);
  const settings = settingsOf(bootstrap);
  const thin = thinReason(items);
  if (thin) return { ok: false, reason: thin };
  const all = sums(items);
  const se = all.truePos / all.pos;
  const sp = all.trueNeg / all.neg;
  const point = roganGladen(observed, Math.min(1, se), Math.min(1, sp));
  if (!point.ok) return point;
  const tickets = ticketSums(items);
  const low: number[] = [];
  const high: number[] = [];
  let undefinedResamples = 0;
  for (const s of resamples(tickets, settings)) {
    const r = rateOf(observed, s);
    if (r === null) undefinedResamples++;
    low.push(r ?? 0);
    high.push(r ?? 1);
  }
  low.sort((a, b) => a - b);
  high.sort((a, b) => a - b);
  const alpha = 1 - settings.level;
  return {
    ok: true,
    rate: point.rate,
    lo: quantileSorted(low, alpha / 2)!,
    hi: quantileSorted(high, 1 - alpha / 2)!,
    se,
    sp,
    clamped: point.clamped,
    items: items.length,
    tickets: tickets.length,
    undefinedResamples,
    iterations: settings.iterations,
  };
}

/**
 * The mean reward of a window corrected by the audit: `ledgerMean` (the ledger's mean over the window's rollouts with
 * a reward) plus the weighted mean human − ledger difference of `items`, with its cluster-bootstrap interval, clamped
 * to [0, 1] (rewards are). Not ok when the items are thin: fewer than THIN.minItems rollouts or THIN.minTickets
 * tickets (the verdict counts do not matter here).
 */
export function correctedMeanReward(
  ledgerMean: number,
  items: readonly AuditedVerdict[],
  bootstrap: BootstrapSettings = {},
): Corrected<CorrectedMeanReward> {
  if (!(ledgerMean >= 0 && ledgerMean <= 1)) throw new RangeError(`ledger mean must be in [0, 1], got ${ledgerMean}`);
  checkWeights(items);
  const settings = settingsOf(bootstrap);
  const tickets = ticketSums(items);
  if (items.length < THIN.minItems)
    return { ok: false, reason: `${items.length} audited rollouts, fewer than ${THIN.minItems}` };
  if (tickets.length < THIN.minTickets)
    return { ok: false, reason: `${tickets.length} audited tickets, fewer than ${THIN.minTickets}` };
  const all = sums(items);
  const clamp = (x: number) => Math.min(1, Math.max(0, x));
  const diffs: number[] = [];
  for (const s of resamples(tickets, settings)) diffs.push(s.diff / s.w);
  diffs.sort((a, b) => a - b);
  const alpha = 1 - settings.level;
  const difference = all.diff / all.w;
  return {
    ok: true,
    ledger: ledgerMean,
    corrected: clamp(ledgerMean + difference),
    difference,
    lo: clamp(ledgerMean + quantileSorted(diffs, alpha / 2)!),
    hi: clamp(ledgerMean + quantileSorted(diffs, 1 - alpha / 2)!),
    items: items.length,
    tickets: tickets.length,
    iterations: settings.iterations,
  };
}
