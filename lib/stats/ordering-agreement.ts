// Ordering agreement of pairwise judgements: does the human order two rollouts of a GRPO group as the ledger does?
// GRPO consumes rewards relative to the group, so this — not absolute agreement — is what says whether the
// advantages push the policy the right way. Pure.
import { describeRate, type RateDescription } from "@/lib/stats/small-sample.ts";
import { weightedProportion, type WeightedProportion } from "@/lib/stats/weighted.ts";

/** One counted judgement: how it stands against the ledger's order, where it was shown, and its inclusion probability. */
export type PairJudgementObs = {
  verdict: "agree" | "inversion" | "tie" | "ledger_tie" | "unscored";
  /** The side chosen as shown ("tie" for a tie). */
  side: "left" | "right" | "tie";
  inclusionProb: number;
};

export type OrderingAgreement = {
  /** agree / (agree + inversion): judgements that prefer a rollout of a pair the ledger orders. Wilson interval. */
  agreement: RateDescription;
  agree: number;
  inversions: number;
  /** ties / judgements of ordered pairs (agree + inversion + tie), reported apart from the agreement. */
  tieShare: RateDescription;
  ties: number;
  /** Judgements of pairs the ledger scores equal (no order to agree with) or where a reward is missing. */
  unordered: number;
  /** left / (left + right) over every non-tie judgement: position bias; its interval should contain 0.5. */
  leftShare: RateDescription;
  /** Hájek estimate of the agreement with weights 1/π (stratified batches); Wilson on Kish's effective n. */
  weighted: WeightedProportion | null;
};

/**
 * The ordering-agreement figures of a set of judgements. agreement = A / (A + I) with A the judgements preferring
 * the rollout with the higher ledger reward and I those preferring the lower one (inversions); ties and pairs the
 * ledger does not order are left out of it and counted apart. Ranges: every share in [0, 1]; null rates when their
 * denominator is 0 (describeRate's "no data"), and "too few to say" below `minN`.
 */
export function orderingAgreement(obs: readonly PairJudgementObs[], minN?: number): OrderingAgreement {
  let agree = 0;
  let inversions = 0;
  let ties = 0;
  let unordered = 0;
  let left = 0;
  let right = 0;
  for (const o of obs) {
    if (o.side === "left") left++;
    else if (o.side === "right") right++;
    if (o.verdict === "agree") agree++;
    else if (o.verdict === "inversion") inversions++;
    else if (o.verdict === "tie") ties++;
    else unordered++;
  }
  const ordered = obs.filter((o) => o.verdict === "agree" || o.verdict === "inversion");
  return {
    agreement: describeRate({ k: agree, n: agree + inversions, minN }),
    agree,
    inversions,
    tieShare: describeRate({ k: ties, n: agree + inversions + ties, minN }),
    ties,
    unordered,
    leftShare: describeRate({ k: left, n: left + right, minN }),
    weighted: ordered.length
      ? weightedProportion(
          ordered.map((o) => ({ value: o.verdict === "agree", inclusionProbability: o.inclusionProb })),
        )
      : null,
  };
}

/** Reward-gap bins of the report: near-ties up to δ, then wider gaps. Upper bounds inclusive. */
export function gapBin(gap: number, delta: number): string {
  if (gap <= delta) return `≤ ${delta}`;
  if (gap <= 0.25) return `${delta}–0.25`;
  if (gap <= 0.5) return "0.25–0.5";
  return "> 0.5";
}
