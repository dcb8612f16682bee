import type { Metadata } from "next";
import { Card } from "@/components/ui/card.tsx";
import { EmptyState } from "@/components/ui/empty-state.tsx";
import { fmtInt, fmtPct } from "@/components/ui/format.ts";
import { PageHeader } from "@/components/ui/page-header.tsx";
import { Table, Td, Th } from "@/components/ui/table.tsx";
import { listBatchSummaries } from "@/lib/audit/data.ts";

export const metadata: Metadata = { title: "Audit" };

export default async function AuditPage() {
  const batches = await listBatchSummaries();
  return (
    <>
      <PageHeader title="Shadow audit" description="Sampled tickets re-scored blind by annotators, batch by batch." />
      {batches.length === 0 ? (
        <EmptyState title="No audit batches yet">A lead creates a batch by sampling 1% of a run&apos;s tickets over a step window.</EmptyState>
      ) : (
        <Card>
          <Table>
            <thead>
              <tr>
                <Th>Batch</Th>
                <Th>Run</Th>
                <Th numeric>Steps</Th>
                <Th numeric>Rate</Th>
                <Th numeric>Items</Th>
                <Th numeric>Done</Th>
                <Th numeric>Reviews</Th>
              </tr>
            </thead>
            <tbody>
              {batches.map((b) => (
                <tr key={b.id}>
                  <Td>{b.name}</Td>
                  <Td>{b.runId}</Td>
                  <Td numeric>{`${b.stepFrom}–${b.stepTo}`}</Td>
                  <Td numeric>{fmtPct(b.rate)}</Td>
                  <Td numeric>{fmtInt(b.items)}</Td>
                  <Td numeric>{b.items ? fmtPct(b.done / b.items, 0) : "–"}</Td>
                  <Td numeric>{fmtInt(b.reviews)}</Td>
                </tr>
              ))}
            </tbody>
          </Table>
        </Card>
      )}
    </>
  );
}
