// The ledger's success rate and mean reward corrected by the shadow audit. Pure.
//
// The audit is the second phase of a two-phase (double) sample: the first phase is the whole window, where the
// ledger's verdict (reward ≥ 0.9) is known for every rollout (a census: its success share p has no sampling error);
// the second is the audited rollouts, where the human verdict is known too. The human success rate of the window is
//   P(H) = P(L)·P(H | L) + P(¬L)·P(H | ¬L) = p·PPV + (1 − p)·(1 − NPV),
// PPV = P(human success | ledger success) and NPV = P(human failure | ledger failure), each estimated within its ledger
// verdict over the audited rollouts weighted by 1/π (π: the rollout's inclusion probability, so an oversampled stratum
// counts as much as it is worth in the window). A convex combination of two shares, it is always in [0, 1], and it is
// defined whenever the audit has rollouts of each ledger verdict the window has — no clamp, no "no better than chance".
// Rogan–Gladen, (p + Sp − 1)/(Se + Sp − 1), is for a test whose sensitivity and specificity come from another study;
// estimated from this same audit it divides by Youden's J, estimated with error, so its errors are larger (measured
// in docs/audit.md), and it is not used.
// The mean reward is corrected additively: the ledger's mean plus the weighted mean of (human − ledger) reward.
// Both intervals come from one cluster bootstrap over audited tickets: the K rollouts of a ticket are correlated (the
// planner's design effect, lib/stats/audit-plan.ts), so whole tickets are resampled, never single rollouts; within
// each resample PPV and NPV are ratios within their ledger verdict, so the resample's own ledger share never enters.

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
 * or draws nothing. PPV is estimated from the audited ledger successes and NPV from the audited ledger failures, so
 * each needs a few — where the window has rollouts of that verdict at all.
 */
export const THIN = {
  /** Audited rollouts compared with the ledger. */
  minItems: 20,
  /** Distinct audited tickets: the bootstrap's resampling units. */
  minTickets: 10,
  /** Audited ledger successes (PPV's denominator) and ledger failures (NPV's denominator), each. */
  minPerVerdict: 3,
} as const;

export const BOOTSTRAP_DEFAULTS = { iterations: 1000, seed: 20261201, level: 0.95 } as const;

export type BootstrapSettings = { iterations?: number; seed?: number; level?: number };

/** Inclusion-weighted predictive values of the ledger's verdict against the human one. */
export type PredictiveValues = {
  /** Σw[L ∧ H] / Σw[L], in [0, 1]. null when no audited ledger success carries weight. */
  ppv: number | null;
  /** Σw[¬L ∧ ¬H] / Σw[¬L], in [0, 1]. null when no audited ledger failure carries weight. */
  npv: number | null;
  /** Audited rollouts the ledger passes and fails, unweighted counts. */
  ledgerSuccesses: number;
  ledgerFailures: number;
};

/**
 * The reason a set of audited verdicts is too thin (THIN) to correct a window whose ledger success share is
 * `observed`, or null when it is not. A share of 0 needs no audited ledger success (PPV has no weight), a share of 1
 * no audited ledger failure; null (unknown) needs both.
 */
export function thinReason(items: readonly AuditedVerdict[], observed: number | null): string | null {
  const tickets = new Set(items.map((i) => i.ticket)).size;
  const successes = items.filter((i) => i.ledger).length;
  const failures = items.length - successes;
  if (items.length < THIN.minItems) return `${items.length} audited rollouts, fewer than ${THIN.minItems}`;
  if (tickets < THIN.minTickets) return `${tickets} audited tickets, fewer than ${THIN.minTickets}`;
  if (observed !== 0 && successes < THIN.minPerVerdict)
    return `${successes} audited ledger success${successes === 1 ? "" : "es"}, fewer than ${THIN.minPerVerdict}: no positive predictive value`;
  if (observed !== 1 && failures < THIN.minPerVerdict)
    return `${failures} audited ledger failure${failures === 1 ? "" : "s"}, fewer than ${THIN.minPerVerdict}: no negative predictive value`;
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

/** PPV and NPV with weights 1/π. Throws a RangeError on a π outside (0, 1]: a weight cannot be invented. */
export function weightedPredictiveValues(items: readonly AuditedVerdict[]): PredictiveValues {
  checkWeights(items);
  const s = sums(items);
  return {
    ppv: s.ledgerPos > 0 ? s.truePos / s.ledgerPos : null,
    npv: s.ledgerNeg > 0 ? s.trueNeg / s.ledgerNeg : null,
    ledgerSuccesses: items.filter((i) => i.ledger).length,
    ledgerFailures: items.filter((i) => !i.ledger).length,
  };
}

/**
 * The two-phase estimate of the human success rate: p·PPV + (1 − p)·(1 − NPV), with p the census share of ledger
 * successes. In [0, 1]. A predictive value may be null exactly when its verdict's share is 0 (its term has no weight);
 * otherwise it throws, as it does on a share outside [0, 1].
 */
export function twoPhaseRate(observed: number, ppv: number | null, npv: number | null): number {
  for (const [name, v] of [
    ["observed share", observed],
    ["positive predictive value", ppv ?? 0],
    ["negative predictive value", npv ?? 1],
  ] as const)
    if (!(v >= 0 && v <= 1)) throw new RangeError(`${name} must be in [0, 1], got ${v}`);
  if (ppv === null && observed > 0) throw new RangeError("a positive predictive value is needed when p > 0");
  if (npv === null && observed < 1) throw new RangeError("a negative predictive value is needed when p < 1");
  const pos = observed > 0 ? observed * ppv! : 0;
  const neg = observed < 1 ? (1 - observed) * (1 - npv!) : 0;
  return Math.min(1, Math.max(0, pos + neg));
}

/** Weighted sums: all, ledger successes, those the human passes too, ledger failures, those the human fails too. */
type Sums = { w: number; ledgerPos: number; truePos: number; ledgerNeg: number; trueNeg: number; diff: number };

const emptySums = (): Sums => ({ w: 0, ledgerPos: 0, truePos: 0, ledgerNeg: 0, trueNeg: 0, diff: 0 });

function sums(items: readonly AuditedVerdict[]): Sums {
  const s = emptySums();
  for (const i of items) addItem(s, i);
  return s;
}

function addItem(s: Sums, i: AuditedVerdict): void {
  const w = 1 / i.inclusionProbability;
  s.w += w;
  if (i.ledger) {
    s.ledgerPos += w;
    if (i.human) s.truePos += w;
  } else {
    s.ledgerNeg += w;
    if (!i.human) s.trueNeg += w;
  }
  s.diff += w * (i.humanReward - i.ledgerReward);
}

/** The predictive values of weighted sums; null where no audited rollout of that ledger verdict carries weight. */
function predictiveValues(s: Sums): { ppv: number | null; npv: number | null } {
  return {
    ppv: s.ledgerPos > 0 ? Math.min(1, s.truePos / s.ledgerPos) : null,
    npv: s.ledgerNeg > 0 ? Math.min(1, s.trueNeg / s.ledgerNeg) : null,
  };
}

/**
 * The two-phase rate of weighted sums as a range: a point where every predictive value the share needs is known;
 * where one is missing (a resample drew no audited rollout of that verdict) it is taken at its worst for each end —
 * PPV 0 and NPV 1 for the lower, PPV 1 and NPV 0 for the upper — so the range is that verdict's whole share.
 */
function rateRange(observed: number, s: Sums): { lo: number; hi: number; known: boolean } {
  const { ppv, npv } = predictiveValues(s);
  const known = (ppv !== null || observed === 0) && (npv !== null || observed === 1);
  return {
    lo: twoPhaseRate(observed, ppv ?? 0, npv ?? 1),
    hi: twoPhaseRate(observed, ppv ?? 1, npv ?? 0),
    known,
  };
}

export type CorrectedRate = {
  /** The two-phase estimate p·PPV + (1 − p)·(1 − NPV), in [0, 1]. */
  rate: number;
  /** Percentile bootstrap interval over tickets, in [0, 1]; lo ≤ rate ≤ hi is not guaranteed (percentiles). */
  lo: number;
  hi: number;
  /** null where the window's share makes it unneeded and the audit has no rollout of that ledger verdict. */
  ppv: number | null;
  npv: number | null;
  items: number;
  tickets: number;
  /**
   * Resamples that drew no audited ledger success, or failure, where the window has some. Each counts that verdict's
   * predictive value at its worst for each bound (rateRange): it widens the interval rather than being dropped.
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
    if (!s) by.set(i.ticket, (s = emptySums()));
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
    const s = emptySums();
    for (let k = 0; k < n; k++) {
      const t = tickets[randomIndex(rng, n)];
      s.w += t.w;
      s.ledgerPos += t.ledgerPos;
      s.truePos += t.truePos;
      s.ledgerNeg += t.ledgerNeg;
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
 * rollouts (every rollout, not a sample), `items` the audited verdicts PPV and NPV are estimated from (the window's,
 * or a wider pooled window's). Not ok, with the reason, when the items are thin (THIN).
 */
export function correctedSuccessRate(
  observed: number,
  items: readonly AuditedVerdict[],
  bootstrap: BootstrapSettings = {},
): Corrected<CorrectedRate> {
  if (!(observed >= 0 && observed <= 1)) throw new RangeError(`observed share must be in [0, 1], got ${observed}`);
  checkWeights(items);
  const settings = settingsOf(bootstrap);
  const thin = thinReason(items, observed);
  if (thin) return { ok: false, reason: thin };
  const { ppv, npv } = weightedPredictiveValues(items);
  const rate = rateRange(observed, sums(items)).lo;
  const tickets = ticketSums(items);
  const low: number[] = [];
  const high: number[] = [];
  let undefinedResamples = 0;
  for (const s of resamples(tickets, settings)) {
    const r = rateRange(observed, s);
    if (!r.known) undefinedResamples++;
    low.push(r.lo);
    high.push(r.hi);
  }
  low.sort((a, b) => a - b);
  high.sort((a, b) => a - b);
  const alpha = 1 - settings.level;
  return {
    ok: true,
    rate,
    lo: quantileSorted(low, alpha / 2)!,
    hi: quantileSorted(high, 1 - alpha / 2)!,
    ppv,
    npv,
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
