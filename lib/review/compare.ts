// Human review against ledger entry, field by field: what the reveal marks and what sends an item to adjudication.
// Pure.
import { DIMENSIONS, GUARDRAIL_CODES, type Dimension } from "@/lib/verifier/codes.ts";
import { mentionEq } from "@/lib/verifier/equality.ts";
import type { Claims } from "@/lib/verifier/schema.ts";

/** Float slack on the tolerance test: |0.4 − 0.3| is 0.10000000000000003 in doubles, which is not "more than 0.1". */
const EPSILON = 1e-9;

export type ScoredSide = {
  reward: number | null;
  subscores: Record<Dimension, number | null>;
  guardrails: readonly string[];
  claims: Claims | null;
};

/** The five sub-scores of a row that stores them as columns (a ledger entry, a review), as one record. */
export function subscoresOf<T>(r: Record<Dimension, T>): Record<Dimension, T> {
  return {
    outcome: r.outcome,
    policy: r.policy,
    evidence: r.evidence,
    efficiency: r.efficiency,
    communication: r.communication,
  };
}

export type SetDiff = { both: string[]; onlyHuman: string[]; onlyLedger: string[] };

export type MentionDiff = {
  key: string;
  human: unknown;
  ledger: unknown;
  humanHas: boolean;
  ledgerHas: boolean;
  same: boolean;
};

export type Comparison = {
  /** human − ledger; null when the ledger entry has no reward (spec or input error). */
  rewardDelta: number | null;
  rewardDisagrees: boolean;
  subscoreDeltas: Record<Dimension, number | null>;
  guardrails: SetDiff;
  guardrailsDiffer: boolean;
  claimedWrites: SetDiff;
  forbiddenHits: SetDiff;
  mentions: MentionDiff[];
  claimsDiffer: boolean;
  /** The item goes to adjudication: reward beyond the tolerance, another guardrail set, or no ledger reward at all. */
  disagrees: boolean;
};

const order = new Map<string, number>(GUARDRAIL_CODES.map((c, i) => [c, i]));
const byTableOrder = (a: string, b: string) =>
  (order.get(a) ?? 99) - (order.get(b) ?? 99) || (a < b ? -1 : a > b ? 1 : 0);

export function setDiff(human: readonly string[], ledger: readonly string[]): SetDiff {
  const h = new Set(human);
  const l = new Set(ledger);
  return {
    both: [...h].filter((x) => l.has(x)).sort(byTableOrder),
    onlyHuman: [...h].filter((x) => !l.has(x)).sort(byTableOrder),
    onlyLedger: [...l].filter((x) => !h.has(x)).sort(byTableOrder),
  };
}

const differs = (d: SetDiff) => d.onlyHuman.length > 0 || d.onlyLedger.length > 0;

function mentionDiffs(human: Claims["mentioned"], ledger: Claims["mentioned"]): MentionDiff[] {
  const keys = [...new Set([...human.map((m) => m.key), ...ledger.map((m) => m.key)])].sort();
  return keys.map((key) => {
    const h = human.find((m) => m.key === key);
    const l = ledger.find((m) => m.key === key);
    const bothValued = h?.value !== undefined && l?.value !== undefined;
    const same =
      !!h && !!l && (!bothValued || mentionEq(h.value, l.value)) && (h.value === undefined) === (l.value === undefined);
    return { key, human: h?.value, ledger: l?.value, humanHas: !!h, ledgerHas: !!l, same };
  });
}

/**
 * Compares a submitted review with the ledger entry it shadows. `disagrees` is the adjudication rule of the
 * shadow audit: |human − ledger| > tolerance, or the guardrail sets differ, or the ledger has no reward. Sub-score
 * and claim differences are marked on the reveal but do not by themselves send an item to adjudication.
 */
export function compareWithLedger(human: ScoredSide, ledger: ScoredSide, tolerance: number): Comparison {
  const rewardDelta = human.reward !== null && ledger.reward !== null ? human.reward - ledger.reward : null;
  const rewardDisagrees = rewardDelta === null || Math.abs(rewardDelta) > tolerance + EPSILON;
  const subscoreDeltas = Object.fromEntries(
    DIMENSIONS.map((d) => {
      const h = human.subscores[d];
      const l = ledger.subscores[d];
      return [d, h !== null && l !== null ? h - l : null];
    }),
  ) as Record<Dimension, number | null>;
  const guardrails = setDiff(human.guardrails, ledger.guardrails);
  const hc = human.claims ?? { claimed_writes: [], mentioned: [], forbidden_hits: [] };
  const lc = ledger.claims ?? { claimed_writes: [], mentioned: [], forbidden_hits: [] };
  const claimedWrites = setDiff(hc.claimed_writes, lc.claimed_writes);
  const forbiddenHits = setDiff(hc.forbidden_hits, lc.forbidden_hits);
  const mentions = mentionDiffs(hc.mentioned, lc.mentioned);
  return {
    rewardDelta,
    rewardDisagrees,
    subscoreDeltas,
    guardrails,
    guardrailsDiffer: differs(guardrails),
    claimedWrites,
    forbiddenHits,
    mentions,
    claimsDiffer: differs(claimedWrites) || differs(forbiddenHits) || mentions.some((m) => !m.same),
    disagrees: rewardDisagrees || differs(guardrails),
  };
}
