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
 * What α needs from a pairable unit, computed once so a bootstrap resample costs O(units) instead of re-reading
 * every rating: m (ratings), the unit's observed-disagreement term, and its values (nominal: category index →
 * count; interval: Σx and Σx²).
 */
type UnitSummary = {
  m: number;
  observed: number;
  categories: [number, number][];
  sum: number;
  sumsq: number;
  first: number;
};

function summarize(
  units: readonly Unit<Label>[],
  metric: AlphaMetric,
): { summaries: UnitSummary[]; categories: number } {
  const index = new Map<Label, number>();
  const summaries: UnitSummary[] = [];
  for (const unit of units) {
    const values = present(unit, metric);
    const m = values.length;
    if (m < 2) continue;
    if (metric === "interval") {
      const xs = values as number[];
      let sum = 0;
      let sumsq = 0;
      for (const x of xs) {
        sum += x;
        sumsq += x * x;
      }
      summaries.push({ m, observed: (m * sumOfSquares(xs)) / (m - 1), categories: [], sum, sumsq, first: xs[0] });
    } else {
      const counts = new Map<number, number>();
      for (const v of values) {
        let c = index.get(v);
        if (c === undefined) index.set(v, (c = index.size));
        counts.set(c, (counts.get(c) ?? 0) + 1);
      }
      let sq = 0;
      for (const c of counts.values()) sq += c * c;
      summaries.push({
        m,
        observed: (m * m - sq) / (m - 1),
        categories: [...counts.entries()],
        sum: 0,
        sumsq: 0,
        first: 0,
      });
    }
  }
  return { summaries, categories: index.size };
}

function alphaOf(summaries: readonly UnitSummary[], metric: AlphaMetric, categories: number): number | null {
  let n = 0;
  let observed = 0;
  for (const u of summaries) {
    n += u.m;
    observed += u.observed;
  }
  if (n < 2) return null;
  if (metric === "nominal") {
    const totals = new Float64Array(categories);
    for (const u of summaries) for (const [c, k] of u.categories) totals[c] += k;
    let sq = 0;
    for (const t of totals) sq += t * t;
    const expected = n * n - sq;
    return expected === 0 ? null : 1 - ((n - 1) * observed) / expected;
  }
  let sum = 0;
  let sumsq = 0;
  let constant = true;
  for (const u of summaries) {
    sum += u.sum;
    sumsq += u.sumsq;
    constant &&= u.observed === 0 && u.first === summaries[0].first;
  }
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
  const { summaries, categories } = summarize(units, options.metric);
  const alpha = alphaOf(summaries, options.metric, categories);
  if (alpha === null) return null;
  return { alpha, pairableValues: summaries.reduce((s, u) => s + u.m, 0), pairableUnits: summaries.length };
}

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
  return (draws) => {
    let n = 0;
    let observed = 0;
    for (let i = 0; i < draws.length; i++) {
      n += m[draws[i]];
      observed += obs[draws[i]];
    }
    if (n < 2) return null;
    let sum = 0;
    let sumsq = 0;
    let constant = true;
    const first = firsts[draws[0]];
    for (let i = 0; i < draws.length; i++) {
      const d = draws[i];
      sum += sums[d];
      sumsq += sumsqs[d];
      constant &&= obs[d] === 0 && firsts[d] === first;
    }
    // as in alphaOf: SS = Σx² − (Σx)²/n, with equal values detected exactly
    const total = sumsq - (sum * sum) / n;
    if (constant || total <= 1e-12 * sumsq) return null;
    return 1 - ((n - 1) * observed) / (n * total);
  };
}

/**
 * α on a nominal scale as a function of a resample's count of each unit pattern: a pattern is a distinct unit summary
 * (m and the count of each category: a guardrail's flag over two reviews is one of three), and the sums are those of
 * alphaOf with each pattern's terms times its count.
 */
function nominalPatterns(summaries: readonly UnitSummary[], categories: number) {
  const index = new Map<string, number>();
  const patterns: UnitSummary[] = [];
  const sizes: number[] = [];
  for (const u of summaries) {
    const key = `${u.m}|${[...u.categories].sort((a, b) => a[0] - b[0]).join(";")}`;
    let t = index.get(key);
    if (t === undefined) {
      index.set(key, (t = patterns.length));
      patterns.push(u);
      sizes.push(0);
    }
    sizes[t]++;
  }
  const totals = new Float64Array(categories);
  const resample = (counts: Float64Array): number | null => {
    let n = 0;
    let observed = 0;
    totals.fill(0);
    for (let t = 0; t < patterns.length; t++) {
      const c = counts[t];
      if (c === 0) continue;
      n += c * patterns[t].m;
      observed += c * patterns[t].observed;
      for (const [cat, k] of patterns[t].categories) totals[cat] += c * k;
    }
    if (n < 2) return null;
    let sq = 0;
    for (let c = 0; c < categories; c++) sq += totals[c] * totals[c];
    const expected = n * n - sq;
    return expected === 0 ? null : 1 - ((n - 1) * observed) / expected;
  };
  return { sizes, resample };
}

/**
 * krippendorffAlphaInterval of each set of units, with the same options (each set may set its own `iterations`). On
 * a nominal scale α reads the units only through how many show each rating pattern, so each resample is drawn as its
 * count per pattern (bootstrapCounts, one multinomial draw: its cost does not grow with the units), on the set's own
 * stream from the seed. On the interval scale the units are resampled by index: sets with the same number of
 * pairable units share one stream of draws (bootstrapMany), each resample reading columns of the units' summaries
 * instead of objects; each such result equals krippendorffAlphaInterval's for that set to the bit.
 */
export function krippendorffAlphaIntervals(
  sets: readonly { units: readonly Unit<Label>[]; metric: AlphaMetric; iterations?: number }[],
  options: BootstrapOptions = {},
): (BootstrapInterval | null)[] {
  const prepared = sets.map(({ units, metric, iterations }) => {
    const { summaries, categories } = summarize(units, metric);
    return { summaries, categories, metric, iterations };
  });
  const out = new Array<BootstrapInterval | null>(sets.length).fill(null);
  prepared.forEach((p, j) => {
    if (p.metric !== "nominal") return;
    const { sizes, resample } = nominalPatterns(p.summaries, p.categories);
    out[j] = bootstrapCounts(
      sizes,
      { estimate: alphaOf(p.summaries, p.metric, p.categories), resample },
      { ...options, iterations: p.iterations ?? options.iterations },
    );
  });
  const interval = prepared.map((p, j) => ({ p, j })).filter((x) => x.p.metric === "interval");
  for (const n of new Set(interval.map((x) => x.p.summaries.length))) {
    const group = interval.filter((x) => x.p.summaries.length === n);
    const results = bootstrapMany(
      n,
      group.map(({ p }) => ({
        estimate: alphaOf(p.summaries, p.metric, p.categories),
        iterations: p.iterations,
        resample: intervalAlphaOnDraws(p.summaries),
      })),
      options,
    );
    group.forEach(({ j }, g) => (out[j] = results[g]));
  }
  return out;
}
