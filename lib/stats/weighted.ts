// Estimates from shadow samples drawn with unequal inclusion probabilities (e.g. stratified by ticket category or
// reward band, oversampling rare strata). Each sampled item carries π, the probability it had of being sampled;
// weighting by 1/π undoes the oversampling. A missing value (null, undefined, NaN) drops the item — it was sampled
// but not reviewed — while an invalid π (not in (0, 1]) makes the estimate null: a weight cannot be invented, and
// dropping the item would bias the estimate without anyone seeing it.

import { binaryKappa, scoresAgree, AGREEMENT_TOLERANCE, type ScorePair } from "@/lib/stats/agreement.ts";
import { isFiniteNumber } from "@/lib/stats/descriptive.ts";
import {
  bootstrapCounts,
  perfectAgreementInterval,
  wilson,
  Z_95,
  type BootstrapInterval,
  type BootstrapOptions,
  type IntervalEstimate,
} from "@/lib/stats/intervals.ts";

export type WeightedObservation = {
  /** The indicator (true/1 = the item has the property) or a share in [0, 1]. */
  value: boolean | number | null | undefined;
  /** π in (0, 1]: the probability this item had of entering the sample. */
  inclusionProbability: number;
};

export type WeightedProportion = {
  /** Hájek estimate Σ y_i/π_i / Σ 1/π_i. Range [0, 1]. */
  estimate: number;
  /** Horvitz–Thompson estimate Σ y_i/π_i / N when the population size N is given, else null. Range [0, ∞). */
  horvitzThompson: number | null;
  /** Items with a value. */
  n: number;
  /** Kish effective sample size (Σw)² / Σw². Range (0, n]; equals n when all weights are equal. */
  nEffective: number;
  /** Σ 1/π_i: the Horvitz–Thompson estimate of the population size. */
  sumWeights: number;
  /** Wilson interval on the effective n: wilson(estimate · nEffective, nEffective). */
  interval: IntervalEstimate;
};

/**
 * Kish's effective sample size n_eff = (Σ w_i)² / Σ w_i² for weights w_i > 0 — the n of an equally weighted
 * sample with the same precision, under the assumption that the weights are unrelated to the outcome.
 * Range (0, n]. null when there are no weights or any weight is not a positive finite number.
 */
export function kishEffectiveSize(weights: readonly number[]): number | null {
  if (weights.length === 0) return null;
  let s = 0;
  let s2 = 0;
  for (const w of weights) {
    if (!(w > 0) || !Number.isFinite(w)) return null;
    s += w;
    s2 += w * w;
  }
  // Equal weights give exactly n; the quotient of rounded sums can overshoot by an ulp.
  return Math.min(weights.length, (s * s) / s2);
}

/**
 * Weighted proportion with weights w_i = 1/π_i:
 *   Hájek p̂ = Σ w_i y_i / Σ w_i (ratio estimator, range [0, 1], the one to display),
 *   Horvitz–Thompson p̂_HT = Σ w_i y_i / N (unbiased when N is the true population size, but can exceed 1).
 * Interval: Wilson at n_eff (Kish). This accounts for the precision lost to unequal weights, not for gains from
 * stratification, so it is a design-effect approximation rather than a design-based variance.
 * null when no item has a value, a value is outside [0, 1], or a π is outside (0, 1].
 */
export function weightedProportion(
  observations: readonly WeightedObservation[],
  options: { populationSize?: number; z?: number } = {},
): WeightedProportion | null {
  const { populationSize, z = Z_95 } = options;
  if (populationSize !== undefined && !(populationSize > 0))
    throw new RangeError(`populationSize must be > 0, got ${populationSize}`);
  const weights: number[] = [];
  let weighted = 0;
  for (const { value, inclusionProbability: pi } of observations) {
    if (!(pi > 0 && pi <= 1)) return null;
    const y = typeof value === "boolean" ? (value ? 1 : 0) : value;
    if (!isFiniteNumber(y)) continue;
    if (y < 0 || y > 1) return null;
    weights.push(1 / pi);
    weighted += y / pi;
  }
  const nEffective = kishEffectiveSize(weights);
  if (nEffective === null) return null;
  let sumWeights = 0;
  for (const w of weights) sumWeights += w;
  const estimate = Math.min(1, weighted / sumWeights);
  return {
    estimate,
    horvitzThompson: populationSize === undefined ? null : weighted / populationSize,
    n: weights.length,
    nEffective,
    sumWeights,
    interval: wilson(estimate * nEffective, nEffective, z)!,
  };
}

/**
 * Weighted agreement rate: the Hájek proportion of items with |human − ledger| ≤ tolerance (default 0.1), with the
 * Wilson interval on the Kish effective n. Pairs with a missing score are dropped. null as for weightedProportion.
 */
export function weightedAgreementRate(
  items: readonly (ScorePair & { inclusionProbability: number })[],
  options: { tolerance?: number; populationSize?: number; z?: number } = {},
): WeightedProportion | null {
  const { tolerance = AGREEMENT_TOLERANCE, ...rest } = options;
  if (!(tolerance >= 0)) throw new RangeError(`tolerance must be ≥ 0, got ${tolerance}`);
  return weightedProportion(
    items.map(({ human, ledger, inclusionProbability }) => ({
      value: isFiniteNumber(human) && isFiniteNumber(ledger) ? scoresAgree(human, ledger, tolerance) : null,
      inclusionProbability,
    })),
    rest,
  );
}

export type WeightedBinaryAgreement = {
  /** Σ 1/π over items where both fired, ledger only, human only, neither: estimates of the population table. */
  tp: number;
  fp: number;
  fn: number;
  tn: number;
  /** Cohen's κ of the weighted table (binaryKappa on weighted counts); null when it is undefined. */
  kappa: number | null;
  /** Hájek share of items where ledger and human say the same, with its Wilson interval at the Kish n. */
  agreement: WeightedProportion;
};

/**
 * Ledger-vs-human agreement on one binary signal with each item counted 1/π_i times. κ is computed on the weighted
 * 2×2 table, κ = 2(tp·tn − fp·fn) / ((tp + fp)(fp + tn) + (tp + fn)(fn + tn)), i.e. Cohen's κ of the population
 * table the sample estimates. With equal π it equals the unweighted κ. Range [−1, 1].
 * null when there are no items or a π is outside (0, 1].
 */
export function weightedBinaryAgreement(
  items: readonly { ledger: boolean; human: boolean; inclusionProbability: number }[],
  z: number = Z_95,
): WeightedBinaryAgreement | null {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let tn = 0;
  for (const { ledger, human, inclusionProbability: pi } of items) {
    if (!(pi > 0 && pi <= 1)) return null;
    const w = 1 / pi;
    if (ledger && human) tp += w;
    else if (ledger) fp += w;
    else if (human) fn += w;
    else tn += w;
  }
  const agreement = weightedProportion(
    items.map((i) => ({ value: i.ledger === i.human, inclusionProbability: i.inclusionProbability })),
    { z },
  );
  if (!agreement) return null;
  return { tp, fp, fn, tn, kappa: binaryKappa(tp, fp, fn, tn), agreement };
}

/**
 * Seeded percentile bootstrap of the weighted κ of weightedBinaryAgreement, resampling items with their π. The
 * weighted κ reads the items only through how many fall into each (cell, π) type — a batch has a few strata, so a few
 * π — so each resample is drawn as its count per type (bootstrapCounts, one multinomial draw), and its table is
 * Σ count · 1/π per cell. null as for bootstrapCI.
 */
export function weightedBinaryKappaInterval(
  items: readonly { ledger: boolean; human: boolean; inclusionProbability: number }[],
  options: BootstrapOptions = {},
): BootstrapInterval | null {
  const w = weightedBinaryAgreement(items);
  const estimate = w?.kappa ?? null;
  if (estimate === null) return null;
  // every item agreeing: every resample agrees too, and the bootstrap would read [1, 1]; Wilson's interval of the
  // agreement on Kish's effective n carried through the weighted p_e instead (perfectAgreementInterval)
  if (w!.fp === 0 && w!.fn === 0) {
    const total = w!.tp + w!.tn;
    const pe = (w!.tp / total) ** 2 + (w!.tn / total) ** 2;
    const level = options.level ?? 0.95;
    const iv = perfectAgreementInterval(w!.agreement.nEffective, pe, level);
    return { estimate, ...iv, level, iterations: 0, valid: 0 };
  }
  // 0: both fired, 1: ledger only, 2: human only, 3: neither; then the weight
  const index = new Map<string, number>();
  const sizes: number[] = [];
  const cells: number[] = [];
  const weights: number[] = [];
  for (const i of items) {
    const cell = i.ledger && i.human ? 0 : i.ledger ? 1 : i.human ? 2 : 3;
    const key = `${cell}:${i.inclusionProbability}`;
    let t = index.get(key);
    if (t === undefined) {
      index.set(key, (t = sizes.length));
      sizes.push(0);
      cells.push(cell);
      weights.push(1 / i.inclusionProbability);
    }
    sizes[t]++;
  }
  const table = new Float64Array(4);
  return bootstrapCounts(
    sizes,
    {
      estimate,
      resample: (counts) => {
        table.fill(0);
        for (let t = 0; t < counts.length; t++) table[cells[t]] += counts[t] * weights[t];
        return binaryKappa(table[0], table[1], table[2], table[3]);
      },
    },
    options,
  );
}
