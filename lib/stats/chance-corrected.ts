// Agreement coefficients that survive prevalence: Gwet's AC1 and the Brennan–Prediger coefficient (for two raters and
// two categories, PABAK: the prevalence- and bias-adjusted κ, 2·p_o − 1). Cohen's κ takes its chance agreement from
// the raters' marginals, so when both raters call 85% of items a success it is high (p_e ≈ 0.745) and κ is low even
// at 88% agreement (κ ≈ 0.53). AC1 takes chance agreement as the propensity to agree on hard-to-score items,
// p_e = Σ_k π_k(1 − π_k)/(q − 1), which is small when prevalence is extreme (AC1 ≈ 0.84 on the same items); PABAK
// takes p_e = 1/q. Variances are Gwet's (2008; Handbook of Inter-Rater Reliability, 4th ed., 2014), the intervals
// t-based with n − 1 degrees of freedom, as in Gwet's irrCAC package, so published worked examples reproduce exactly.
// Two cases measure nothing and are handled apart: when every rating falls in one category (both sides give every
// item the same verdict) no item could have disagreed, and AC1 and PABAK are undefined, as κ is; when every item agrees
// (p_a = 1) over two or more categories the variance is 0, and the interval is perfectAgreementInterval's instead.

import { perfectAgreementInterval, type Interval } from "@/lib/stats/intervals.ts";
import type { RaterNames } from "@/lib/stats/kappa.ts";
import { studentTQuantile } from "@/lib/stats/student-t.ts";

export type ChanceCorrected = {
  value: number;
  /** Standard error (Gwet's variance estimator; no finite-population correction). */
  se: number;
  /** value ± t(0.975, n − 1)·se, kept inside [−1, 1]; null when n < 2. */
  interval: Interval | null;
  /** Observed agreement. */
  pa: number;
  /** Chance agreement under the coefficient's own definition. */
  pe: number;
  /** Items rated (table: by both raters; raw: by at least two raters). */
  n: number;
  /** Categories. */
  q: number;
};

/** value ± t·se on n − 1 df; where every item agrees (`perfect`: the items that could disagree, and p_e) instead
 * perfectAgreementInterval, which does not collapse to [1, 1]. */
function tInterval(
  value: number,
  se: number,
  n: number,
  level: number,
  perfect: { n: number; pe: number } | null,
): Interval | null {
  if (perfect && perfect.n >= 2) return perfectAgreementInterval(perfect.n, perfect.pe, level);
  if (n < 2 || !Number.isFinite(se)) return null;
  const t = studentTQuantile(1 - (1 - level) / 2, n - 1);
  return { lower: Math.max(-1, value - t * se), upper: Math.min(1, value + t * se) };
}

function tableShape(counts: readonly (readonly number[])[]) {
  const q = counts.length;
  let n = 0;
  let diagonal = 0;
  const rows = new Array<number>(q).fill(0);
  const cols = new Array<number>(q).fill(0);
  for (let i = 0; i < q; i++) {
    if (counts[i].length !== q) throw new RangeError("a contingency table must be square");
    for (let j = 0; j < q; j++) {
      const c = counts[i][j];
      if (!(c >= 0)) throw new RangeError(`a count must be a non-negative number, got ${c}`);
      n += c;
      rows[i] += c;
      cols[j] += c;
      if (i === j) diagonal += c;
    }
  }
  const used = rows.filter((r, k) => r + cols[k] > 0).length;
  return { q, n, pa: n > 0 ? diagonal / n : 0, rows, cols, used };
}

/**
 * Why AC1 and PABAK of a two-rater table (rows: rater A, columns: rater B) measure nothing, or null when they do: no
 * item rated by both, or every rating in one category (p_a = 1 and p_e = 0 by construction: no item could disagree).
 */
export function chanceCorrectedUndefinedReason(
  counts: readonly (readonly number[])[],
  names: RaterNames,
): string | null {
  const { n, used } = tableShape(counts);
  if (!(n > 0)) return "no item was rated by both";
  if (used <= 1) return `${names.a} and ${names.b} give every item the same ${names.what}: nothing to tell apart`;
  return null;
}

/**
 * Gwet's AC1 of two raters from their q×q contingency table (rows: rater A, columns: rater B; list every category,
 * used or not: for a success verdict q = 2 even when nobody failed). AC1 = (p_a − p_e)/(1 − p_e), with
 * π_k = (row_k + col_k)/2n and p_e = Σ π_k(1 − π_k)/(q − 1). Variance (Gwet 2008, eq. for two raters):
 *   v = [Σ_kl p_kl (δ_kl − 2(1 − AC1)(1 − (π_k + π_l)/2)/(q − 1))² − (p_a − 2(1 − AC1)p_e)²] / (n(1 − p_e)²).
 * null when no item was rated, q < 2, or every rating is in one category (chanceCorrectedUndefinedReason).
 */
export function gwetAc1(counts: readonly (readonly number[])[], level = 0.95): ChanceCorrected | null {
  const { q, n, pa, rows, cols, used } = tableShape(counts);
  if (q < 2 || !(n > 0) || used <= 1) return null;
  const pi = rows.map((r, k) => (r + cols[k]) / (2 * n));
  const pe = pi.reduce((s, p) => s + p * (1 - p), 0) / (q - 1);
  if (1 - pe < 1e-15) return null;
  const ac1 = (pa - pe) / (1 - pe);
  let sum = 0;
  for (let k = 0; k < q; k++)
    for (let l = 0; l < q; l++) {
      const term = (k === l ? 1 : 0) - (2 * (1 - ac1) * (1 - (pi[k] + pi[l]) / 2)) / (q - 1);
      sum += (counts[k][l] / n) * term * term;
    }
  const variance = Math.max(0, (sum - (pa - 2 * (1 - ac1) * pe) ** 2) / (n * (1 - pe) ** 2));
  const se = Math.sqrt(variance);
  return { value: ac1, se, interval: tInterval(ac1, se, n, level, pa === 1 ? { n, pe } : null), pa, pe, n, q };
}

/**
 * The Brennan–Prediger coefficient of two raters, (p_a − 1/q)/(1 − 1/q): chance agreement as if each category were
 * equally likely. With two categories it is PABAK = 2·p_a − 1. Variance p_a(1 − p_a)/(n(1 − 1/q)²).
 * null when no item was rated, q < 2, or every rating is in one category (chanceCorrectedUndefinedReason).
 */
export function brennanPrediger(counts: readonly (readonly number[])[], level = 0.95): ChanceCorrected | null {
  const { q, n, pa, used } = tableShape(counts);
  if (q < 2 || !(n > 0) || used <= 1) return null;
  const pe = 1 / q;
  const value = (pa - pe) / (1 - pe);
  const se = Math.sqrt(Math.max(0, (pa * (1 - pa)) / (n * (1 - pe) ** 2)));
  return { value, se, interval: tInterval(value, se, n, level, pa === 1 ? { n, pe } : null), pa, pe, n, q };
}

type Missing = null | undefined;

/**
 * Per item, how many raters chose each category, items with fewer than one rating dropped: a flat table, item i's
 * count of category k at i·q + k, with each item's ratings r_i (typed arrays rather than an array per item: 10,000
 * overlap items times a dozen flags).
 */
function ratingCounts<L>(units: readonly (readonly (L | Missing)[])[], categories: readonly L[]): RatingCounts {
  const q = categories.length;
  const index = new Map<L, number>(categories.map((c, i) => [c, i]));
  const counts = new Float64Array(units.length * q);
  const r = new Float64Array(units.length);
  let n = 0;
  for (const unit of units) {
    let ri = 0;
    for (const v of unit) {
      if (v === null || v === undefined || (typeof v === "number" && Number.isNaN(v))) continue;
      const k = index.get(v);
      if (k === undefined) throw new RangeError(`rating ${String(v)} is not one of the categories`);
      counts[n * q + k]++;
      ri++;
    }
    // an item without a rating leaves its (zero) row to the next one
    if (ri > 0) r[n++] = ri;
  }
  return { counts, r, n, q };
}

type RatingCounts = { counts: Float64Array; r: Float64Array; n: number; q: number };

/**
 * Gwet's AC1 (mode "ac1") or the Brennan–Prediger coefficient (mode "bp") among any number of raters, from raw ratings:
 * one array per item with each rater's category, null where a rater did not rate it (Gwet 2014, ch. 5; the irrCAC
 * package's raw-data functions). p_a averages, over items rated at least twice, the share of agreeing rater pairs;
 * π_k is the mean share of ratings in category k. The variance is the linearised one over items; when every item's
 * raters agree, the interval is perfectAgreementInterval's over the items rated twice or more.
 * null when fewer than one item has two ratings, q < 2, or every rating is in one category.
 */
export function chanceCorrectedRaw<L>(
  units: readonly (readonly (L | Missing)[])[],
  categories: readonly L[],
  mode: "ac1" | "bp",
  level = 0.95,
): ChanceCorrected | null {
  if (categories.length < 2) return null;
  return chanceCorrectedOfCounts(ratingCounts(units, categories), mode, level);
}

/**
 * chanceCorrectedRaw in each of `modes` over the same units, their ratings counted once (AC1 and PABAK of the same
 * flag over 10,000 overlap items counted them twice).
 */
export function chanceCorrectedRawModes<L>(
  units: readonly (readonly (L | Missing)[])[],
  categories: readonly L[],
  modes: readonly ("ac1" | "bp")[],
  level = 0.95,
): (ChanceCorrected | null)[] {
  if (categories.length < 2) return modes.map(() => null);
  const counts = ratingCounts(units, categories);
  return modes.map((mode) => chanceCorrectedOfCounts(counts, mode, level));
}

function chanceCorrectedOfCounts(
  { counts, r, n, q }: RatingCounts,
  mode: "ac1" | "bp",
  level: number,
): ChanceCorrected | null {
  // Every sum runs over items (and within an item over categories) in order, from 0, as a reduce over rows would.
  let rated2 = 0;
  for (let i = 0; i < n; i++) if (r[i] >= 2) rated2++;
  if (rated2 === 0) return null;
  // p_a per item: Σ_k r_ik(r_ik − 1) / (r_i(r_i − 1)) for items rated at least twice
  const paItem = new Float64Array(n);
  let pa = 0;
  for (let i = 0; i < n; i++) {
    if (r[i] < 2) continue;
    let s = 0;
    for (let k = 0; k < q; k++) {
      const c = counts[i * q + k];
      s += c * (c - 1);
    }
    paItem[i] = s / (r[i] * (r[i] - 1));
    pa += paItem[i];
  }
  pa /= rated2;
  const pi = new Float64Array(q);
  for (let k = 0; k < q; k++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += counts[i * q + k] / r[i];
    pi[k] = s / n;
  }
  if (pi.filter((p) => p > 0).length <= 1) return null;
  let pe: number;
  if (mode === "ac1") {
    let s = 0;
    for (let k = 0; k < q; k++) s += pi[k] * (1 - pi[k]);
    pe = s / (q - 1);
  } else pe = 1 / q;
  if (1 - pe < 1e-15) return null;
  const value = (pa - pe) / (1 - pe);
  let squares = 0;
  for (let i = 0; i < n; i++) {
    const item = ((n / rated2) * (paItem[i] - (r[i] >= 2 ? pe : 0))) / (1 - pe);
    let linearised = item;
    if (mode === "ac1") {
      let s = 0;
      for (let k = 0; k < q; k++) s += counts[i * q + k] * (1 - pi[k]);
      const peItem = s / (r[i] * (q - 1));
      linearised = item - (2 * (1 - value) * (peItem - pe)) / (1 - pe);
    }
    squares += (linearised - value) ** 2;
  }
  const variance = n > 1 ? squares / (n * (n - 1)) : NaN;
  const se = Math.sqrt(variance);
  return { value, se, interval: tInterval(value, se, n, level, pa === 1 ? { n: rated2, pe } : null), pa, pe, n, q };
}

/**
 * What to read, from the prevalence of the positive category on each side (shares in [0, 1]): when either side puts
 * more than 90% or less than 10% of items in one category, κ is held down by the prevalence itself (the kappa
 * paradox) and AC1 and PABAK are held up by the common class, so a rare class the sides disagree on hides in both:
 * read each class's own agreement (positive and negative agreement, lib/stats/specific-agreement.ts). Otherwise κ,
 * AC1 and PABAK tell the same story and κ is the familiar one.
 */
export function coefficientToRead(prevalence: readonly (number | null)[]): "kappa" | "specific" {
  return prevalence.some((p) => p !== null && (p > 0.9 || p < 0.1)) ? "specific" : "kappa";
}

/** The one-line note the agreement page shows beside the coefficients. */
export const PREVALENCE_NOTE =
  "When either side passes (or flags) more than 90% or fewer than 10% of items, κ is pulled toward 0 by the " +
  "prevalence alone, and AC1 and PABAK toward 1 by the common class: read the positive and negative agreement, each " +
  "class on its own — a rare class the two sides disagree on shows there, not in AC1. Otherwise the three agree and κ " +
  "is the familiar one.";
