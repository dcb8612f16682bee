// Small descriptive statistics shared by the other files in lib/stats. Inputs are plain numbers; callers decide
// what a missing value is (see each caller's doc). Every function returns null when its value is undefined.

/** True for a finite number (not NaN, not ±Infinity): the test every file uses to tell data from missing. */
export function isFiniteNumber(x: unknown): x is number {
  return typeof x === "number" && Number.isFinite(x);
}

/** Arithmetic mean Σx / n. Range: that of x. null when n = 0. */
export function mean(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  let s = 0;
  // indexed, not for…of: called with arrays of every element kind, it stays polymorphic and an iterator's result
  // was allocated per value (10 MB a build of the agreement report)
  for (let i = 0; i < values.length; i++) s += values[i];
  return s / values.length;
}

/**
 * Population standard deviation sqrt(Σ(x − x̄)² / n) (divides by n, not n − 1: a GRPO group is the whole population
 * the advantage is normalised over). Two-pass for accuracy. Range [0, ∞); exactly 0 when all values are equal (the
 * mean of equal floats can differ from them in the last bit, which would otherwise leave a 1e-17 "spread").
 * null when n = 0.
 */
export function populationStd(values: readonly number[]): number | null {
  const m = mean(values);
  if (m === null) return null;
  if (values.every((v) => v === values[0])) return 0;
  let ss = 0;
  for (const v of values) ss += (v - m) * (v - m);
  return Math.sqrt(ss / values.length);
}

/**
 * Quantile of an ascending array by linear interpolation between order statistics (Hyndman & Fan type 7, the
 * default of R and NumPy): h = (n − 1)p, Q = x[⌊h⌋] + (h − ⌊h⌋)(x[⌊h⌋+1] − x[⌊h⌋]). p in [0, 1]. null when n = 0.
 */
export function quantileSorted(sorted: ArrayLike<number>, p: number): number | null {
  const n = sorted.length;
  if (n === 0 || !(p >= 0 && p <= 1)) return null;
  const h = (n - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, n - 1);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}

/**
 * quantileSorted of `values` as they would be sorted, found by selection instead (Hoare's quickselect for x[⌊h⌋],
 * then the least value above it): the same two order statistics interpolated the same way, in O(n) rather than a
 * sort. Reorders `values` in place; they must hold no NaN. null when n = 0 or p is outside [0, 1].
 */
export function quantileOfUnsorted(values: Float64Array, p: number): number | null {
  const n = values.length;
  if (n === 0 || !(p >= 0 && p <= 1)) return null;
  const h = (n - 1) * p;
  const lo = Math.floor(h);
  const atLo = selectInPlace(values, lo);
  // after selection every value past lo is at least x[lo]: the next order statistic is the least of them
  let atHi = atLo;
  if (lo + 1 < n) {
    atHi = values[lo + 1];
    for (let i = lo + 2; i < n; i++) if (values[i] < atHi) atHi = values[i];
  }
  return atLo + (h - lo) * (atHi - atLo);
}

/** Reorders `xs` so that xs[k] is the k-th smallest (from 0), no value before it larger and none after it smaller. */
function selectInPlace(xs: Float64Array, k: number): number {
  let left = 0;
  let right = xs.length - 1;
  while (left < right) {
    const pivot = xs[(left + right) >>> 1];
    let i = left;
    let j = right;
    while (i <= j) {
      while (xs[i] < pivot) i++;
      while (xs[j] > pivot) j--;
      if (i <= j) {
        const t = xs[i];
        xs[i++] = xs[j];
        xs[j--] = t;
      }
    }
    if (k <= j) right = j;
    else if (k >= i) left = i;
    else break;
  }
  return xs[k];
}
