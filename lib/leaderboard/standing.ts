// Where the ledger's own reward stands on the leaderboard of a run's audited items: its rank by agreement with the
// human verdict among the candidates, and, against the best of the others, whether it is significantly worse (McNemar's
// exact test on the items both scored, as the head to head). Read by the run page's audit section and the gate's
// optional `ledger_rank` rule. Pure.
import { buildLeaderboard, sortLeaderboard } from "@/lib/leaderboard/build.ts";
import { headToHead, SIGNIFICANCE } from "@/lib/leaderboard/head-to-head.ts";
import type { LeaderboardInput } from "@/lib/leaderboard/input.ts";

export type LedgerStanding = {
  /** Audited items of the scope. */
  items: number;
  /** The ledger's place by agreement (1 = best) among the candidates with an agreement figure, and how many those are. */
  rank: number;
  of: number;
  ledger: { agreement: number | null; covered: number };
  /** The best other candidate by agreement; null when no reward function has results on the items. */
  best: {
    id: string;
    label: string;
    agreement: number | null;
    /** Items both scored, the difference ledger − best in agreement on them, and McNemar's exact p. */
    n: number;
    difference: number | null;
    interval: { lower: number; upper: number } | null;
    pValue: number;
  } | null;
  /** The best candidate is right more often than the ledger with p below `alpha`. */
  significantlyWorse: boolean;
  /** The head to head's plain verdict, ledger against the best. */
  verdict: string | null;
};

/** The ledger's standing; null when the input has no ledger row. `alpha` defaults to the head to head's 0.05. */
export function ledgerStanding(input: LeaderboardInput, alpha = SIGNIFICANCE): LedgerStanding | null {
  const board = buildLeaderboard(input);
  const ranked = sortLeaderboard(
    board.rows.filter((r) => r.verdict.agreement.value !== null),
    "agreement",
  );
  const ledgerRow = board.rows.find((r) => r.isLedger);
  if (!ledgerRow) return null;
  const rank = ranked.findIndex((r) => r.isLedger) + 1;
  const bestRow = ranked.find((r) => !r.isLedger) ?? null;
  const base = {
    items: board.items,
    rank: rank === 0 ? ranked.length + 1 : rank,
    of: ranked.length + (rank === 0 ? 1 : 0),
    ledger: { agreement: ledgerRow.verdict.agreement.value, covered: ledgerRow.coverage.covered },
  };
  if (!bestRow) return { ...base, best: null, significantlyWorse: false, verdict: null };
  // only the agreement difference is read: one bootstrap resample for MAE and ρ, whose intervals are not used
  const h = headToHead(input, ledgerRow.id, bestRow.id, { iterations: 1 });
  const pValue = h.agreement?.pValue ?? 1;
  const worse = h.table.secondOnly > h.table.firstOnly && pValue < alpha;
  return {
    ...base,
    best: {
      id: bestRow.id,
      label: bestRow.label,
      agreement: bestRow.verdict.agreement.value,
      n: h.n,
      difference: h.agreement?.difference ?? null,
      interval: h.agreement?.interval ?? null,
      pValue,
    },
    significantlyWorse: worse,
    verdict: h.verdict.text,
  };
}
