// The trainer's own reward (`trained_reward`) against the ledger's. Pure. A trainer that optimizes a number other
// than the one the ledger records (a stale reward function, a reshaped or clipped reward, a misaligned batch) is a
// known class of trainer bug; these say where and by how much.

/** Two rewards closer than this are the same number (the verifier rounds to 6 decimals; trainers print floats). */
export const TRAINED_REWARD_TOLERANCE = 1e-6;

/**
 * trained − reward for one entry, and whether |trained − reward| > TRAINED_REWARD_TOLERANCE. null when either is
 * missing (no trained reward, or an error record without a ledger reward): such an entry neither differs nor agrees.
 */
export function trainedRewardGap(
  trained: number | null,
  reward: number | null,
): { difference: number; differs: boolean } | null {
  if (trained === null || reward === null || !Number.isFinite(trained) || !Number.isFinite(reward)) return null;
  const difference = trained - reward;
  return { difference, differs: Math.abs(difference) > TRAINED_REWARD_TOLERANCE };
}

/** Per-step counters of the trained rewards (step_rollups: trained, trained_differs, trained_abs_diff_sum). */
export type TrainedRewardCounters = { trained: number; trainedDiffers: number; trainedAbsDiffSum: number };

/** How far a step window's trained rewards are from the ledger's. */
export type TrainedRewardMismatch = {
  /** Entries of the window with both a trained and a ledger reward. */
  n: number;
  /** Of those, how many differ by more than TRAINED_REWARD_TOLERANCE. */
  differing: number;
  /** differing / n, in [0, 1]. */
  share: number;
  /** Mean |trained − reward| over the n entries, ≥ 0 (on the trainer's scale where it is not the ledger's). */
  meanAbsDiff: number;
};

/**
 * The mismatch of one step window, from the counters of its steps pooled (Σ differing / Σ n, Σ |diff| / Σ n: every
 * entry weighs the same, whatever its step's size). null when no entry of the window carries a trained reward —
 * "nothing to compare", not "no mismatch". The alarm reads `share` per step; a gate rule can call this with the steps
 * of its window.
 */
export function trainedRewardMismatch(steps: readonly TrainedRewardCounters[]): TrainedRewardMismatch | null {
  let n = 0;
  let differing = 0;
  let sum = 0;
  for (const s of steps) {
    n += s.trained;
    differing += s.trainedDiffers;
    sum += s.trainedAbsDiffSum;
  }
  if (n <= 0) return null;
  return { n, differing, share: differing / n, meanAbsDiff: Math.max(0, sum / n) };
}
