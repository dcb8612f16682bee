// The most common reply phrasings of a cluster: its sampled final replies grouped as near-duplicates
// (lib/stats/minhash.ts, Jaccard ≥ 0.7 on character 3-grams), so a repeated hack such as "your refund has been
// arranged" stands out as one phrasing covering most of the cluster. Pure.
import { groupNearDuplicates } from "@/lib/stats/minhash.ts";

export type Phrasing = {
  /** The group's most frequent variant, as written. */
  text: string;
  /** Replies of the sample in the group. */
  count: number;
  /** count / sampled replies. Range [0, 1]. */
  share: number;
  /** A rollout that wrote the representative text. */
  exampleTrajectoryId: string;
};

export type PhrasingSummary = { sampled: number; phrasings: Phrasing[] };

/** Top `top` phrasing groups of the replies (largest first); groups of one reply are listed only to fill up. */
export function topPhrasings(replies: readonly { trajectoryId: string; reply: string }[], top = 5): PhrasingSummary {
  if (!replies.length) return { sampled: 0, phrasings: [] };
  const groups = groupNearDuplicates(replies.map((r) => r.reply));
  return {
    sampled: replies.length,
    phrasings: groups.slice(0, top).map((g) => ({
      text: g.representative,
      count: g.count,
      share: g.count / replies.length,
      exampleTrajectoryId: replies[g.representativeIndex].trajectoryId,
    })),
  };
}
