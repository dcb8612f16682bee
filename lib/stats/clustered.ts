// Means and shares over observations that come in clusters: an injection probe scores each rollout once per injected
// line, and a rollout's lines tend to move together (a judge talked up by one instruction is often talked up by its
// translation), so its eight pairs are not eight independent observations. The estimate pools every observation; its
// interval counts a cluster's observations together (the cluster-robust, "sandwich", variance of a ratio estimator).
// With one observation per cluster every figure here is the familiar independent one. Pure.

import { wilson, Z_95, type IntervalEstimate } from "@/lib/stats/intervals.ts";
import { studentTQuantile } from "@/lib/stats/student-t.ts";

/** A cluster's key; undefined makes the observation a cluster of its own. */
export type ClusterKey = string | undefined;

export type ClusteredMean = {
  /** ȳ = Σ_c S_c / N: every observation weighs the same. */
  mean: number;
  /** Observations (N). */
  n: number;
  /** Clusters (C). */
  clusters: number;
  /**
   * Σ_c (S_c − ȳ·m_c)² / N²: the cluster-robust variance of ȳ without a small-sample factor (S_c a cluster's sum,
   * m_c its size). With one observation per cluster, s²(n − 1)/n²; with equal sizes, the variance of the clusters'
   * means over C. Multiply by C/(C − 1) for the usual small-sample correction.
   */
  variance: number;
  /** Σ (y − ȳ)²: the spread of the observations themselves, for the independent standard error s/√n. */
  squares: number;
};

/** ȳ and its cluster-robust variance; null without observations. Throws RangeError on a non-finite value. */
export function clusteredMean(values: readonly number[], keys: readonly ClusterKey[]): ClusteredMean | null {
  if (values.length !== keys.length) throw new RangeError(`${values.length} values but ${keys.length} cluster keys`);
  const n = values.length;
  if (n === 0) return null;
  const sums = new Map<string | number, { s: number; m: number }>();
  let total = 0;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (!Number.isFinite(v)) throw new RangeError(`a value must be finite, got ${v}`);
    total += v;
    const key = keys[i] ?? i; // a number never equals a string key
    const c = sums.get(key);
    if (c) {
      c.s += v;
      c.m++;
    } else sums.set(key, { s: v, m: 1 });
  }
  const mean = total / n;
  let ss = 0;
  for (const { s, m } of sums.values()) ss += (s - mean * m) * (s - mean * m);
  let squares = 0;
  for (const v of values) squares += (v - mean) * (v - mean);
  return { mean, n, clusters: sums.size, variance: ss / (n * n), squares };
}

/**
 * The cluster-robust standard error of ȳ with the small-sample factor, sqrt(C/(C − 1) · variance), but never below
 * the independent one, s/√n (s² = Σ (y − ȳ)²/(n − 1)): clusters more alike than chance (a design effect below 1, down
 * to a zero variance when every cluster's mean is the same) are not taken as a gain in precision, as the shares'
 * effective n is never above n. With one observation per cluster both are s/√n. null when C < 2 (no spread between
 * clusters to estimate).
 */
export function clusteredStandardError(m: ClusteredMean): number | null {
  if (m.clusters < 2) return null;
  const independent = m.squares / ((m.n - 1) * m.n);
  return Math.sqrt(Math.max((m.clusters / (m.clusters - 1)) * m.variance, independent));
}

/**
 * ȳ ± t(1 − α/2, C − 1) · se (clusteredStandardError): the t interval of a mean whose observations come in clusters,
 * on the clusters' degrees of freedom. With one observation per cluster, the t interval of a mean on n − 1 df. null
 * when C < 2; [ȳ, ȳ] when every observation is ȳ.
 */
export function clusteredMeanInterval(m: ClusteredMean, level = 0.95): IntervalEstimate | null {
  const se = clusteredStandardError(m);
  if (se === null) return null;
  const half = studentTQuantile(1 - (1 - level) / 2, m.clusters - 1) * se;
  return { estimate: m.mean, lower: m.mean - half, upper: m.mean + half };
}

export type ClusteredProportion = {
  k: number;
  n: number;
  clusters: number;
  /**
   * The sample size an independent sample of the same precision would have: n / deff, Kish's design effect
   * deff = variance / (p(1 − p)/n), kept within [C, n] — at most the observations, at least the clusters (a cluster's
   * observations all alike). When p is 0 or 1, or there is a single cluster, the data cannot tell how alike a
   * cluster's observations are, and the conservative end, C, is taken.
   */
  nEffective: number;
  /** Wilson's interval at the effective n: wilson(p · n_eff, n_eff). */
  interval: IntervalEstimate;
};

/**
 * A share k/n of observations in clusters, with Wilson's interval at the design-effect-adjusted n (the same
 * approximation the weighted rates make with Kish's effective n, lib/stats/weighted.ts). With one observation per
 * cluster, deff = 1 and the interval is Wilson's on k of n. null without observations.
 */
export function clusteredProportion(
  hits: readonly boolean[],
  keys: readonly ClusterKey[],
  z: number = Z_95,
): ClusteredProportion | null {
  const m = clusteredMean(
    hits.map((h) => (h ? 1 : 0)),
    keys,
  );
  if (!m) return null;
  const { n, clusters } = m;
  const k = hits.filter(Boolean).length;
  const p = k / n;
  const srs = (p * (1 - p)) / n;
  const nEffective =
    clusters < 2 || srs === 0
      ? clusters
      : m.variance === 0
        ? n
        : Math.min(n, Math.max(clusters, (n * srs) / m.variance));
  return { k, n, clusters, nEffective, interval: wilson(p * nEffective, nEffective, z)! };
}
