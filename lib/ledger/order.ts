// How a human's choice between two rollouts stands against the ledger's order of them. Pure.

export type PairRollout = { trajectoryId: string; reward: number | null };

/**
 * agree: the human preferred the rollout with the higher ledger reward; inversion: the one with the lower; tie: the
 * human called a pair the ledger orders a tie; ledger_tie: the ledger gives both the same reward (no order to agree
 * with, whatever the human chose, a tie included); unscored: a reward is missing.
 */
export type OrderVerdict = "agree" | "inversion" | "tie" | "ledger_tie" | "unscored";

export type LedgerOrder = {
  verdict: OrderVerdict;
  /** The rollout the ledger rewards higher; null on equal or missing rewards. */
  ledgerPreferred: string | null;
  /** |reward A − reward B|; null when a reward is missing. */
  gap: number | null;
};

export function ledgerOrder(a: PairRollout, b: PairRollout, preferred: string | null): LedgerOrder {
  if (a.reward === null || b.reward === null) return { verdict: "unscored", ledgerPreferred: null, gap: null };
  const gap = Math.abs(a.reward - b.reward);
  const ledgerPreferred = a.reward > b.reward ? a.trajectoryId : b.reward > a.reward ? b.trajectoryId : null;
  // The ledger's tie first: a pair it scores equal has no order, whatever the human chose, so a human tie there is
  // unordered, not a tie (ties are a share of the pairs the ledger orders).
  if (ledgerPreferred === null) return { verdict: "ledger_tie", ledgerPreferred, gap };
  if (preferred === null) return { verdict: "tie", ledgerPreferred, gap };
  return { verdict: preferred === ledgerPreferred ? "agree" : "inversion", ledgerPreferred, gap };
}
