import type { Metadata } from "next";
import Link from "next/link";
import { AdjudicationForm } from "@/components/audit/adjudication-form.tsx";
import { AdjudicationKeys } from "@/components/audit/adjudication-keys.tsx";
import { DisputeTable } from "@/components/audit/dispute-table.tsx";
import { Tally } from "@/components/audit/tally.tsx";
import { ComparisonTable, LedgerReasons } from "@/components/review/comparison.tsx";
import { RolloutContext } from "@/components/review/rollout-context.tsx";
import { Card } from "@/components/ui/card.tsx";
import { DateTime } from "@/components/ui/datetime.tsx";
import { PageHeader } from "@/components/ui/page-header.tsx";
import { CAUSE_LABELS } from "@/lib/agreement/causes.ts";
import { loadAdjudicationPage, type DisputeView } from "@/lib/audit/loaders.ts";
import { requirePageUser } from "@/lib/auth/guards.ts";

export const metadata: Metadata = { title: "Adjudication" };

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

// The lead's triage of disagreements between annotators and the ledger: the chosen item's rollout beside both
// sides' scores with the verdict form, then the tally by cause and by guardrail, the waiting queue and the settled
// items.
export default async function AdjudicationPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  await requirePageUser("adjudicate");
  const sp = await searchParams;
  const { tally, pending, settled, nextAfter, dispute } = await loadAdjudicationPage({
    item: first(sp.item),
    after: first(sp.after),
  });
  const recorded = first(sp.recorded);
  return (
    <>
      <PageHeader
        title="Adjudication"
        description="Items where an annotator and the ledger disagree: record why — spec, extraction, verifier rule, annotator, or an ambiguous case."
        actions={
          <Link href="/audit" className="rounded border border-border px-2 py-1 text-[12px]">
            Back to the audit
          </Link>
        }
      />
      {recorded && (
        <p role="status" className="mb-3 rounded border border-good/40 bg-good-bg px-3 py-2 text-good">
          Verdict recorded for item{" "}
          <Link className="underline" href={`/audit/adjudication?item=${encodeURIComponent(recorded)}`}>
            #{recorded}
          </Link>{" "}
          — open it to fix its spec or rule.
        </p>
      )}
      {dispute && <Dispute dispute={dispute} />}
      <Card title="Tally of verdicts">
        <Tally tally={tally} />
      </Card>
      <Card title={`Waiting for a verdict (${tally.pending})`} className="mt-4">
        {pending.length ? (
          <DisputeTable rows={pending} selected={dispute?.item.itemId} />
        ) : (
          <p className="px-3 py-2 text-fg-muted">Nothing waiting.</p>
        )}
        {nextAfter && (
          <p className="px-3 py-2">
            <Link className="text-accent" href={`/audit/adjudication?after=${nextAfter}`}>
              Next page →
            </Link>
          </p>
        )}
      </Card>
      {settled.length > 0 && (
        <Card title="Settled" className="mt-4">
          <DisputeTable rows={settled} selected={dispute?.item.itemId} />
        </Card>
      )}
    </>
  );
}

/** The chosen item: its rollout beside both sides' scores, the verdict form, the links to fix it, the ledger's reasons. */
function Dispute({ dispute }: { dispute: DisputeView }) {
  return (
    // On wide screens the rollout and the scores scroll side by side within the window.
    <div
      className="mb-4 grid gap-3 xl:h-[calc(100vh-7rem)] xl:grid-cols-[minmax(0,1fr)_minmax(0,1fr)] xl:grid-rows-[minmax(0,1fr)]"
      data-testid="dispute"
    >
      {dispute.rollout ? (
        <RolloutContext view={dispute.rollout} className="xl:h-full xl:overflow-y-auto xl:pr-1" />
      ) : (
        <p className="text-fg-muted">The rollout of this item is not stored.</p>
      )}
      <div className="space-y-3 xl:h-full xl:overflow-y-auto">
        <Card
          title={
            <>
              Item #{dispute.item.itemId.toString()} · {dispute.batchName} ·{" "}
              <Link
                className="font-mono font-normal text-accent hover:underline"
                href={`/trajectories/${encodeURIComponent(dispute.item.trajectoryId)}`}
              >
                {dispute.item.trajectoryId}
              </Link>
            </>
          }
        >
          <ComparisonTable
            ledger={dispute.ledger}
            humans={dispute.reviews.map((r, i) => ({
              label: r.reviewerEmail,
              side: r,
              comparison: dispute.comparisons[i],
            }))}
            tolerance={dispute.item.tolerance}
          />
          {dispute.reviews.some((r) => r.note) && (
            <ul className="border-t border-border px-3 py-2 text-[12px]">
              {dispute.reviews
                .filter((r) => r.note)
                .map((r) => (
                  <li key={r.reviewId.toString()}>
                    <span className="font-medium">{r.reviewerEmail}:</span> {r.note}
                  </li>
                ))}
            </ul>
          )}
        </Card>
        <VerdictCard dispute={dispute} />
        <FixLinks dispute={dispute} />
        <Card title="Why the ledger scored it so">
          <LedgerReasons ledger={dispute.ledger} />
        </Card>
      </div>
    </div>
  );
}

/** The verdict form, and the verdicts given so far (the current one first, the revised ones struck through). */
function VerdictCard({ dispute }: { dispute: DisputeView }) {
  return (
    <Card title={dispute.adjudications.length ? "Revise the verdict" : "Verdict"}>
      <AdjudicationForm
        itemId={dispute.item.itemId.toString()}
        guardrail={dispute.suggested}
        revising={dispute.adjudications.length > 0}
      />
      {dispute.adjudications.length > 0 && (
        <ul className="border-t border-border px-3 py-2 text-[12px]">
          {dispute.adjudications.map((a, i) => (
            <li key={a.id.toString()} className={i > 0 ? "text-fg-muted line-through" : undefined}>
              {CAUSE_LABELS[a.cause]}
              {a.guardrail ? ` · ${a.guardrail}` : ""} — {a.leadEmail}, <DateTime value={a.createdAt} />
              {a.note ? `: ${a.note}` : ""}
            </li>
          ))}
        </ul>
      )}
      <AdjudicationKeys />
    </Card>
  );
}

/** Where to fix what the verdict found: the case's spec workbench, and the defects the item is linked to. */
function FixLinks({ dispute }: { dispute: DisputeView }) {
  return (
    <Card title="Fix it">
      <div className="space-y-1 px-3 py-2 text-[12px]" data-testid="fix-links">
        <p>
          <Link
            className="text-accent hover:underline"
            href={`/cases/${encodeURIComponent(dispute.item.ticketId)}?rollout=${dispute.rolloutId}${dispute.adjudications.length ? `&adjudication=${dispute.adjudications[0].id}` : ""}`}
          >
            Open the spec workbench for {dispute.item.ticketId}
          </Link>{" "}
          <span className="text-fg-muted">with this rollout selected.</span>
        </p>
        {dispute.defects.map((d) => (
          <p key={`${d.runId}/${d.id}`}>
            <Link className="text-accent hover:underline" href={`/audit/defects?run=${encodeURIComponent(d.runId)}`}>
              Defect #{d.id.toString()}
            </Link>{" "}
            ({d.cause === "spec_wrong" ? "spec" : "rule"}
            {d.guardrail ? ` · ${d.guardrail}` : ""}): {d.status}
          </p>
        ))}
      </div>
    </Card>
  );
}
