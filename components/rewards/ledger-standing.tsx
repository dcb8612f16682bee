// The run page's word on the ledger's reward against the reward functions run on the run's audited items: its rank by
// agreement with the blind reviews, and whether the best of the others is significantly better (McNemar's exact test,
// lib/leaderboard/standing.ts), with the way to the leaderboard.
import Link from "next/link";
import { Card } from "@/components/ui/card.tsx";
import type { LedgerStanding } from "@/lib/leaderboard/standing.ts";

const pct = (x: number | null) => (x === null ? "—" : `${(x * 100).toFixed(1)}%`);

export function LedgerStandingCard({
  runId,
  standing,
}: {
  runId: string;
  standing: { ran: false } | { ran: true; standing: LedgerStanding | null };
}) {
  const href = `/rewards/compare?run=${encodeURIComponent(runId)}`;
  const s = standing.ran ? standing.standing : null;
  return (
    <Card
      title="The ledger's reward on the leaderboard"
      actions={
        <Link className="text-[12px] text-accent hover:underline" href={href}>
          Open the leaderboard →
        </Link>
      }
    >
      <p className="p-3 text-[13px]" data-testid="ledger-standing">
        {!standing.ran
          ? "No reward function has been run on this run yet: the leaderboard compares the ledger's reward with those run on its audited items."
          : !s || s.items === 0
            ? "No audited item of this run has a blind review yet."
            : !s.best
              ? `No reward function has results on the run's ${s.items} audited items.`
              : `On the run's ${s.items} audited items the ledger's reward ranks ${s.rank} of ${s.of} by agreement with the blind reviews (${pct(s.ledger.agreement)}); the best other, ${s.best.label}, agrees on ${pct(s.best.agreement)}. ${
                  s.best.difference !== null && s.best.difference < 0
                    ? s.significantlyWorse
                      ? `The ledger is significantly worse (McNemar exact p = ${s.best.pValue.toPrecision(3)} over ${s.best.n} items both scored).`
                      : `The ledger is not significantly worse (McNemar exact p = ${s.best.pValue.toPrecision(3)}): ${s.verdict}.`
                    : "The ledger is not worse."
                }`}
      </p>
    </Card>
  );
}
