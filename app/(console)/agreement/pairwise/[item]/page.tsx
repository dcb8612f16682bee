import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { AdjudicationForm } from "@/components/audit/adjudication-form.tsx";
import { AdjudicationKeys } from "@/components/audit/adjudication-keys.tsx";
import { PairJudgements, PairLedgerTable, PairRollouts } from "@/components/pairwise/pair-side-by-side.tsx";
import { CasePanel } from "@/components/trajectory/case-panel.tsx";
import { Card } from "@/components/ui/card.tsx";
import { DateTime } from "@/components/ui/datetime.tsx";
import { BatchLink, TicketLink } from "@/components/ui/id-links.tsx";
import { PageHeader } from "@/components/ui/page-header.tsx";
import { CAUSE_LABELS } from "@/lib/agreement/causes.ts";
import { itemRef } from "@/lib/audit/schema.ts";
import { requirePageUser } from "@/lib/auth/guards.ts";
import { can } from "@/lib/auth/policy.ts";
import { loadPairCase } from "@/lib/pairwise/report-loaders.ts";

export const metadata: Metadata = { title: "Pair" };

// One judged pair, read-only: both rollouts side by side with both ledger entries (rewards, sub-scores, guardrails)
// and every human judgement; leads and admins record the verdict on an inversion here, with the causes of ticket
// disputes. Readers of the ledger only.
export default async function PairCasePage({
  params,
  searchParams,
}: {
  params: Promise<{ item: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const me = await requirePageUser("ledger.read");
  const ref = itemRef.safeParse({ itemId: (await params).item });
  if (!ref.success) notFound();
  const c = await loadPairCase(ref.data.itemId);
  if (!c) notFound();
  const recorded = (await searchParams).recorded === "1";
  const inverted = c.judgements.some((j) => j.order.verdict === "inversion" && !j.excludedReason);
  const current = c.adjudications.find((a) => a.current);
  return (
    <>
      <PageHeader
        title={
          <>
            Pair #{c.itemId} · ticket{" "}
            <TicketLink id={c.ticketId} canOpen={can(me.role, "cases.revise")} className="text-lg" />
          </>
        }
        description={
          <>
            <BatchLink id={c.batchId} name={c.batchName} kind="pairwise" /> · stratum{" "}
            <span className="font-mono">{c.stratum ?? "none"}</span>
            {inverted ? " · a human preferred the rollout the ledger rewards lower" : ""}
          </>
        }
        actions={
          <Link
            href={`/agreement/pairwise?batch=${c.batchId}`}
            className="rounded border border-border px-2 py-1 text-[12px]"
          >
            Back to the report
          </Link>
        }
      />
      {recorded && (
        <p role="status" className="mb-3 rounded border border-good/40 bg-good-bg px-3 py-2 text-good">
          Verdict recorded for pair #{c.itemId}.
        </p>
      )}
      <div className="space-y-3">
        <Card title="The ledger's two entries">
          <PairLedgerTable c={c} />
        </Card>
        <Card title={`Human judgements (${c.judgements.length})`}>
          <PairJudgements c={c} />
        </Card>
        <Card
          title="Verdict"
          actions={current ? <span data-testid="pair-current-cause">{CAUSE_LABELS[current.cause]}</span> : null}
        >
          {can(me.role, "adjudicate") ? (
            <>
              <AdjudicationForm
                kind="pair"
                itemId={c.itemId}
                guardrail={c.a.reviewed.decidingGuardrail ?? c.b.reviewed.decidingGuardrail}
                revising={c.adjudications.length > 0}
              />
              <AdjudicationKeys />
            </>
          ) : (
            <p className="px-3 py-2 text-fg-muted">Leads and admins record verdicts.</p>
          )}
          {c.adjudications.length > 0 && (
            <ul className="border-t border-border px-3 py-2 text-[12px]" data-testid="pair-verdicts">
              {c.adjudications.map((a) => (
                <li key={a.id} className={a.current ? undefined : "text-fg-muted line-through"}>
                  {CAUSE_LABELS[a.cause]}
                  {a.guardrail ? ` · ${a.guardrail}` : ""} — {a.leadEmail}, <DateTime value={a.createdAt} />
                  {a.note ? `: ${a.note}` : ""}
                </li>
              ))}
            </ul>
          )}
          {c.defects.length > 0 && (
            <p className="border-t border-border px-3 py-2 text-[12px]" data-testid="pair-defects">
              {c.defects.map((d) => (
                <Link
                  key={`${d.runId}/${d.id}`}
                  className="mr-2 text-accent hover:underline"
                  href={`/audit/defects?run=${encodeURIComponent(d.runId)}`}
                >
                  Defect #{d.id.toString()} ({d.cause === "spec_wrong" ? "spec" : "rule"}): {d.status}
                </Link>
              ))}
            </p>
          )}
        </Card>
        <Card title="Case (both rollouts answer it)">
          <CasePanel
            ticket={c.a.rollout.ticket}
            snapshot={c.a.rollout.snapshot}
            spec={c.a.rollout.spec}
            pointers={c.a.rollout.pointers}
          />
        </Card>
        <PairRollouts c={c} />
      </div>
    </>
  );
}
