import { Badge } from "@/components/ui/badge.tsx";
import { Stat } from "@/components/ui/card.tsx";
import { fmtInt } from "@/components/ui/format.ts";
import { Table, Td, Th } from "@/components/ui/table.tsx";
import type { PairBatchPreview } from "@/lib/audit/pair-data.ts";

/** The pairs a pairwise batch would draw: population, expected and drawn pairs, and the strata of the draw. */
export function PairPreview({ preview }: { preview: PairBatchPreview }) {
  const { population: pop, sample } = preview;
  return (
    <>
      <div className="grid grid-cols-2 gap-2 p-3 md:grid-cols-5" data-testid="preview">
        <Stat
          label="GRPO groups in window"
          value={fmtInt(pop.groups)}
          hint={
            pop.excluded ? `${fmtInt(pop.excluded)} rollouts without a reward left out` : "with two or more rollouts"
          }
        />
        <Stat label="Rollouts in window" value={fmtInt(pop.rollouts)} />
        <Stat label="Expected sample" value={`${sample.expected.groups.toFixed(1)} pairs`} />
        <Stat
          label="Drawn"
          value={`${fmtInt(sample.pairs.length)} pairs`}
          hint={`${fmtInt(sample.nearTies)} near-ties`}
        />
        <Stat label="Two reviewers" value={fmtInt(sample.overlapItems)} hint="overlap pairs" />
      </div>
      <Table className="preview-strata">
        <thead>
          <tr>
            <Th>Stratum (the pair&apos;s deciding guardrails)</Th>
            <Th numeric>Groups</Th>
            <Th numeric>Rollouts</Th>
            <Th numeric>Under the rate</Th>
            <Th numeric>Pairs</Th>
            <Th numeric>Inclusion probability (group)</Th>
          </tr>
        </thead>
        <tbody>
          {sample.strata.map((s) => (
            <tr key={s.stratum}>
              <Td className="font-mono text-[12px]">{s.stratum}</Td>
              <Td numeric>{fmtInt(s.tickets)}</Td>
              <Td numeric>{fmtInt(s.rollouts)}</Td>
              <Td numeric>{fmtInt(s.baseTickets)}</Td>
              <Td numeric>{fmtInt(s.items)}</Td>
              <Td numeric>
                {s.ticketInclusionProb.toPrecision(3)} {s.toppedUp && <Badge tone="warn">topped up</Badge>}
              </Td>
            </tr>
          ))}
        </tbody>
      </Table>
      <p className="px-3 pt-2 font-mono text-[11px] text-fg-muted">items hash {sample.itemsHash}</p>
    </>
  );
}
