// How a reward holds up when it is run again: on the same replies with injected lines appended (the injection probe:
// lib/rewards/probes.ts), or simply a second time (test–retest). Both are the same comparison of two rewards per
// rollout — how far the reward moves on average, how often the verdict flips, how far apart the two runs are — read
// with different eyes: a probe should move nothing but a communication sub-score, a retest nothing at all.

import { rateFigure, statFigure, type Figure, type RateFigure } from "@/lib/agreement/figures.ts";
import { DEFAULT_PASS_THRESHOLD, type RerunPair } from "@/lib/leaderboard/input.ts";
import { meanAbsoluteError, meanAbsoluteErrorInterval } from "@/lib/stats/correlation.ts";
import { isFiniteNumber } from "@/lib/stats/descriptive.ts";
import { meanDifferenceInterval } from "@/lib/stats/paired.ts";

/**
 * A mean shift whose interval stays inside ±SHIFT_TOLERANCE does not count as moving: the rule verifier's probe may
 * move its communication sub-score, which is a fraction of its reward.
 */
export const SHIFT_TOLERANCE = 0.05;

export type RerunSummary = {
  /** Pairs with a reward on both runs. */
  n: number;
  /** Pairs with a reward missing on either run (counted, not used). */
  incomplete: number;
  /** Mean of second − first, with its t interval (n − 1 df). */
  meanShift: Figure;
  /** Share of pairs whose verdict (reward ≥ threshold) differs between the runs, Wilson interval. */
  flips: RateFigure;
  /** Share whose verdict is the same: the two runs' agreement (1 − flips). */
  agreement: RateFigure;
  /** Mean |second − first| (normal interval, as the agreement report's MAE). */
  mae: Figure;
  /**
   * True when the reward moves: a verdict flipped, or the mean shift's interval lies wholly beyond ±SHIFT_TOLERANCE.
   */
  moved: boolean;
};

/** The two runs of each rollout compared: shift, flips and mean absolute difference. */
export function rerunSummary(pairs: readonly RerunPair[], threshold = DEFAULT_PASS_THRESHOLD): RerunSummary {
  const first: number[] = [];
  const second: number[] = [];
  for (const p of pairs)
    if (isFiniteNumber(p.first) && isFiniteNumber(p.second)) {
      first.push(p.first);
      second.push(p.second);
    }
  const n = first.length;
  let flips = 0;
  for (let i = 0; i < n; i++) if (first[i] >= threshold !== second[i] >= threshold) flips++;
  const diffs = second.map((s, i) => s - first[i]);
  const shift = meanDifferenceInterval(diffs);
  const shiftValue = n ? diffs.reduce((s, d) => s + d, 0) / n : null;
  const beyond = shift !== null && (shift.lower > SHIFT_TOLERANCE || shift.upper < -SHIFT_TOLERANCE);
  return {
    n,
    incomplete: pairs.length - n,
    meanShift: statFigure(shiftValue, n, shift),
    flips: rateFigure(flips, n),
    agreement: rateFigure(n - flips, n),
    mae: statFigure(meanAbsoluteError(first, second), n, meanAbsoluteErrorInterval(first, second)),
    moved: flips > 0 || beyond,
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
