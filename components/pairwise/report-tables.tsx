import Link from "next/link";
import { Shown, pctRange } from "@/components/agreement/figure.tsx";
import { Badge } from "@/components/ui/badge.tsx";
import { TrajectoryLink } from "@/components/ui/id-links.tsx";
import { Head, Table, Td, Th, numeric } from "@/components/ui/table.tsx";
import { CAUSE_LABELS, DISAGREEMENT_CAUSES } from "@/lib/agreement/causes.ts";
import { PAIR_LABELS, type BreakdownRow, type PairReport } from "@/lib/pairwise/report.ts";

const num = (x: number) => x.toFixed(3);

/** One breakdown of the ordering agreement (by gap bin, stratum, category or step window). */
export function BreakdownTable({ rows, head, testId }: { rows: BreakdownRow[]; head: string; testId: string }) {
  if (!rows.length) return <p className="px-3 py-2 text-fg-muted">No judgements.</p>;
  return (
    <Table>
      <thead>
        <tr>
          <Th>{head}</Th>
          <Th numeric>Judged</Th>
          <Th numeric>Agreement</Th>
          <Th numeric>95% CI</Th>
          <Th numeric>Inversions</Th>
          <Th numeric>Ties</Th>
          <Th numeric>Unordered</Th>
        </tr>
      </thead>
      <tbody data-testid={testId}>
        {rows.map((r) => (
          <tr key={r.key} data-key={r.key}>
            <Td className="font-mono text-[12px]">{r.key}</Td>
            <Td numeric>{r.judgements}</Td>
            <Td numeric>
              <Shown fig={r.agreement} detail={false} />
            </Td>
            <Td numeric className="text-fg-muted">
              {r.agreement.n ? `${pctRange(r.agreement.interval)} · ${r.agreement.k} of ${r.agreement.n}` : "no data"}
            </Td>
            <Td numeric>{r.inversions}</Td>
            <Td numeric>{r.ties}</Td>
            <Td numeric>{r.unordered}</Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

/** κ and AC1 between annotators on overlap pairs, with the 3×3 table of their first two choices. */
export function BetweenAnnotators({ r }: { r: PairReport }) {
  const b = r.betweenAnnotators;
  if (!b.pairs) return <p className="px-3 py-2 text-fg-muted">No pair was judged by two annotators.</p>;
  return (
    <div className="space-y-2 p-3">
      <p data-testid="pair-iaa">
        κ <b>{b.kappa.label}</b> ({b.kappa.detail}, bootstrap) · AC1 <b>{b.ac1.label}</b> ({b.ac1.detail}) · raw
        agreement <Shown fig={b.rawAgreement} detail={false} /> ({b.rawAgreement.detail})
      </p>
      <Table>
        <thead>
          <tr>
            <Th>first ↓ / second →</Th>
            {PAIR_LABELS.map((l) => (
              <Th key={l} numeric>
                {l}
              </Th>
            ))}
          </tr>
        </thead>
        <tbody>
          {PAIR_LABELS.map((l, i) => (
            <tr key={l}>
              <Td>{l}</Td>
              {b.table[i].map((c, j) => (
                <Td key={j} numeric>
                  {c}
                </Td>
              ))}
            </tr>
          ))}
        </tbody>
      </Table>
    </div>
  );
}

/** The inversions, largest reward gap first, each linked to the side-by-side view where it is adjudicated. */
export function InversionTable({ r }: { r: PairReport }) {
  if (!r.inversions.length)
    return <p className="px-3 py-2 text-fg-muted">No inversion: no human preferred the lower-scored rollout.</p>;
  return (
    <Table>
      <Head
        cols={[
          ...numeric("Gap"),
          "Ledger prefers",
          "Human prefers",
          ...numeric("Step"),
          "Stratum",
          ...numeric("Inverted"),
          "Verdict",
        ]}
      />
      <tbody data-testid="pair-inversions">
        {r.inversions.map((i) => (
          <tr key={i.itemId} data-item={i.itemId}>
            <Td numeric>{num(i.gap)}</Td>
            <Td className="font-mono text-[12px]">
              <TrajectoryLink id={i.higher.trajectoryId} />{" "}
              <span className="text-fg-muted">({num(i.higher.reward)})</span>
            </Td>
            <Td className="font-mono text-[12px]">
              <TrajectoryLink id={i.lower.trajectoryId} />{" "}
              <span className="text-fg-muted">({num(i.lower.reward)})</span>
            </Td>
            <Td numeric>{i.step}</Td>
            <Td className="font-mono text-[12px]">{i.stratum ?? "none"}</Td>
            <Td numeric>
              {i.inverted} of {i.counted}
            </Td>
            <Td>
              <Link className="text-accent hover:underline" href={`/agreement/pairwise/${i.itemId}`}>
                {i.cause ? CAUSE_LABELS[i.cause] : "Adjudicate"}
              </Link>
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

/** Current verdicts on the scope's pairs by cause, the same causes as ticket disputes. */
export function PairTally({ r }: { r: PairReport }) {
  return (
    <div className="p-3">
      <p className="mb-2 text-[12px] text-fg-muted">
        {r.tally.total} adjudicated · <span data-testid="pair-pending">{r.tally.pending}</span> inversions waiting for a
        verdict
      </p>
      <Table>
        <tbody data-testid="pair-cause-tally">
          {DISAGREEMENT_CAUSES.map((c) => (
            <tr key={c} data-cause={c}>
              <Td>{CAUSE_LABELS[c]}</Td>
              <Td numeric>{r.tally.byCause[c]}</Td>
            </tr>
          ))}
        </tbody>
      </Table>
    </div>
  );
}

/** Position bias: the share of "left" among counted non-tie choices; its interval should contain ½. */
export function PositionBias({ r }: { r: PairReport }) {
  const p = r.position;
  return (
    <p className="p-3" data-testid="pair-position">
      Left chosen <b>{p.leftShare.label}</b> ({p.leftShare.detail}){" "}
      {p.containsHalf === null ? null : p.containsHalf ? (
        <Badge tone="good">interval contains 50%</Badge>
      ) : (
        <Badge tone="bad">interval excludes 50%: annotators favour one side</Badge>
      )}
    </p>
  );
}
