// Agreement between the reward ledger and the humans who re-score a shadow sample blind. Missing data is ignored,
// never imputed: a pair whose human or ledger score is null, undefined, NaN or ±Infinity is dropped, and every result
// reports the n it was computed on, so a shrinking n is visible instead of silently shifting the estimate.

import {
  confusionMatrix,
  kappaIntervalOfMatrix,
  kappaUndefinedReason,
  type ConfusionMatrix,
} from "@/lib/stats/kappa.ts";
import { meanAbsoluteError, spearman } from "@/lib/stats/correlation.ts";
import { isFiniteNumber } from "@/lib/stats/descriptive.ts";
import {
  wilson,
  Z_95,
  type BootstrapInterval,
  type BootstrapOptions,
  type IntervalEstimate,
} from "@/lib/stats/intervals.ts";

export type ScorePair = { ledger: number | null | undefined; human: number | null | undefined };

/** Default agreement tolerance on rewards in [0, 1] (the reference project's 88% used 0.1). */
export const AGREEMENT_TOLERANCE = 0.1;
/** Task success is pass@1 with reward ≥ 0.9 (domain.md). */
export const SUCCESS_THRESHOLD = 0.9;
// |h − l| ≤ tolerance is decided with this slack: 0.4 − 0.3 is 0.10000000000000003 in floating point.
const TOLERANCE_SLACK = 1e-9;

/** True when both scores are present and within `tolerance` of each other (see agreementRate). */
export function scoresAgree(human: number, ledger: number, tolerance: number = AGREEMENT_TOLERANCE): boolean {
  return Math.abs(human - ledger) <= tolerance + TOLERANCE_SLACK;
}

export type AgreementRate = { agreeing: number; n: number; rate: number; interval: IntervalEstimate };

/**
 * Agreement rate = #{|human − ledger| ≤ tolerance} / n over complete pairs, with its Wilson interval (z default
 * 1.96). Range [0, 1]. The comparison allows 1e-9 of rounding slack. null when n = 0. Throws on tolerance < 0.
 */
export function agreementRate(
  pairs: readonly ScorePair[],
  options: { tolerance?: number; z?: number } = {},
): AgreementRate | null {
  const { tolerance = AGREEMENT_TOLERANCE, z = Z_95 } = options;
  if (!(tolerance >= 0)) throw new RangeError(`tolerance must be ≥ 0, got ${tolerance}`);
  let n = 0;
  let agreeing = 0;
  for (const { human, ledger } of pairs) {
    if (!isFiniteNumber(human) || !isFiniteNumber(ledger)) continue;
    n++;
    if (scoresAgree(human, ledger, tolerance)) agreeing++;
  }
  const interval = wilson(agreeing, n, z);
  return interval && { agreeing, n, rate: interval.estimate, interval };
}

export type VerdictKappa = {
  /** null when undefined: one side gives every item the same verdict (undefinedReason says which). */
  kappa: number | null;
  undefinedReason: string | null;
  /** Seeded percentile bootstrap over items; null when too few resamples have a defined κ. */
  interval: BootstrapInterval | null;
  /** Rows: ledger verdict, columns: human verdict; labels [true (success), false]. */
  matrix: ConfusionMatrix<boolean>;
  n: number;
};

/**
 * Cohen's κ on the success verdict (reward ≥ threshold, default 0.9) of ledger vs human, with a seeded
 * bootstrap interval (see cohensKappaInterval). Range [−1, 1]. null when n = 0; kappa null, with the reason, when
 * either side gives every item the same verdict (κ undefined; the agreement rate still says how often they agree).
 */
export function successVerdictKappa(
  pairs: readonly ScorePair[],
  options: BootstrapOptions & { threshold?: number } = {},
): VerdictKappa | null {
  const { threshold = SUCCESS_THRESHOLD, ...bootstrap } = options;
  const verdicts: (readonly [boolean, boolean])[] = [];
  for (const { human, ledger } of pairs) {
    if (isFiniteNumber(human) && isFiniteNumber(ledger)) verdicts.push([ledger >= threshold, human >= threshold]);
  }
  const matrix = confusionMatrix(verdicts, [true, false]);
  if (matrix.n === 0) return null;
  const kappa = binaryKappa(matrix.counts[0][0], matrix.counts[0][1], matrix.counts[1][0], matrix.counts[1][1]);
  if (kappa === null)
    return {
      kappa,
      undefinedReason: kappaUndefinedReason(matrix.counts, VERDICT_RATERS),
      interval: null,
      matrix,
      n: matrix.n,
    };
  return {
    kappa,
    undefinedReason: null,
    interval: kappaIntervalOfMatrix(matrix.counts, bootstrap),
    matrix,
    n: matrix.n,
  };
}

/** The raters of the success-verdict matrix (rows: ledger, columns: human), for kappaUndefinedReason. */
export const VERDICT_RATERS = { a: "the ledger", b: "the human side", what: "verdict" };

/**
 * κ of a 2×2 table (tp, fp, fn, tn): κ = 2(tp·tn − fp·fn) / ((tp + fp)(fp + tn) + (tp + fn)(fn + tn)), algebraically
 * Cohen's (p_o − p_e)/(1 − p_e). Range [−1, 1]. null when n = 0 or either side is constant (the ledger or the human
 * fires on every item or on none: see kappaUndefinedReason).
 */
export function binaryKappa(tp: number, fp: number, fn: number, tn: number): number | null {
  const denominator = (tp + fp) * (fp + tn) + (tp + fn) * (fn + tn);
  if (denominator === 0 || tp + fp === 0 || fn + tn === 0 || tp + fn === 0 || fp + tn === 0) return null;
  return (2 * (tp * tn - fp * fn)) / denominator;
}

export type BinaryAgreement = {
  /** Both fired. */ tp: number;
  /** Ledger fired, human did not. */ fp: number;
  /** Human fired, ledger did not. */ fn: number;
  /** Neither fired. */ tn: number;
  n: number;
  /** tp / (tp + fp): of the ledger's firings, the share the human confirms. null when the ledger never fired. */
  precision: number | null;
  /** tp / (tp + fn): of the human's firings, the share the ledger caught. null when the human never fired. */
  recall: number | null;
  /** Cohen's κ of the 2×2 table; null when both sides are constant and equal. */
  kappa: number | null;
  /** (tp + tn) / n with its Wilson interval; null when n = 0. */
  agreement: IntervalEstimate | null;
};

/** Ledger-vs-human counts and metrics for one binary signal ("positive" = it fired). The human is the reference. */
export function binaryAgreement(
  pairs: readonly { ledger: boolean; human: boolean }[],
  z: number = Z_95,
): BinaryAgreement {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let tn = 0;
  for (let i = 0; i < pairs.length; i++) {
    const { ledger, human } = pairs[i];
    if (ledger && human) tp++;
    else if (ledger) fp++;
    else if (human) fn++;
    else tn++;
  }
  const n = tp + fp + fn + tn;
  return {
    tp,
    fp,
    fn,
    tn,
    n,
    precision: tp + fp > 0 ? tp / (tp + fp) : null,
    recall: tp + fn > 0 ? tp / (tp + fn) : null,
    kappa: binaryKappa(tp, fp, fn, tn),
    agreement: wilson(tp + tn, n, z),
  };
}

/** One reviewed item: the guardrail codes the ledger triggered and those the human flagged (null: not reviewed). */
export type GuardrailFlags = { ledger: readonly string[]; human: readonly string[] | null | undefined };

/**
 * Per guardrail code, the ledger-vs-human confusion counts, precision, recall and κ (see binaryAgreement). Items
 * whose human flags are missing are skipped. Codes outside `codes` are ignored, so pass every code shown.
 */
export function guardrailAgreement<C extends string>(
  items: readonly GuardrailFlags[],
  codes: readonly C[],
  z: number = Z_95,
): (BinaryAgreement & { code: C })[] {
  const reviewed = items.filter((item) => Array.isArray(item.human));
  return codes.map((code) => ({
    code,
    ...binaryAgreement(
      reviewed.map((item) => ({ ledger: item.ledger.includes(code), human: item.human!.includes(code) })),
      z,
    ),
  }));
}

export type DimensionScores<D extends string> = Partial<Record<D, number | null>>;

export type DimensionAgreement<D extends string> = {
  dimension: D;
  /** Items where both sides scored this dimension. */
  n: number;
  /** Mean |human − ledger|; range [0, 1]; null when n = 0. */
  mae: number | null;
  /** Spearman's ρ with average ranks for ties; null when n < 2 or a side is constant. */
  spearman: number | null;
};

/** Per sub-score dimension, mean absolute error and Spearman's ρ of human vs ledger (missing scores ignored). */
export function dimensionAgreement<D extends string>(
  items: readonly { ledger: DimensionScores<D>; human: DimensionScores<D> }[],
  dimensions: readonly D[],
): DimensionAgreement<D>[] {
  return dimensions.map((dimension) => {
    const ledger = items.map((item) => item.ledger[dimension]);
    const human = items.map((item) => item.human[dimension]);
    const n = ledger.filter((l, i) => isFiniteNumber(l) && isFiniteNumber(human[i])).length;
    return { dimension, n, mae: meanAbsoluteError(ledger, human), spearman: spearman(ledger, human) };
  });
}
