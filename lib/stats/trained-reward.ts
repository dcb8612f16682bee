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
