// Two scorers on the same items: is one of them closer to the humans than the other? Because the items are shared,
// the comparison is paired — an item both get right (or both get wrong) says nothing about which is better, and the
// two error rates are correlated. The verdict is compared by McNemar's exact test on the discordant items with
// Newcombe's paired interval for the difference of the two agreement rates; MAE and Spearman's ρ, which have no such
// closed form, by a paired percentile bootstrap (whole items resampled, both scorers together). Pure.

import { averageRanks, pearson } from "@/lib/stats/correlation.ts";
import { mean } from "@/lib/stats/descriptive.ts";
import {
  bootstrapMany,
  wilson,
  Z_95,
  zForLevel,
  type BootstrapInterval,
  type Interval,
  type IntervalEstimate,
} from "@/lib/stats/intervals.ts";
import { studentTQuantile } from "@/lib/stats/student-t.ts";

/**
 * McNemar's exact (conditional) test of b against c, the discordant counts of a paired 2×2 table (b: the first
 * scorer right and the second wrong; c: the reverse). Under H₀ (equal rates) b ~ Binomial(b + c, ½), and the
 * two-sided p-value is 2·P(X ≤ min(b, c)), at most 1 (exactly 1 when b = c, 1 when there is no discordant item).
 * The binomial terms are summed in logs, so b + c in the tens of thousands neither overflows nor underflows.
 * Throws RangeError unless b and c are non-negative integers.
 */
export function mcnemarExact(b: number, c: number): number {
  for (const x of [b, c])
    if (!(Number.isInteger(x) && x >= 0)) throw new RangeError(`a discordant count must be a count, got ${x}`);
  const n = b + c;
  if (n === 0 || b === c) return 1;
  const k = Math.min(b, c);
  // log P(X = i) = log C(n, i) − n·log 2, built up term by term from i = 0
  let logTerm = -n * Math.LN2;
  let tail = Math.exp(logTerm);
  for (let i = 0; i < k; i++) {
    logTerm += Math.log((n - i) / (i + 1));
    tail += Math.exp(logTerm);
  }
  return Math.min(1, 2 * tail);
}

/** A paired 2×2 table: both right, only the first right, only the second right, both wrong. */
export type PairedTable = { both: number; firstOnly: number; secondOnly: number; neither: number };

export type PairedDifference = {
  /** p₁ − p₂ = (firstOnly − secondOnly)/n: how much more often the first scorer is right. Range [−1, 1]. */
  difference: number;
  /** Newcombe's hybrid score interval (1998, method 10); null when n = 0. */
  interval: Interval | null;
  /** McNemar's exact two-sided p-value on the discordant items. */
  pValue: number;
  n: number;
  /** The rates compared: the share of items each scorer gets right. */
  first: number;
  second: number;
};

/**
 * The difference between two paired proportions, p₁ = (both + firstOnly)/n and p₂ = (both + secondOnly)/n, with
 * Newcombe's (1998) method 10 ("square and add" of the Wilson intervals [l₁, u₁] and [l₂, u₂] of p₁ and p₂, as in
 * Fagerland, Lydersen & Laake, Statistical Analysis of Contingency Tables, §8):
 *   L = θ − sqrt((p₁ − l₁)² + (u₂ − p₂)² − 2φ(p₁ − l₁)(u₂ − p₂)),
 *   U = θ + sqrt((p₂ − l₂)² + (u₁ − p₁)² − 2φ(p₂ − l₂)(u₁ − p₁)),
 * φ the correlation of the two classifications with Newcombe's continuity adjustment: with A = both·neither −
 * firstOnly·secondOnly, φ = (A − n/2)/√(row and column products) when A > n/2, 0 when 0 ≤ A ≤ n/2, A/√(…) when A < 0,
 * and 0 when a margin is empty. The interval stays inside [−1, 1] and, unlike Wald's, does not collapse when no item
 * is discordant. null when n = 0. Throws RangeError on a count that is not a non-negative integer.
 */
export function pairedDifference(t: PairedTable, level = 0.95): PairedDifference | null {
  const { both, firstOnly, secondOnly, neither } = t;
  for (const x of [both, firstOnly, secondOnly, neither])
    if (!(Number.isInteger(x) && x >= 0)) throw new RangeError(`a paired count must be a count, got ${x}`);
  const n = both + firstOnly + secondOnly + neither;
  const pValue = mcnemarExact(firstOnly, secondOnly);
  if (n === 0) return null;
  const row1 = both + firstOnly;
  const col1 = both + secondOnly;
  const p1 = row1 / n;
  const p2 = col1 / n;
  // Z_95 exactly at the default level: zForLevel's rational approximation is good to ~1e-9 only
  const z = level === 0.95 ? Z_95 : zForLevel(level);
  const w1 = wilson(row1, n, z)!;
  const w2 = wilson(col1, n, z)!;
  const phi = newcombePhi(t, n);
  const d1 = p1 - w1.lower;
  const e1 = w1.upper - p1;
  const d2 = p2 - w2.lower;
  const e2 = w2.upper - p2;
  const theta = p1 - p2;
  const lower = theta - Math.sqrt(Math.max(0, d1 * d1 + e2 * e2 - 2 * phi * d1 * e2));
  const upper = theta + Math.sqrt(Math.max(0, d2 * d2 + e1 * e1 - 2 * phi * d2 * e1));
  return {
    difference: theta,
    interval: { lower: Math.max(-1, lower), upper: Math.min(1, upper) },
    pValue,
    n,
    first: p1,
    second: p2,
  };
}

function newcombePhi({ both, firstOnly, secondOnly, neither }: PairedTable, n: number): number {
  const margins = [both + firstOnly, secondOnly + neither, both + secondOnly, firstOnly + neither];
  if (margins.some((m) => m === 0)) return 0;
  const a = both * neither - firstOnly * secondOnly;
  const root = Math.sqrt(margins[0] * margins[1] * margins[2] * margins[3]);
  if (a > n / 2) return (a - n / 2) / root;
  if (a >= 0) return 0;
  return a / root;
}

/** The paired 2×2 table of two scorers' right/wrong calls on the same items (index i of each array: item i). */
export function pairedTable(first: readonly boolean[], second: readonly boolean[]): PairedTable {
  if (first.length !== second.length)
    throw new RangeError(`paired arrays differ in length: ${first.length} vs ${second.length}`);
  const t = { both: 0, firstOnly: 0, secondOnly: 0, neither: 0 };
  for (let i = 0; i < first.length; i++) {
    if (first[i] && second[i]) t.both++;
    else if (first[i]) t.firstOnly++;
    else if (second[i]) t.secondOnly++;
    else t.neither++;
  }
  return t;
}

/** One item scored by the reference (the human) and by both scorers; every value finite. */
export type PairedScores = { reference: number; first: number; second: number };

export type PairedScoreDifferences = {
  /** MAE(first) − MAE(second): negative when the first is closer to the reference. Percentile bootstrap. */
  mae: BootstrapInterval | null;
  /** ρ(first) − ρ(second) against the reference: positive when the first ranks the items more like it. */
  spearman: BootstrapInterval | null;
};

/**
 * The differences in MAE and in Spearman's ρ between two scorers on the same items, each with a paired percentile
 * bootstrap interval: whole items are resampled (mulberry32 seeded by `seed`; bootstrapMany, so both statistics see
 * the same resamples) and both scorers are re-evaluated on each resample, which keeps the correlation between their
 * errors. The same items, seed, iterations and level give the same intervals to the bit. A resample on which a ρ is
 * undefined (a constant side) is skipped, and a difference is null when it is undefined on the full sample or on more
 * than half the resamples (intervals.ts). Throws RangeError on a value that is not finite.
 */
export function pairedScoreDifferences(
  items: readonly PairedScores[],
  options: { seed?: number; iterations?: number; level?: number } = {},
): PairedScoreDifferences {
  for (const it of items)
    for (const v of [it.reference, it.first, it.second])
      if (!Number.isFinite(v)) throw new RangeError(`a paired score must be a finite number, got ${v}`);
  const n = items.length;
  const ref = items.map((i) => i.reference);
  const first = items.map((i) => i.first);
  const second = items.map((i) => i.second);
  const r = new Float64Array(n);
  const a = new Float64Array(n);
  const b = new Float64Array(n);
  const take = (draws: Int32Array) => {
    for (let i = 0; i < n; i++) {
      const j = draws[i];
      r[i] = ref[j];
      a[i] = first[j];
      b[i] = second[j];
    }
  };
  const [mae, spearman] = bootstrapMany(
    n,
    [
      {
        estimate: n ? maeDifference(ref, first, second) : null,
        resample: (draws) => {
          take(draws);
          return maeDifference(r, a, b);
        },
      },
      {
        estimate: n ? spearmanDifference(ref, first, second) : null,
        resample: (draws) => {
          take(draws);
          return spearmanDifference(r, a, b);
        },
      },
    ],
    options,
  );
  return { mae, spearman };
}

type Values = ArrayLike<number>;

/** Σ|a − r| / n − Σ|b − r| / n. */
export function maeDifference(r: Values, a: Values, b: Values): number {
  let sa = 0;
  let sb = 0;
  for (let i = 0; i < r.length; i++) {
    sa += Math.abs(a[i] - r[i]);
    sb += Math.abs(b[i] - r[i]);
  }
  return (sa - sb) / r.length;
}

/** ρ(a, r) − ρ(b, r) with average ranks (tie-corrected ρ); null when either ρ is undefined. */
export function spearmanDifference(r: Values, a: Values, b: Values): number | null {
  const rr = averageRanks(Array.from(r));
  const ra = pearson(averageRanks(Array.from(a)), rr);
  const rb = pearson(averageRanks(Array.from(b)), rr);
  return ra === null || rb === null ? null : ra - rb;
}

/**
 * The mean of paired differences (after − before) with its t interval, mean ± t(1 − α/2, n − 1)·s/√n, s the sample
 * standard deviation (n − 1). What a re-run moves a scorer by on average: an injection probe's shift, a retest's
 * drift. Range: that of the differences. null when n < 2 (no spread to estimate); the interval is [mean, mean] when
 * every difference is equal, which is what was seen, not a claim of certainty about other items.
 */
export function meanDifferenceInterval(differences: readonly number[], level = 0.95): IntervalEstimate | null {
  const n = differences.length;
  if (n < 2) return null;
  for (const d of differences) if (!Number.isFinite(d)) throw new RangeError(`a difference must be finite, got ${d}`);
  const m = mean(differences)!;
  let ss = 0;
  for (const d of differences) ss += (d - m) * (d - m);
  const half = studentTQuantile(1 - (1 - level) / 2, n - 1) * Math.sqrt(ss / (n - 1) / n);
  return { estimate: m, lower: m - half, upper: m + half };
}
