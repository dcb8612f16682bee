import Link from "next/link";
import { DateTime } from "@/components/ui/datetime.tsx";
import { BatchLink, stepsHref } from "@/components/ui/id-links.tsx";
import { fmtInt, fmtPct } from "@/components/ui/format.ts";
import { Head, Table, Td, numeric } from "@/components/ui/table.tsx";
import type { AnnotatorProgress, BatchSummary } from "@/lib/audit/data.ts";

/** Every batch with its progress: items done, reviews against reviews needed, leases held now, disputes. */
export function BatchTable({ batches }: { batches: BatchSummary[] }) {
  return (
    <Table>
      <Head
        cols={[
          "Batch",
          "Run",
          ...numeric("Steps", "Rate"),
          "Pick",
          ...numeric("Items", "Done", "Reviews", "Overlap items", "Leased now", "Disputed", "Adjudicated"),
        ]}
      />
      <tbody>
        {batches.map((b) => (
          <tr key={b.id} data-testid={`batch-${b.id}`}>
            <Td>
              <BatchLink id={b.id} name={b.name} kind={b.kind} />
            </Td>
            <Td>
              <Link className="text-accent hover:underline" href={`/runs/${encodeURIComponent(b.runId)}`}>
                {b.runId}
              </Link>
            </Td>
            <Td numeric>
              <Link className="text-accent hover:underline" href={stepsHref(b.runId, b.stepFrom, b.stepTo)}>
                {`${b.stepFrom}–${b.stepTo}`}
              </Link>
            </Td>
            <Td numeric>{fmtPct(b.rate, b.rate < 0.01 ? 2 : 1)}</Td>
            <Td>{b.pick}</Td>
            <Td numeric>{fmtInt(b.items)}</Td>
            <Td numeric>{b.items ? fmtPct(b.done / b.items, 0) : "–"}</Td>
            <Td numeric>{`${fmtInt(b.reviews)} / ${fmtInt(b.reviewsNeeded)}`}</Td>
            <Td numeric>{fmtInt(b.overlapItems)}</Td>
            <Td numeric>{fmtInt(b.leasedNow)}</Td>
            <Td numeric>{fmtInt(b.disputed)}</Td>
            <Td numeric>{fmtInt(b.adjudicated)}</Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

/** Per batch and annotator: reviews submitted, items held right now, median time per review, last review. */
export function AnnotatorTable({ rows, batchNames }: { rows: AnnotatorProgress[]; batchNames: Map<number, string> }) {
  return (
    <Table>
      <Head cols={["Batch", "Annotator", ...numeric("Reviews", "Leased now", "Median time"), "Last review"]} />
      <tbody>
        {rows.map((r) => (
          <tr key={`${r.batchId}-${r.userId}`}>
            <Td>
              <BatchLink id={r.batchId} name={batchNames.get(r.batchId) ?? `#${r.batchId}`} withAgreement={false} />
            </Td>
            <Td>{r.email}</Td>
            <Td numeric>{fmtInt(r.reviews)}</Td>
            <Td numeric>{fmtInt(r.leasedNow)}</Td>
            <Td numeric>{r.medianSeconds === null ? "–" : `${Math.round(r.medianSeconds)} s`}</Td>
            <Td>
              <DateTime value={r.lastAt} empty="–" />
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
