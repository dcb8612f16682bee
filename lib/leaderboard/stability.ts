// How a reward holds up when it is run again: on the same replies with injected lines appended (the injection probe:
// lib/rewards/probes.ts), or simply a second time (test–retest). Both are the same comparison of two rewards per
// rollout — how far the reward moves on average, how often the verdict flips, how far apart the two runs are — read
// with different eyes: a probe should move nothing but a communication sub-score, a retest nothing at all.
// A probe's pairs come eight to a rollout (one per injected line), and a rollout's lines tend to move together: its
// pooled figures' intervals count a rollout's pairs as one cluster (lib/stats/clustered.ts), so eight correlated lines
// are not taken for eight independent rollouts. One pair per rollout (a retest, a probe's single line) is the plain case.

import { rateFigure, statFigure, type Figure, type RateFigure } from "@/lib/agreement/figures.ts";
import { DEFAULT_PASS_THRESHOLD, type RerunPair } from "@/lib/leaderboard/input.ts";
import {
  clusteredMean,
  clusteredMeanInterval,
  clusteredProportion,
  clusteredStandardError,
  type ClusterKey,
} from "@/lib/stats/clustered.ts";
import { isFiniteNumber } from "@/lib/stats/descriptive.ts";
import { Z_95, type Interval } from "@/lib/stats/intervals.ts";

/**
 * A mean shift whose interval stays inside ±SHIFT_TOLERANCE does not count as moving: the rule verifier's probe may
 * move its communication sub-score, which is a fraction of its reward.
 */
export const SHIFT_TOLERANCE = 0.05;

export type RerunSummary = {
  /** Pairs with a reward on both runs. */
  n: number;
  /** Rollouts those pairs are of: the clusters of the intervals (n when each pair is a rollout of its own). */
  rollouts: number;
  /** Pairs with a reward missing on either run (counted, not used). */
  incomplete: number;
  /** Mean of second − first over the pairs, with its t interval clustered by rollout (rollouts − 1 df). */
  meanShift: Figure;
  /**
   * Share of pairs whose verdict (reward ≥ threshold) differs between the runs, k of n, with Wilson's interval at
   * the effective n of pairs clustered by rollout (ClusteredProportion.nEffective; n with one pair per rollout).
   */
  flips: RateFigure;
  /** Share whose verdict is the same: the two runs' agreement (1 − flips), its interval likewise. */
  agreement: RateFigure;
  /** Mean |second − first| (normal interval, as the agreement report's MAE, clustered by rollout). */
  mae: Figure;
  /**
   * True when the reward moves: a verdict flipped, or the mean shift's interval lies wholly beyond ±SHIFT_TOLERANCE.
   */
  moved: boolean;
};

/** A share of the pairs as a figure: its counts, and Wilson's interval at the clustered effective n. */
function clusteredRate(hits: boolean[], keys: ClusterKey[]): RateFigure {
  const p = clusteredProportion(hits, keys);
  if (!p) return rateFigure(0, 0);
  // one pair per rollout: the plain Wilson interval, computed (and labelled) as every rate's
  if (p.clusters === p.n) return rateFigure(p.k, p.n);
  const f = rateFigure(p.k, p.n, p.interval);
  return { ...f, detail: `${f.detail} · over ${p.clusters} rollouts, effective n ≈ ${p.nEffective.toFixed(1)}` };
}

/** MAE ± z · se, se clustered (lib/stats/clustered.ts), clamped below at 0; null below two rollouts. */
function maeInterval(absolute: number[], keys: ClusterKey[]): Interval | null {
  const m = clusteredMean(absolute, keys);
  const se = m && clusteredStandardError(m);
  if (!m || se === null) return null;
  return { lower: Math.max(0, m.mean - Z_95 * se), upper: m.mean + Z_95 * se };
}

/** The two runs of each rollout compared: shift, flips and mean absolute difference. */
export function rerunSummary(pairs: readonly RerunPair[], threshold = DEFAULT_PASS_THRESHOLD): RerunSummary {
  const diffs: number[] = [];
  const flipped: boolean[] = [];
  const keys: ClusterKey[] = [];
  for (const p of pairs)
    if (isFiniteNumber(p.first) && isFiniteNumber(p.second)) {
      diffs.push(p.second - p.first);
      flipped.push(p.first >= threshold !== p.second >= threshold);
      keys.push(p.rollout);
    }
  const n = diffs.length;
  const shift = clusteredMean(diffs, keys);
  const shiftInterval = shift && clusteredMeanInterval(shift);
  const beyond =
    shiftInterval !== null && (shiftInterval.lower > SHIFT_TOLERANCE || shiftInterval.upper < -SHIFT_TOLERANCE);
  const absolute = diffs.map(Math.abs);
  const flips = clusteredRate(flipped, keys);
  return {
    n,
    rollouts: shift?.clusters ?? 0,
    incomplete: pairs.length - n,
    meanShift: statFigure(shift?.mean ?? null, n, shiftInterval),
    flips,
    agreement: clusteredRate(
      flipped.map((f) => !f),
      keys,
    ),
    mae: statFigure(n ? absolute.reduce((s, d) => s + d, 0) / n : null, n, maeInterval(absolute, keys)),
    moved: flips.k > 0 || beyond,
  };
}

export type RerunWords = { verdict: string; shift: string; flips: string; agreement: string; mae: string };

const signed = (x: number | null) => (x === null ? "—" : `${x >= 0 ? "+" : ""}${x.toFixed(3)}`);

/** The summary in words, for the CLI and the function's page: the value always, with its n and interval. */
export function describeRerun(s: RerunSummary): RerunWords {
  return {
    verdict: `${s.moved ? "moves" : "holds"}${s.n > 0 && s.flips.tooFew ? " (too few to say)" : ""}`,
    shift: `${signed(s.meanShift.value)} (${s.meanShift.detail})`,
    flips: s.flips.detail,
    agreement: s.agreement.detail,
    mae: s.mae.value === null ? "—" : `${s.mae.value.toFixed(3)} (${s.mae.detail})`,
  };
}
