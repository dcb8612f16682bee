// Which cluster of low-scoring rollouts to build data for first: big, far below success, and growing.

import { isFiniteNumber } from "@/lib/stats/descriptive.ts";
import { SUCCESS_THRESHOLD } from "@/lib/stats/agreement.ts";

export type ClusterSignal = {
  /** The cluster's share of rollouts (in its run or window). Range [0, 1]. */
  share: number;
  /** Mean ledger reward of the cluster's rollouts; null when unknown. */
  meanReward: number | null;
  /** Least-squares slope of the share per step (trend.ts leastSquaresSlope); null when too few points. */
  slope: number | null;
};

export type Priority = {
  /** share × gap × (1 + growth). Range [0, threshold · (1 + growth)]; 0 when the cluster meets the threshold. */
  score: number;
  /** max(0, threshold − meanReward): how far below success. Range [0, threshold]. */
  gap: number;
  /** max(0, slope · horizon / share): relative growth of the share over the horizon. Range [0, ∞); 0 if unknown. */
  growth: number;
};

/**
 * Priority = share × (threshold − mean reward)⁺ × (1 + growth), growth = (slope · horizon / share)⁺, with threshold
 * default 0.9 (success) and horizon default 1,000 steps. For share > 0 this equals gap × (share + (slope · horizon)⁺):
 * the reward gap times the share the cluster will have after the horizon if it keeps growing, while a shrinking
 * cluster is not discounted. An empty cluster (share 0) scores 0. null when share is not in [0, 1] or meanReward
 * is missing.
 */
export function priorityScore(
  cluster: ClusterSignal,
  options: { threshold?: number; horizon?: number } = {},
): Priority | null {
  const { threshold = SUCCESS_THRESHOLD, horizon = 1000 } = options;
  const { share, meanReward, slope } = cluster;
  if (!isFiniteNumber(share) || share < 0 || share > 1 || !isFiniteNumber(meanReward)) return null;
  const gap = Math.max(0, threshold - meanReward);
  if (share === 0) return { score: 0, gap, growth: 0 };
  const rise = isFiniteNumber(slope) ? Math.max(0, slope * horizon) : 0;
  // The factored form stays finite for a tiny share, where rise / share overflows.
  return { score: gap * (share + rise), gap, growth: rise / share };
}

/**
 * Clusters with their priority, highest score first; ties by larger share, then input order. Clusters whose score
 * is null come last, in input order.
 */
export function rankClusters<T extends ClusterSignal>(
  clusters: readonly T[],
  options: { threshold?: number; horizon?: number } = {},
): (T & { priority: Priority | null })[] {
  return clusters
    .map((c, i) => ({ c: { ...c, priority: priorityScore(c, options) }, i }))
    .sort((x, y) => {
      const a = x.c.priority;
      const b = y.c.priority;
      if (a === null || b === null) return a === b ? x.i - y.i : a === null ? 1 : -1;
      return b.score - a.score || y.c.share - x.c.share || x.i - y.i;
    })
    .map(({ c }) => c);
}
