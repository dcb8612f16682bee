import type { Metadata } from "next";
import Link from "next/link";
import { QueueList } from "@/components/review/queue-list.tsx";
import { Card } from "@/components/ui/card.tsx";
import { DateTime } from "@/components/ui/datetime.tsx";
import { EmptyState } from "@/components/ui/empty-state.tsx";
import { PageHeader } from "@/components/ui/page-header.tsx";
import { listQueueBatches } from "@/lib/review/leases.ts";
import { requirePageUser } from "@/lib/auth/guards.ts";
import { listMyRecentReviews } from "@/lib/review/data.ts";

export const metadata: Metadata = { title: "Queue" };

// The annotator's queue: batches with work, the item they hold, and their recent submissions (links to the
// reveal). Counts and names only: nothing here carries a ledger number.
export default async function QueuePage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const me = await requirePageUser("audit.review");
  const [batches, recent, sp] = await Promise.all([listQueueBatches(me.id), listMyRecentReviews(me.id), searchParams]);
  return (
    <>
      <PageHeader
        title="My queue"
        description="Sampled rollouts to re-score blind. The ledger's scores stay hidden until you submit."
      />
      {sp.empty && (
        <p role="status" className="mb-3 rounded border border-border bg-bg-subtle px-3 py-2">
          Nothing left to review in that batch right now.
        </p>
      )}
      {batches.length === 0 ? (
        <EmptyState title="Nothing to review right now">
          When a lead samples a new batch, its items appear here.
        </EmptyState>
      ) : (
        <Card
          title="Batches with work for you"
          actions={
            <span className="text-[11px] text-fg-muted">n or enter starts the first · 1–9 start that batch</span>
          }
        >
          <QueueList
            rows={batches.map((b) => ({
              batchId: b.batchId,
              name: b.name,
              available: b.available,
              mine: b.mine?.toString() ?? null,
              pairwise: b.pairwise,
            }))}
          />
        </Card>
      )}
      {recent.length > 0 && (
        <Card title="Your latest reviews" className="mt-4">
          <ul className="divide-y divide-border">
            {recent.map((r) => (
              <li key={r.itemId.toString()} className="flex items-center gap-3 px-3 py-1.5">
                <Link className="text-accent" href={`/review?item=${r.itemId}`}>
                  Item #{r.itemId.toString()}
                </Link>
                <span className="text-fg-muted">{r.batchName}</span>
                <span className="font-mono text-[12px]">{r.ticketId}</span>
                <span className="ml-auto text-[12px] text-fg-muted">
                  <DateTime value={r.createdAt} />
                </span>
              </li>
            ))}
          </ul>
        </Card>
      )}
    </>
  );
}
