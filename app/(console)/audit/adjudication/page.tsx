import type { Metadata } from "next";
import Link from "next/link";
import { AdjudicationForm } from "@/components/audit/adjudication-form.tsx";
import { Tally } from "@/components/audit/tally.tsx";
import { ComparisonTable, LedgerReasons } from "@/components/review/comparison.tsx";
import { Badge } from "@/components/ui/badge.tsx";
import { Card } from "@/components/ui/card.tsx";
import { DateTime } from "@/components/ui/datetime.tsx";
import { fmtScore } from "@/components/ui/format.ts";
import { PageHeader } from "@/components/ui/page-header.tsx";
import { Table, Td, Th } from "@/components/ui/table.tsx";
import { listDisputes, loadDispute, tallyAdjudications, type DisputeRow } from "@/lib/audit/adjudication-data.ts";
import { CAUSE_LABELS } from "@/lib/audit/causes.ts";
import { itemRef } from "@/lib/audit/schema.ts";
import { requirePageUser } from "@/lib/auth/guards.ts";
import { compare } from "@/lib/review/data.ts";

export const metadata: Metadata = { title: "Adjudication" };

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/** "2026-01-02T03:04:05.678Z_123": the key of the last row of a page. */
function parseAfter(v: string | undefined): { disputedAt: Date; itemId: bigint } | undefined {
  const m = v?.match(/^(.+)_(\d{1,19})$/);
  const at = m ? new Date(m[1]) : null;
  return m && at && !Number.isNaN(at.getTime()) ? { disputedAt: at, itemId: BigInt(m[2]) } : undefined;
}

function DisputeTable({ rows, selected }: { rows: DisputeRow[]; selected?: bigint }) {
  return (
    <Table>
      <thead>
        <tr>
          <Th>Item</Th>
          <Th>Batch</Th>
          <Th>Ticket</Th>
          <Th numeric>Ledger</Th>
          <Th numeric>Human</Th>
          <Th>Deciding guardrail</Th>
          <Th>Disputed</Th>
          <Th>Verdict</Th>
        </tr>
      </thead>
      <tbody>
        {rows.map((d) => (
          <tr key={d.itemId.toString()} className={d.itemId === selected ? "bg-accent/10" : undefined}>
            <Td>
              <Link className="text-accent" href={`/audit/adjudication?item=${d.itemId}`}>
                #{d.itemId.toString()}
              </Link>
            </Td>
            <Td>{d.batchName}</Td>
            <Td className="font-mono text-[12px]">{d.ticketId}</Td>
            <Td numeric>{fmtScore(d.ledgerReward)}</Td>
            <Td numeric>{d.humanRewards.map(fmtScore).join(" · ")}</Td>
            <Td className="font-mono text-[12px]">{d.decidingGuardrail ?? "none"}</Td>
            <Td>
              <DateTime value={d.disputedAt} />
            </Td>
            <Td>
              {d.cause ? (
                <Badge tone="accent">
                  {CAUSE_LABELS[d.cause]}
                  {d.guardrail ? ` · ${d.guardrail}` : ""}
                </Badge>
              ) : (
                <Badge tone="warn">waiting</Badge>
              )}
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

// The lead's triage of disagreements between annotators and the ledger: the waiting queue, one item side by side
// with the verdict form, the settled items, and the tally by cause and by guardrail.
export default async function AdjudicationPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  await requirePageUser("adjudicate");
  const sp = await searchParams;
  const item = itemRef.safeParse({ itemId: first(sp.item) ?? "" });
  const after = parseAfter(first(sp.after));
  const [tally, pending, settled, dispute] = await Promise.all([
    tallyAdjudications(),
    listDisputes({ pending: true, after, limit: 50 }),
    listDisputes({ pending: false, limit: 50 }),
    item.success ? loadDispute(item.data.itemId) : Promise.resolve(null),
  ]);
  const last = pending.at(-1);
  const recorded = first(sp.recorded);
  const suggested = dispute
    ? (dispute.reviews
        .map((r) => compare(r, dispute.ledger, dispute.item.tolerance))
        .flatMap((c) => [...c.guardrails.onlyLedger, ...c.guardrails.onlyHuman])[0] ?? dispute.ledger.decidingGuardrail)
    : null;
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
          Verdict recorded for item #{recorded}.
        </p>
      )}
      <Card title="Tally of verdicts">
        <Tally tally={tally} />
      </Card>
      {dispute && (
        <div className="mt-4 grid gap-3 xl:grid-cols-[3fr_2fr]" data-testid="dispute">
          <Card title={`Item #${dispute.item.itemId} · ${dispute.batchName} · ${dispute.item.trajectoryId}`}>
            <ComparisonTable
              ledger={dispute.ledger}
              humans={dispute.reviews.map((r) => ({
                label: r.reviewerEmail,
                side: r,
                comparison: compare(r, dispute.ledger, dispute.item.tolerance),
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
          <div className="space-y-3">
            <Card title={dispute.adjudications.length ? "Revise the verdict" : "Verdict"}>
              <AdjudicationForm
                itemId={dispute.item.itemId.toString()}
                guardrail={suggested}
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
            </Card>
            <Card title="Why the ledger scored it so">
              <LedgerReasons ledger={dispute.ledger} />
            </Card>
          </div>
        </div>
      )}
      <Card title={`Waiting for a verdict (${tally.pending})`} className="mt-4">
        {pending.length ? (
          <DisputeTable rows={pending} selected={dispute?.item.itemId} />
        ) : (
          <p className="px-3 py-2 text-fg-muted">Nothing waiting.</p>
        )}
        {pending.length === 50 && last && (
          <p className="px-3 py-2">
            <Link
              className="text-accent"
              href={`/audit/adjudication?after=${last.disputedAt.toISOString()}_${last.itemId}`}
            >
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
