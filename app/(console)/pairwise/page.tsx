import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { PairForm } from "@/components/pairwise/pair-form.tsx";
import { PairRevealView } from "@/components/pairwise/pair-reveal.tsx";
import { RevealKeys } from "@/components/review/reveal-keys.tsx";
import { RolloutOutcome } from "@/components/review/rollout-context.tsx";
import { CasePanel } from "@/components/trajectory/case-panel.tsx";
import { itemParam, QueueNotice } from "@/components/review/queue-notice.tsx";
import { Card } from "@/components/ui/card.tsx";
import { PageHeader } from "@/components/ui/page-header.tsx";
import { itemRef } from "@/lib/audit/schema.ts";
import { requirePageUser } from "@/lib/auth/guards.ts";
import { loadPairReveal } from "@/lib/pairwise/data.ts";
import { loadPairAnnotation } from "@/lib/pairwise/loaders.ts";

export const metadata: Metadata = { title: "Pairwise review" };

// One pair of a pairwise batch: the blind comparison until the user has judged it, the reveal afterwards. Ledger
// values are read only on the reveal branch (loadPairReveal returns null unless this user judged the pair).
export default async function PairwisePage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const me = await requirePageUser("audit.review");
  const sp = await searchParams;
  const parsed = itemRef.safeParse({ itemId: itemParam(sp) });
  if (!parsed.success) {
    return (
      <QueueNotice title="Pairwise review" notice="No pair chosen">
        Start from your queue: it leases the next pair to you.
      </QueueNotice>
    );
  }
  const itemId = parsed.data.itemId;
  const reveal = await loadPairReveal(itemId, me.id);
  if (reveal) {
    return (
      <>
        <PageHeader
          title={`Pair #${itemId} — your judgement against the ledger`}
          description={<span className="font-mono">ticket {reveal.ticketId}</span>}
          actions={<RevealKeys batchId={reveal.batchId} />}
        />
        <PairRevealView reveal={reveal} />
      </>
    );
  }
  const page = await loadPairAnnotation(itemId, me.id);
  if (page.state === "not_found") redirect(`/review?item=${itemId}`);
  if (page.state !== "annotate") {
    const text = {
      reviewed: "You have judged this pair.",
      not_leased: "This pair is not leased to you: it was given back, or its lease expired and someone else took it.",
      done: "This pair already has all its judgements.",
    }[page.state];
    return <QueueNotice title={`Pair #${itemId}`} notice={text} />;
  }
  const v = page.view;
  return (
    <>
      <PageHeader
        title={`Pair #${v.itemId} · ticket ${v.ticketId}`}
        description={
          <>
            {v.batchName} · two rollouts of one GRPO group, judged blind: the ledger&apos;s numbers appear after you
            submit
          </>
        }
      />
      <div className="space-y-3">
        <PairForm itemId={v.itemId} />
        <Card title="Case (both rollouts answer it)">
          <CasePanel
            ticket={v.context.ticket}
            snapshot={v.context.snapshot}
            spec={v.context.spec}
            pointers={v.context.pointers}
          />
        </Card>
        <div className="grid gap-3 lg:grid-cols-2">
          {(
            [
              ["A (left)", "pair-left", v.left],
              ["B (right)", "pair-right", v.right],
            ] as const
          ).map(([label, testId, side]) => (
            <section key={testId} data-testid={testId} className="min-w-0 space-y-3">
              <h2 className="text-[14px] font-semibold">
                {label} <span className="font-mono text-[11px] font-normal text-fg-muted">{side.trajectoryId}</span>
              </h2>
              <RolloutOutcome view={side} />
            </section>
          ))}
        </div>
      </div>
    </>
  );
}
