import Link from "next/link";
import { Card } from "@/components/ui/card.tsx";
import { fmtInt, fmtPct } from "@/components/ui/format.ts";
import { Table, Td, Th } from "@/components/ui/table.tsx";
import type { OrderingPoint } from "@/lib/monitors/ordering.ts";

/**
 * The pairwise audit over training steps: per audit window, how often the human prefers the rollout the ledger
 * rewards higher (ties and pairs the ledger does not order apart), with the 95% Wilson interval whose lower bound the
 * ordering alarm reads against its floor. Windows with fewer than `minN` ordered judgements are not judged.
 */
export function OrderingTable({
  runId,
  points,
  floor,
  minN,
}: {
  runId: string;
  points: readonly OrderingPoint[];
  floor: number;
  minN: number;
}) {
  return (
    <Card
      title="Ordering agreement per audit window"
      actions={
        <Link
          className="text-[12px] text-accent hover:underline"
          href={`/agreement/pairwise?run=${encodeURIComponent(runId)}`}
        >
          Pairwise report →
        </Link>
      }
    >
      <Table>
        <thead>
          <tr>
            <Th>Steps</Th>
            <Th numeric>Judged pairs</Th>
            <Th numeric>Agree</Th>
            <Th numeric>Inversions</Th>
            <Th numeric>Ties</Th>
            <Th numeric>Ordering agreement</Th>
            <Th numeric>95% interval</Th>
            <Th>Against the floor {fmtPct(floor)}</Th>
          </tr>
        </thead>
        <tbody>
          {points.map((p) => {
            const ordered = p.agree + p.inversions;
            const judged = ordered >= minN && p.agreement !== null;
            const below = judged && p.agreement!.lower < floor;
            return (
              <tr key={p.step} data-window={p.step} data-below={below ? "true" : undefined}>
                <Td>
                  {fmtInt(p.step)}–{fmtInt(p.stepTo)}
                </Td>
                <Td numeric>{fmtInt(p.judgements)}</Td>
                <Td numeric>{fmtInt(p.agree)}</Td>
                <Td numeric>{fmtInt(p.inversions)}</Td>
                <Td numeric>{fmtInt(p.ties)}</Td>
                <Td numeric>{fmtPct(p.agreement?.estimate)}</Td>
                <Td numeric>{p.agreement ? `${fmtPct(p.agreement.lower)}–${fmtPct(p.agreement.upper)}` : "–"}</Td>
                <Td className={below ? "font-semibold text-bad" : "text-fg-muted"}>
                  {!judged
                    ? `too few to judge (${ordered} ordered, fewer than ${minN})`
                    : below
                      ? "lower bound below the floor"
                      : "lower bound at or above the floor"}
                </Td>
              </tr>
            );
          })}
        </tbody>
      </Table>
    </Card>
  );
}
