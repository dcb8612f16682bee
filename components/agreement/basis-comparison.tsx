import Link from "next/link";
import { Card } from "@/components/ui/card.tsx";
import { basisSentence, type BasisComparison, type BasisRate } from "@/lib/agreement/bases.ts";
import { filterQuery, type AgreementFilter } from "@/lib/agreement/schema.ts";

const pct = (r: BasisRate) => (r.rate === null ? "–" : `${(r.rate * 100).toFixed(1)}%`);

/** Agreement as reviewed against agreement now, shown when they differ: did the fixes pay off? */
export function BasisComparisonCard({
  c,
  fixes,
  f,
}: {
  c: BasisComparison;
  fixes: { spec: number; rule: number };
  f: AgreementFilter;
}) {
  const other = f.basis === "now" ? { ...f, basis: undefined } : { ...f, basis: "now" as const };
  return (
    <Card title="Did the fixes pay off?">
      <div className="space-y-2 px-3 py-2 text-[13px]" data-testid="basis-comparison">
        <p>
          <span className="font-medium" data-testid="basis-sentence">
            {basisSentence(c, fixes)}
          </span>{" "}
          <span className="text-fg-muted">
            ({c.reviewed.agreeing}/{c.reviewed.n} as reviewed, {c.now.agreeing}/{c.now.n} now; {c.rescored.length} items
            re-scored since their review, {c.flipped.length} of them changed agreement). The figures below are{" "}
            {f.basis === "now" ? "against the ledger now" : "against the ledger as reviewed"}:{" "}
            <Link className="text-accent" href={`/agreement?${filterQuery(other)}`}>
              {f.basis === "now" ? "show them as reviewed" : "show them now"}
            </Link>
            .
          </span>
        </p>
        {c.byGuardrail.length > 0 && (
          <table className="text-[12px]" data-testid="basis-by-guardrail">
            <thead>
              <tr className="text-left text-fg-muted">
                <th className="pr-4 font-normal">guardrail</th>
                <th className="pr-4 font-normal">as reviewed</th>
                <th className="font-normal">now</th>
              </tr>
            </thead>
            <tbody>
              {c.byGuardrail.map((g) => (
                <tr key={g.guardrail}>
                  <td className="pr-4 font-mono">{g.guardrail}</td>
                  <td className="pr-4">
                    {pct(g.reviewed)} ({g.reviewed.agreeing}/{g.reviewed.n})
                  </td>
                  <td>
                    {pct(g.now)} ({g.now.agreeing}/{g.now.n})
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </Card>
  );
}
