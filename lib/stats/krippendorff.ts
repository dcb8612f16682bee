// Krippendorff's α: agreement among any number of raters with missing ratings, for the shadow reviews where an
// item can have the ledger plus one, two or more humans. A missing rating is null, undefined or NaN (and ±Infinity
// for the interval metric); a unit with fewer than two ratings is not pairable and does not count.

import {
  bootstrapCounts,
  bootstrapMany,
  type BootstrapInterval,
  type BootstrapOptions,
} from "@/lib/stats/intervals.ts";
import type { Label } from "@/lib/stats/kappa.ts";

export type AlphaMetric = "nominal" | "interval";

/** One unit (item): the ratings it received, one per rater, in any order; missing ratings allowed. */
export type Unit<V> = readonly (V | null | undefined)[];

export type AlphaResult = {
  /** 1 = perfect agreement, 0 = agreement at chance, < 0 = systematic disagreement. Range (−∞, 1]. */
  alpha: number;
  /** n: pairable ratings (ratings in units with at least two). */
  pairableValues: number;
  /** Units with at least two ratings. */
  pairableUnits: number;
};

function present<V>(unit: Unit<V>, metric: AlphaMetric): V[] {
  const out: V[] = [];
  for (const v of unit) {
    if (v === null || v === undefined) continue;
    // The interval metric reads numbers only: anything else (which the types already keep out) is missing.
    if (metric === "interval" ? typeof v !== "number" || !Number.isFinite(v) : typeof v === "number" && Number.isNaN(v))
      continue;
    out.push(v);
  }
  return out;
}

/** A missing rating on a nominal scale, as present() reads one. */
function missingNominal(v: Label | null | undefined): boolean {
  return v === null || v === undefined || (typeof v === "number" && Number.isNaN(v));
}

function sumOfSquares(values: readonly number[]): number {
  if (values.every((v) => v === values[0])) return 0;
  let m = 0;
  for (const v of values) m += v;
  m /= values.length;
  let ss = 0;
  for (const v of values) ss += (v - m) * (v - m);
  return ss;
}

/**
 * What α on the interval scale needs from a pairable unit, computed once so a bootstrap resample costs O(units)
 * instead of re-reading every rating: m (ratings), the unit's observed-disagreement term, Σx, Σx² and its first value.
 */
type UnitSummary = {
  m: number;
  observed: number;
  sum: number;
  sumsq: number;
  first: number;
};

function summarizeInterval(units: readonly Unit<Label>[]): UnitSummary[] {
  const summaries: UnitSummary[] = [];
  for (const unit of units) {
    const xs = present(unit, "interval") as number[];
    const m = xs.length;
    if (m < 2) continue;
    let sum = 0;
    let sumsq = 0;
    for (const x of xs) {
      sum += x;
      sumsq += x * x;
    }
    summaries.push({ m, observed: (m * sumOfSquares(xs)) / (m - 1), sum, sumsq, first: xs[0] });
  }
  return summaries;
}

/** A rating pattern of a nominal unit: m, its observed-disagreement term and its count of each category (a flat list
 * c₀, k₀, c₁, k₁, … in order of first appearance in the first unit that showed it). */
type NominalPattern = { m: number; observed: number; categories: number[] };

/**
 * What α on a nominal scale reads of its units, in one pass and without an object per unit: n (pairable ratings),
 * Σ observed-disagreement terms (summed in unit order, as per unit), each category's total, the pairable units,
 * and the distinct rating patterns in order of first appearance with how many units show each — α reads the units
 * only through those, so a resample is a count per pattern (a guardrail's flag over two reviews is one of three).
 */
type NominalSummary = {
  n: number;
  observed: number;
  totals: number[];
  units: number;
  patterns: NominalPattern[];
  sizes: number[];
};

function summarizeNominal(units: readonly Unit<Label>[]): NominalSummary {
  const index = new Map<Label, number>();
  const totals: number[] = [];
  const patterns: NominalPattern[] = [];
  const sizes: number[] = [];
  const patternOf = new Map<number | string, number>();
  // a unit's counts per category, reset after each unit through the list of categories it touched
  const counts: number[] = [];
  const touched: number[] = [];
  let longest = 0;
  for (let u = 0; u < units.length; u++) longest = Math.max(longest, units[u].length);
  // a pattern's key: its counts as digits in base (longest + 1), exact while that fits in a double's 53 bits, else
  // its (category, count) pairs in category order as text
  const base = longest + 1;
  let n = 0;
  let observed = 0;
  let pairable = 0;
  // indexed loops throughout (for…of allocated an iterator result per rating where this ran unoptimised)
  for (let u = 0; u < units.length; u++) {
    const unit = units[u];
    // A unit holds a few ratings: counted in place. A rating is indexed only once its unit is known to be pairable.
    let m = 0;
    for (let r = 0; r < unit.length; r++) if (!missingNominal(unit[r])) m++;
    if (m < 2) continue;
    touched.length = 0;
    let highest = 0;
    for (let r = 0; r < unit.length; r++) {
      const v = unit[r];
      if (missingNominal(v)) continue;
      let c = index.get(v!);
      if (c === undefined) {
        index.set(v!, (c = index.size));
        totals.push(0);
        counts.push(0);
      }
      if (counts[c]++ === 0) {
        touched.push(c);
        highest = Math.max(highest, c);
      }
      totals[c]++;
    }
    let sq = 0;
    for (let j = 0; j < touched.length; j++) sq += counts[touched[j]] * counts[touched[j]];
    // decided by the pattern's own categories, so a pattern always gets the same key
    let key: number | string;
    if ((highest + 1) * Math.log2(base) <= 52) {
      let digits = 0;
      for (let j = 0; j < touched.length; j++) digits += counts[touched[j]] * base ** touched[j];
      key = digits;
    } else {
      let text = "";
      for (const c of [...touched].sort((x, y) => x - y)) text += `${c}:${counts[c]};`;
      key = text;
    }
    const unitObserved = (m * m - sq) / (m - 1);
    n += m;
    observed += unitObserved;
    pairable++;
    let t = patternOf.get(key);
    if (t === undefined) {
      const flat: number[] = [];
      for (let j = 0; j < touched.length; j++) flat.push(touched[j], counts[touched[j]]);
      patternOf.set(key, (t = patterns.length));
      patterns.push({ m, observed: unitObserved, categories: flat });
      sizes.push(0);
    }
    sizes[t]++;
    for (let j = 0; j < touched.length; j++) counts[touched[j]] = 0;
  }
  return { n, observed, totals, units: pairable, patterns, sizes };
}

/** α on a nominal scale from n, Σ observed terms and the category totals; null when n < 2 or D_e = 0. */
function nominalAlpha(n: number, observed: number, totals: ArrayLike<number>): number | null {
  if (n < 2) return null;
  let sq = 0;
  for (let c = 0; c < totals.length; c++) sq += totals[c] * totals[c];
  const expected = n * n - sq;
  return expected === 0 ? null : 1 - ((n - 1) * observed) / expected;
}

function intervalAlphaOf(summaries: readonly UnitSummary[]): number | null {
  let n = 0;
  let observed = 0;
  let sum = 0;
  let sumsq = 0;
  let constant = true;
  for (const u of summaries) {
    n += u.m;
    observed += u.observed;
    sum += u.sum;
    sumsq += u.sumsq;
    constant &&= u.observed === 0 && u.first === summaries[0].first;
  }
  return intervalAlpha(n, observed, sum, sumsq, constant);
}

/**
 * α on the interval scale from its sums over the pairable units: n values, the observed-disagreement terms, Σx, Σx²,
 * and whether every value is the same. null when n < 2 or D_e = 0.
 */
function intervalAlpha(n: number, observed: number, sum: number, sumsq: number, constant: boolean): number | null {
  if (n < 2) return null;
  // SS = Σx² − (Σx)²/n cancels when all values are (nearly) equal; equal values are detected exactly instead.
  const total = sumsq - (sum * sum) / n;
  if (constant || total <= 1e-12 * sumsq) return null;
  return 1 - ((n - 1) * observed) / (n * total);
}

/**
 * Krippendorff's α = 1 − D_o / D_e (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability"), from the
 * coincidence matrix o_ck = Σ_u (pairs c–k in unit u) / (m_u − 1), n_c = Σ_k o_ck, n = Σ_c n_c:
 *   D_o = Σ_c Σ_k o_ck δ²_ck / n,   D_e = Σ_c Σ_k n_c n_k δ²_ck / (n(n − 1)).
 * Nominal δ²_ck = [c ≠ k], which reduces to α = 1 − (n − 1) Σ_u (m_u² − Σ_c n_uc²)/(m_u − 1) / (n² − Σ_c n_c²).
 * Interval δ²_ck = (c − k)², which reduces to α = 1 − (n − 1) Σ_u m_u SS_u/(m_u − 1) / (n · SS), with SS_u the sum
 * of squared deviations within unit u and SS over all pairable values — both O(ratings), no matrix.
 * null when no unit is pairable or D_e = 0 (every pairable rating is the same value: α is 0/0).
 */
export function krippendorffAlpha(units: readonly Unit<number>[], options: { metric: AlphaMetric }): AlphaResult | null;
export function krippendorffAlpha(units: readonly Unit<Label>[], options: { metric: "nominal" }): AlphaResult | null;
export function krippendorffAlpha(units: readonly Unit<Label>[], options: { metric: AlphaMetric }): AlphaResult | null {
  return resultOf(prepare({ units, metric: options.metric }));
}

/** A set of units as α and its intervals read it: the pairable units' summaries (interval), or their patterns
 * (nominal). */
type Prepared =
  | { metric: "interval"; summaries: UnitSummary[]; iterations?: number }
  | { metric: "nominal"; nominal: NominalSummary; iterations?: number };

function prepare({ units, metric, iterations }: AlphaSet): Prepared {
  return metric === "interval"
    ? { metric, summaries: summarizeInterval(units), iterations }
    : { metric, nominal: summarizeNominal(units), iterations };
}

function alphaOf(p: Prepared): number | null {
  return p.metric === "interval"
    ? intervalAlphaOf(p.summaries)
    : nominalAlpha(p.nominal.n, p.nominal.observed, p.nominal.totals);
}

function resultOf(p: Prepared): AlphaResult | null {
  const alpha = alphaOf(p);
  if (alpha === null) return null;
  return p.metric === "interval"
    ? { alpha, pairableValues: p.summaries.reduce((s, u) => s + u.m, 0), pairableUnits: p.summaries.length }
    : { alpha, pairableValues: p.nominal.n, pairableUnits: p.nominal.units };
}

/** One set of units for krippendorffAlphas and krippendorffAlphaIntervals. */
export type AlphaSet = { units: readonly Unit<Label>[]; metric: AlphaMetric; iterations?: number };

/**
 * α with a seeded percentile-bootstrap interval over the pairable units (resampled with replacement, each keeping
 * all its ratings). This is the unit bootstrap (e.g. Zapf et al. 2016, BMC Med Res Methodol 16:93), not
 * Krippendorff's own resampling of pairable values; it keeps the dependence among an item's ratings.
 * null as for bootstrapCI.
 */
export function krippendorffAlphaInterval(
  units: readonly Unit<number>[],
  options: BootstrapOptions & { metric: AlphaMetric },
): BootstrapInterval | null;
export function krippendorffAlphaInterval(
  units: readonly Unit<Label>[],
  options: BootstrapOptions & { metric: "nominal" },
): BootstrapInterval | null;
export function krippendorffAlphaInterval(
  units: readonly Unit<Label>[],
  options: BootstrapOptions & { metric: AlphaMetric },
): BootstrapInterval | null {
  const { metric, ...bootstrap } = options;
  return krippendorffAlphaIntervals([{ units, metric }], bootstrap)[0];
}

/**
 * α on the interval scale as a function of a resample's draws: the units' summaries as typed columns read by index,
 * and the same sums in the same order as alphaOf on that resample (draw order), so the same value to the bit: a
 * resample of 1,000 units costs microseconds, not a walk over objects.
 */
function intervalAlphaOnDraws(summaries: readonly UnitSummary[]): (draws: Int32Array) => number | null {
  const m = Float64Array.from(summaries, (s) => s.m);
  const obs = Float64Array.from(summaries, (s) => s.observed);
  const sums = Float64Array.from(summaries, (s) => s.sum);
  const sumsqs = Float64Array.from(summaries, (s) => s.sumsq);
  const firsts = Float64Array.from(summaries, (s) => s.first);
  // one pass over the draws; each sum is taken in draw order, as alphaOf takes it, so the value is the same to the bit
  return (draws) => {
    let n = 0;
    let observed = 0;
    let sum = 0;
    let sumsq = 0;
    let constant = true;
    const first = firsts[draws[0]];
    for (let i = 0; i < draws.length; i++) {
      const d = draws[i];
      n += m[d];
      observed += obs[d];
      sum += sums[d];
      sumsq += sumsqs[d];
      constant &&= obs[d] === 0 && firsts[d] === first;
    }
    return intervalAlpha(n, observed, sum, sumsq, constant);
  };
}

/**
 * The interval scale's units grouped by their summary when few are distinct (rewards on a rubric's grid: 64 patterns
 * among 10,057 overlap items), each pattern with its count; null when a resample drawn as counts would not be cheaper
 * than one drawn by index (more than one pattern in COUNTED_PATTERN_SHARE of the units).
 */
function intervalPatterns(summaries: readonly UnitSummary[]) {
  const index = new Map<string, number>();
  const patterns: UnitSummary[] = [];
  const sizes: number[] = [];
  const limit = summaries.length / COUNTED_PATTERN_SHARE;
  for (const u of summaries) {
    // a double's shortest string names it exactly, so units share a key only when every term is the same
    const key = `${u.m}|${u.observed}|${u.sum}|${u.sumsq}|${u.first}`;
    let t = index.get(key);
    if (t === undefined) {
      if (patterns.length >= limit) return null;
      index.set(key, (t = patterns.length));
      patterns.push(u);
      sizes.push(0);
    }
    sizes[t]++;
  }
  const resample = (counts: Float64Array): number | null => {
    let n = 0;
    let observed = 0;
    let sum = 0;
    let sumsq = 0;
    let constant = true;
    let first = NaN;
    for (let t = 0; t < patterns.length; t++) {
      const c = counts[t];
      if (c === 0) continue;
      const u = patterns[t];
      n += c * u.m;
      observed += c * u.observed;
      sum += c * u.sum;
      sumsq += c * u.sumsq;
      if (Number.isNaN(first)) first = u.first;
      constant &&= u.observed === 0 && u.first === first;
    }
    return intervalAlpha(n, observed, sum, sumsq, constant);
  };
  return { sizes, resample };
}

/**
 * A resample drawn as counts costs a binomial draw per pattern, one drawn by index a draw per unit: counts are taken
 * when the units show at most one distinct pattern in this many.
 */
const COUNTED_PATTERN_SHARE = 16;

/**
 * α on a nominal scale as a function of a resample's count of each unit pattern (NominalSummary): the sums of α
 * with each pattern's terms times its count.
 */
function nominalResample({ patterns, totals: { length: categories } }: NominalSummary) {
  const totals = new Float64Array(categories);
  return (counts: Float64Array): number | null => {
    let n = 0;
    let observed = 0;
    totals.fill(0);
    for (let t = 0; t < patterns.length; t++) {
      const c = counts[t];
      if (c === 0) continue;
      n += c * patterns[t].m;
      observed += c * patterns[t].observed;
      const cats = patterns[t].categories;
      for (let j = 0; j < cats.length; j += 2) totals[cats[j]] += c * cats[j + 1];
    }
    return nominalAlpha(n, observed, totals);
  };
}

/**
 * krippendorffAlphaInterval of each set of units, with the same options (each set may set its own `iterations`). On
 * a nominal scale α reads the units only through how many show each rating pattern, so each resample is drawn as its
 * count per pattern (bootstrapCounts, one multinomial draw: its cost does not grow with the units), on the set's own
 * stream from the seed. On the interval scale likewise when the units show few distinct summaries (at most one in
 * COUNTED_PATTERN_SHARE: rewards on a grid); otherwise the units are resampled by index: sets with the same number of
 * pairable units share one stream of draws (bootstrapMany), each resample reading columns of the units' summaries
 * instead of objects. Each result equals krippendorffAlphaInterval's for that set to the bit.
 */
export function krippendorffAlphaIntervals(
  sets: readonly AlphaSet[],
  options: BootstrapOptions = {},
): (BootstrapInterval | null)[] {
  return intervalsOf(sets.map(prepare), options);
}

/**
 * krippendorffAlpha of each set and, for the sets where it is defined, krippendorffAlphaIntervals of those sets (the
 * same intervals, to the bit): each set's units are summarized once for both, where calling the two summarized
 * them twice (11 guardrails' α over 10,000 overlap items: ~14 ms of a report's build).
 */
export function krippendorffAlphas(
  sets: readonly AlphaSet[],
  options: BootstrapOptions = {},
): { alpha: AlphaResult | null; interval: BootstrapInterval | null }[] {
  const prepared = sets.map(prepare);
  const results = prepared.map(resultOf);
  const intervals = intervalsOf(
    prepared.filter((_, j) => results[j] !== null),
    options,
  );
  let k = 0;
  return results.map((alpha) => ({ alpha, interval: alpha ? intervals[k++] : null }));
}

function intervalsOf(prepared: readonly Prepared[], options: BootstrapOptions): (BootstrapInterval | null)[] {
  const out = new Array<BootstrapInterval | null>(prepared.length).fill(null);
  // Resampled by index: the interval sets whose units show many distinct summaries.
  const byIndex: { p: Prepared & { metric: "interval" }; j: number }[] = [];
  // Resampled as counts of unit patterns: every nominal set, and an interval set whose units show few distinct ones.
  prepared.forEach((p, j) => {
    const patterns =
      p.metric === "nominal"
        ? { sizes: p.nominal.sizes, resample: nominalResample(p.nominal) }
        : intervalPatterns(p.summaries);
    if (!patterns) {
      if (p.metric === "interval") byIndex.push({ p, j });
      return;
    }
    out[j] = bootstrapCounts(
      patterns.sizes,
      { estimate: alphaOf(p), resample: patterns.resample },
      { ...options, iterations: p.iterations ?? options.iterations },
    );
  });
  for (const n of new Set(byIndex.map((x) => x.p.summaries.length))) {
    const group = byIndex.filter((x) => x.p.summaries.length === n);
    const results = bootstrapMany(
      n,
      group.map(({ p }) => ({
        estimate: alphaOf(p),
        iterations: p.iterations,
        resample: intervalAlphaOnDraws(p.summaries),
      })),
      options,
    );
    group.forEach(({ j }, g) => (out[j] = results[g]));
  }
  return out;
}
