// Confidence intervals: Wilson for proportions (every rate the console shows), a seeded percentile bootstrap for
// statistics without a closed-form interval (κ, α, weighted means). Counts that make no sense (k > n, n ≤ 0, NaN)
// return null; option values that make no sense (level outside (0, 1)) are programming errors and throw.

import { quantileSorted } from "@/lib/stats/descriptive.ts";
import { drawMultinomial, uniform53 } from "@/lib/stats/multinomial.ts";
import { indexDraws, mulberry32, randomIndex } from "@/lib/stats/prng.ts";

export type Interval = { lower: number; upper: number };
/** A point estimate with its interval. Wilson intervals always contain it; percentile bootstraps nearly always. */
export type IntervalEstimate = Interval & { estimate: number };

/** z for a two-sided 95% interval, Φ⁻¹(0.975). */
export const Z_95 = 1.959963984540054;

// Acklam's rational approximation of Φ⁻¹ (relative error < 1.2e-9 over (0, 1)).
const A = [
  -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239,
];
const B = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
const C = [
  -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
  2.938163982698783,
];
const D = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
const P_LOW = 0.02425;

/** Standard normal quantile Φ⁻¹(p) for p in (0, 1); null outside. Accurate to ~1e-9. */
export function normalQuantile(p: number): number | null {
  if (!(p > 0 && p < 1)) return null;
  if (p < P_LOW) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (
      (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5]) /
      ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1)
    );
  }
  if (p > 1 - P_LOW) return -normalQuantile(1 - p)!;
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q) /
    (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1)
  );
}

/** z of a two-sided interval at `level` (0.95 → 1.95996…). Throws RangeError unless 0 < level < 1. */
export function zForLevel(level: number): number {
  if (!(level > 0 && level < 1)) throw new RangeError(`confidence level must be in (0, 1), got ${level}`);
  return normalQuantile(1 - (1 - level) / 2)!;
}

/**
 * Wilson score interval for a proportion p̂ = k/n:
 *   centre = (p̂ + z²/2n) / (1 + z²/n),  half-width = z / (1 + z²/n) · sqrt(p̂(1 − p̂)/n + z²/4n²).
 * Always inside [0, 1] and contains p̂, unlike the Wald interval, and sensible at k = 0 or k = n — which is why every
 * rate here uses it. k and n may be fractional (a weighted count on an effective n). Range: 0 ≤ lower ≤ p̂ ≤ upper ≤ 1.
 * null when n ≤ 0, k < 0, k > n, or either is not finite.
 */
export function wilson(k: number, n: number, z: number = Z_95): IntervalEstimate | null {
  if (!Number.isFinite(k) || !Number.isFinite(n) || n <= 0 || k < 0 || k > n) return null;
  if (!(z > 0) || !Number.isFinite(z)) throw new RangeError(`z must be a positive number, got ${z}`);
  const p = k / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z / denom) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  // The bounds are exactly 0 and 1 at the extremes; rounding must not leave −1e-17 or push p̂ outside.
  const lower = k === 0 ? 0 : Math.min(p, Math.max(0, centre - half));
  const upper = k === n ? 1 : Math.max(p, Math.min(1, centre + half));
  return { estimate: p, lower, upper };
}

/**
 * The interval of an agreement coefficient (p_a − p_e)/(1 − p_e) on n items that all agree (p_a = 1). Gwet's variance
 * is then 0 and every bootstrap resample agrees perfectly too, so both collapse to [1, 1]: a certainty n items cannot
 * give. Instead the Wilson interval of p_a (n of n: [n/(n + z²), 1]) is carried through the coefficient with p_e held
 * at its estimate: [(n/(n + z²) − p_e)/(1 − p_e), 1], at least −1. At n = 30 and p_e = 0.5 it reads 0.773 to 1.
 * Throws a RangeError on n < 1 or p_e outside [0, 1).
 */
export function perfectAgreementInterval(n: number, pe: number, level = 0.95): Interval {
  if (!(n >= 1)) throw new RangeError(`n must be at least 1, got ${n}`);
  if (!(pe >= 0 && pe < 1)) throw new RangeError(`chance agreement must be in [0, 1), got ${pe}`);
  const lowerPa = wilson(n, n, zForLevel(level))!.lower;
  return { lower: Math.max(-1, (lowerPa - pe) / (1 - pe)), upper: 1 };
}

export type BootstrapOptions = {
  /** Resamples drawn; default 2000. */
  iterations?: number;
  /** PRNG seed; the same seed, items and statistic give the same interval. Default 1. */
  seed?: number;
  /** Two-sided level; default 0.95. */
  level?: number;
};

export type BootstrapInterval = IntervalEstimate & {
  level: number;
  iterations: number;
  /** Resamples on which the statistic was defined (not null, finite); the percentiles are taken over these. */
  valid: number;
};

/**
 * Percentile bootstrap (Efron): draw `iterations` resamples of the items with replacement (mulberry32 seeded by
 * `seed`), evaluate `statistic` on each, and take the (1 − level)/2 and (1 + level)/2 quantiles (type 7) of the
 * defined values. Resample items, not raters: pass rating pairs or units, so the dependence within an item stays.
 * `estimate` is the statistic on the full sample. The statistic receives a reused buffer: it must not keep it.
 * null when there are no items, the statistic is undefined on the full sample, or fewer than half of the
 * resamples are defined (e.g. κ on data that is nearly one class: an interval from the survivors would mislead).
 * For a very skewed statistic a percentile interval can exclude the estimate; it is reported as is, not clamped.
 */
export function bootstrapCI<T>(
  items: readonly T[],
  statistic: (sample: readonly T[]) => number | null,
  options: BootstrapOptions = {},
): BootstrapInterval | null {
  const { iterations = 2000, seed = 1, level = 0.95 } = options;
  checkOptions(iterations, level);
  const n = items.length;
  if (n === 0) return null;
  const estimate = statistic(items);
  if (estimate === null || !Number.isFinite(estimate)) return null;

  const rng = mulberry32(seed);
  const sample = new Array<T>(n);
  const values: number[] = [];
  for (let it = 0; it < iterations; it++) {
    for (let i = 0; i < n; i++) sample[i] = items[randomIndex(rng, n)];
    const v = statistic(sample);
    if (v !== null && Number.isFinite(v)) values.push(v);
  }
  return percentileInterval(estimate, values, iterations, level);
}

/** The percentile interval of a bootstrap's defined values; null when fewer than half the resamples were defined. */
function percentileInterval(
  estimate: number,
  values: number[],
  iterations: number,
  level: number,
): BootstrapInterval | null {
  if (values.length * 2 < iterations) return null;
  values.sort((a, b) => a - b);
  const alpha = 1 - level;
  return {
    estimate,
    lower: quantileSorted(values, alpha / 2)!,
    upper: quantileSorted(values, 1 - alpha / 2)!,
    level,
    iterations,
    valid: values.length,
  };
}

function checkOptions(iterations: number, level: number) {
  if (!Number.isInteger(iterations) || iterations < 1)
    throw new RangeError(`iterations must be a positive integer, got ${iterations}`);
  if (!(level > 0 && level < 1)) throw new RangeError(`confidence level must be in (0, 1), got ${level}`);
}

/**
 * One statistic of bootstrapMany: its value on the full sample and on a resample given as draws (indices into the
 * items, in the order drawn), which must equal what bootstrapCI's statistic gives on the items at those indices.
 */
export type DrawnStatistic = {
  estimate: number | null;
  /** The statistic on the resample of `draws`; the buffer is reused: it must not keep it. */
  resample: (draws: Int32Array) => number | null;
  /** Resamples for this statistic; default: the options' iterations. */
  iterations?: number;
};

/**
 * bootstrapCI for several statistics of the same n items and seed, from one stream of draws: the resamples are
 * the same for all of them (each takes the first `iterations`), so each interval equals bootstrapCI's to the bit —
 * same draws, same values, same order — while the draws, most of a bootstrap's cost, are made once instead of once
 * per statistic. null, per statistic, as for bootstrapCI.
 */
export function bootstrapMany(
  n: number,
  statistics: readonly DrawnStatistic[],
  options: BootstrapOptions = {},
): (BootstrapInterval | null)[] {
  const { iterations = 2000, seed = 1, level = 0.95 } = options;
  const counts = statistics.map((s) => s.iterations ?? iterations);
  for (const it of counts) checkOptions(it, level);
  const defined = statistics.map((s) => n > 0 && s.estimate !== null && Number.isFinite(s.estimate));
  const rounds = Math.max(0, ...counts.filter((_, j) => defined[j]));
  const values = statistics.map((): number[] => []);
  const draw = indexDraws(seed);
  const draws = new Int32Array(n);
  for (let it = 0; it < rounds; it++) {
    draw(draws, n);
    for (let j = 0; j < statistics.length; j++) {
      if (!defined[j] || it >= counts[j]) continue;
      const v = statistics[j].resample(draws);
      if (v !== null && Number.isFinite(v)) values[j].push(v);
    }
  }
  return statistics.map((s, j) => (defined[j] ? percentileInterval(s.estimate!, values[j], counts[j], level) : null));
}

/** A statistic of items that fall into types, on the full sample and on a resample given as its count per type. */
export type CountedStatistic = {
  estimate: number | null;
  /** The statistic on a resample with counts[t] items of type t; the buffer is reused: it must not keep it. */
  resample: (counts: Float64Array) => number | null;
};

/**
 * Percentile bootstrap of a statistic that depends on the items only through how many are of each type — sizes[t]
 * items of type t, n = Σ sizes (integers) — such as κ (the types: the cells of its confusion matrix). Resampling the
 * n items with replacement puts Multinomial(n, sizes / n) of them into the types, so each resample is one such draw
 * (lib/stats/multinomial.ts, seeded by `seed` through uniform53): the same bootstrap in distribution as bootstrapCI
 * over the items, at O(types + √n) a resample instead of O(n). Its draws are not bootstrapCI's, so the bounds agree
 * with it only up to the resampling's own noise. null as for bootstrapCI.
 */
export function bootstrapCounts(
  sizes: readonly number[],
  statistic: CountedStatistic,
  options: BootstrapOptions = {},
): BootstrapInterval | null {
  const { iterations = 2000, seed = 1, level = 0.95 } = options;
  checkOptions(iterations, level);
  let n = 0;
  for (const s of sizes) {
    if (!(Number.isInteger(s) && s >= 0)) throw new RangeError(`a type's size must be a count, got ${s}`);
    n += s;
  }
  const estimate = statistic.estimate;
  if (n === 0 || estimate === null || !Number.isFinite(estimate)) return null;
  const uniform = uniform53(seed);
  const counts = new Float64Array(sizes.length);
  const values: number[] = [];
  for (let it = 0; it < iterations; it++) {
    drawMultinomial(uniform, n, sizes, counts);
    const v = statistic.resample(counts);
    if (v !== null && Number.isFinite(v)) values.push(v);
  }
  return percentileInterval(estimate, values, iterations, level);
}
