import type { Metadata } from "next";
import Link from "next/link";
import { AnnotatorTable, BatchTable } from "@/components/audit/batch-tables.tsx";
import { Card } from "@/components/ui/card.tsx";
import { EmptyState } from "@/components/ui/empty-state.tsx";
import { PageHeader } from "@/components/ui/page-header.tsx";
import { tallyAdjudications } from "@/lib/audit/adjudication-data.ts";
import { listAnnotatorProgress, listBatchSummaries } from "@/lib/audit/data.ts";
import { requirePageUser } from "@/lib/auth/guards.ts";
import { can } from "@/lib/auth/policy.ts";

export const metadata: Metadata = { title: "Audit" };

export default async function AuditPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const me = await requirePageUser("audit.read");
  const [batches, progress, tally, sp] = await Promise.all([
    listBatchSummaries(),
    listAnnotatorProgress(),
    tallyAdjudications(),
    searchParams,
  ]);
  const manage = can(me.role, "audit.manage");
  const adjudicate = can(me.role, "adjudicate");
  return (
    <>
      <PageHeader
        title="Shadow audit"
        description="Sampled tickets re-scored blind by annotators, batch by batch."
        actions={
          <>
            {adjudicate && (
              <Link href="/audit/adjudication" className="rounded border border-border px-2 py-1 text-[12px]">
                Adjudication ({tally.pending} waiting)
              </Link>
            )}
            {adjudicate && (
              <Link href="/audit/defects" className="rounded border border-border px-2 py-1 text-[12px]">
                Defects
              </Link>
            )}
            {manage && (
              <Link href="/audit/new" className="rounded bg-accent px-2 py-1 text-[12px] font-medium text-accent-fg">
                New batch
              </Link>
            )}
          </>
        }
      />
      {typeof sp.created === "string" && (
        <p role="status" className="mb-3 rounded border border-good/40 bg-good-bg px-3 py-2 text-good">
          Batch {sp.created} created: its items are in the annotators&apos; queue.
        </p>
      )}
      {batches.length === 0 ? (
        <EmptyState title="No audit batches yet">
          A lead creates a batch by sampling 1% of a run&apos;s tickets over a step window.
        </EmptyState>
      ) : (
        <div className="space-y-4">
          <Card title="Batches">
            <BatchTable batches={batches} />
          </Card>
          <Card title="Progress per annotator">
            {progress.length ? (
              <AnnotatorTable rows={progress} batchNames={new Map(batches.map((b) => [b.id, b.name]))} />
            ) : (
              <p className="px-3 py-2 text-fg-muted">No reviews yet.</p>
            )}
          </Card>
        </div>
      )}
    </>
  );
}
