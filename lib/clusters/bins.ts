// Step bins of a window and the share trend of a cluster over them. A window may hold a few logged steps or
// thousands; clusters are counted per bin (at most MAX_BINS), which keeps the SQL output and the sparklines small
// while the slope is still fitted on the share against the step. Pure.
import { earlyVsLate, leastSquaresSlope, type StepPoint } from "@/lib/stats/trend.ts";

export const MAX_BINS = 24;

export type StepCount = { step: number; rollouts: number };

export type Bin = {
  /** First step of the bin (inclusive); the next bin's `from` is this bin's exclusive end. */
  from: number;
  /** Last step of the window that falls in the bin. */
  to: number;
  /** Rollout-weighted mean step of the bin: the x of the trend fit. */
  step: number;
  /** Current ledger entries of the window in this bin: the denominator of a cluster's share. */
  rollouts: number;
};

/**
 * Splits the window's steps (ascending, distinct, with their rollout counts) into at most maxBins consecutive bins
 * holding about the same number of steps. Steps with no rollout are left out. `edges` (each bin's first step) is
 * what SQL's width_bucket(step, edges) needs: bin i (1-based) is edges[i-1] ≤ step < edges[i].
 */
export function binSteps(steps: readonly StepCount[], maxBins = MAX_BINS): { bins: Bin[]; edges: number[] } {
  const used = steps.filter((s) => s.rollouts > 0);
  const n = Math.min(maxBins, used.length);
  const bins: Bin[] = [];
  for (let b = 0; b < n; b++) {
    const part = used.slice(Math.floor((b * used.length) / n), Math.floor(((b + 1) * used.length) / n));
    const rollouts = part.reduce((s, x) => s + x.rollouts, 0);
    const step = part.reduce((s, x) => s + x.step * x.rollouts, 0) / rollouts;
    bins.push({ from: part[0].step, to: part[part.length - 1].step, step, rollouts });
  }
  return { bins, edges: bins.map((b) => b.from) };
}

export type Trend = {
  /** Share of the bin's rollouts in the cluster, per bin (null where the bin has no rollout). */
  shares: (number | null)[];
  /** Least-squares slope of the share per step, bins weighted by their rollouts (trend.ts); null if < 2 bins. */
  slope: number | null;
  /** Pooled share of the first and the last third of the bins; null when fewer than three bins. */
  early: number | null;
  late: number | null;
};

/** The trend of a cluster from its (possibly estimated) count per bin, counts[i] for bins[i]. */
export function trendOf(bins: readonly Bin[], counts: readonly number[]): Trend {
  const series: StepPoint[] = bins.map((b, i) => ({
    step: b.step,
    value: b.rollouts ? (counts[i] ?? 0) / b.rollouts : null,
    n: b.rollouts,
  }));
  const el = earlyVsLate(series, { weightByN: true });
  return {
    shares: series.map((p) => p.value),
    slope: leastSquaresSlope(series, { weightByN: true }),
    early: el?.early ?? null,
    late: el?.late ?? null,
  };
}
