import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { AnnotationForm } from "@/components/review/annotation-form.tsx";
import { ComparisonTable, LedgerReasons, Verdict } from "@/components/review/comparison.tsx";
import { RevealKeys } from "@/components/review/reveal-keys.tsx";
import { RolloutContext } from "@/components/review/rollout-context.tsx";
import { itemParam, QueueNotice } from "@/components/review/queue-notice.tsx";
import { Card } from "@/components/ui/card.tsx";
import { PageHeader } from "@/components/ui/page-header.tsx";
import { itemRef } from "@/lib/audit/schema.ts";
import { requirePageUser } from "@/lib/auth/guards.ts";
import { loadReveal } from "@/lib/review/data.ts";
import { loadAnnotation } from "@/lib/review/loaders.ts";

export const metadata: Metadata = { title: "Review" };

// One queue item: the blind annotation form until the user has submitted a review of it, the reveal afterwards.
// Ledger values are read only on the reveal branch (loadReveal returns null unless this user reviewed the item).
export default async function ReviewPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const me = await requirePageUser("audit.review");
  const sp = await searchParams;
  const parsed = itemRef.safeParse({ itemId: itemParam(sp) });
  if (!parsed.success) {
    return (
      <QueueNotice title="Review" notice="No item chosen">
        Start from your queue: it leases the next item to you.
      </QueueNotice>
    );
  }
  const itemId = parsed.data.itemId;

  const reveal = await loadReveal(itemId, me.id);
  if (reveal) {
    return (
      <>
        <PageHeader
          title={`Item #${itemId} — your review against the ledger`}
          description={<span className="font-mono">{reveal.item.trajectoryId}</span>}
          actions={<RevealKeys batchId={reveal.item.batchId} />}
        />
        <div className="space-y-3" data-testid="reveal">
          <Verdict comparison={reveal.comparison} tolerance={reveal.item.tolerance} />
          {reveal.mine.excludedReason && (
            <p className="rounded border border-border bg-bg-subtle px-3 py-2" data-testid="excluded-note">
              Recorded, but not counted toward agreement: {reveal.mine.excludedReason} (only blind reviews count).
            </p>
          )}
          <div className="grid gap-3 xl:grid-cols-[3fr_2fr]">
            <Card title="Side by side">
              <ComparisonTable
                ledger={reveal.ledger}
                humans={[{ label: "You", side: reveal.mine, comparison: reveal.comparison }]}
                tolerance={reveal.item.tolerance}
              />
            </Card>
            <div className="space-y-3">
              <Card title="Why the ledger scored it so">
                <LedgerReasons ledger={reveal.ledger} />
              </Card>
              <Card title="Final reply and sandbox writes">
                <p className="whitespace-pre-wrap px-3 py-2">{reveal.finalReply}</p>
                <p className="px-3 pb-2 text-[12px] text-fg-muted">
                  sandbox: {reveal.writes.length ? reveal.writes.join(", ") : "no write"}
                </p>
              </Card>
              {reveal.mine.note && (
                <Card title="Your note">
                  <p className="whitespace-pre-wrap px-3 py-2">{reveal.mine.note}</p>
                </Card>
              )}
            </div>
          </div>
        </div>
      </>
    );
  }

  const page = await loadAnnotation(itemId, me.id);
  if (page.state === "pairwise") redirect(`/pairwise?item=${itemId}`);
  if (page.state !== "annotate") {
    const text = {
      reviewed: "You have reviewed this item.",
      not_leased: "This item is not leased to you: it was given back, or its lease expired and someone else took it.",
      done: "This item already has all its reviews.",
      not_found: "There is no such item.",
    }[page.state];
    return <QueueNotice title={`Item #${itemId}`} notice={text} />;
  }
  const v = page.view;
  // On wide screens the page fills the window (main's padding is 2.5rem): the rollout pane and the form's rows
  // scroll on their own, so the form's reward, buttons and key legend stay in view.
  return (
    <div className="flex flex-col xl:h-[calc(100vh-2.5rem)]">
      <PageHeader
        title={`Item #${v.itemId} · ticket ${v.ticketId}`}
        description={
          <>
            {v.batchName} · <span className="font-mono">{v.trajectoryId}</span> · scored blind: the ledger&apos;s
            numbers appear after you submit
          </>
        }
      />
      <div className="grid gap-4 xl:min-h-0 xl:flex-1 xl:grid-cols-[minmax(0,1fr)_460px] xl:grid-rows-[minmax(0,1fr)]">
        <RolloutContext view={v} className="xl:h-full xl:overflow-y-auto xl:pr-1" />
        <div className="xl:h-full xl:min-h-0">
          <AnnotationForm
            itemId={v.itemId}
            batchId={v.batchId}
            config={v.config}
            writeTools={v.writeTools}
            mentions={v.mentions}
            forbidden={v.forbidden}
            draft={v.draft}
            secondsSpent={v.secondsSpent}
            leaseExpiresAt={v.leaseExpiresAt}
          />
        </div>
      </div>
    </div>
  );
}
