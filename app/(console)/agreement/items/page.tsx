import type { Metadata } from "next";
import Link from "next/link";
import { rewardTone } from "@/components/ui/format.ts";
import { Badge } from "@/components/ui/badge.tsx";
import { Card } from "@/components/ui/card.tsx";
import { EmptyState } from "@/components/ui/empty-state.tsx";
import { PageHeader } from "@/components/ui/page-header.tsx";
import { Table, Td, Th } from "@/components/ui/table.tsx";
import { loadAgreementItems } from "@/lib/agreement/data.ts";
import { itemsForCell } from "@/lib/agreement/cells.ts";
import { filterQuery, parseAgreementCellQuery, type AgreementCell } from "@/lib/agreement/schema.ts";
import { CAUSE_LABELS } from "@/lib/audit/causes.ts";
import { requirePageUser } from "@/lib/auth/guards.ts";

export const metadata: Metadata = { title: "Agreement items" };

const CELL_TITLES: Record<AgreementCell, string> = {
  all: "All reviewed items",
  agree: "Items where human and ledger agree",
  disagree: "Items where human and ledger disagree",
  verdict_both: "Both say success",
  verdict_neither: "Neither says success",
  verdict_ledger_only: "Ledger says success, the human does not",
  verdict_human_only: "The human says success, the ledger does not",
  guardrail_ledger_only: "The ledger fired the guardrail, the human did not",
  guardrail_human_only: "The human flagged the guardrail, the ledger did not",
  guardrail_both: "Both flagged the guardrail",
  dimension: "Items where both scored the sub-score",
  adjudicated: "Adjudicated disagreements",
  overlap: "Items reviewed by two or more annotators",
  cause: "Adjudicated disagreements by cause",
  extraction_slot: "Items compared on the claims slot",
  extraction_slot_wrong: "Items where the extractor got the claims slot wrong",
  annotator: "Items reviewed by the annotator",
  annotator_adjudicated: "The annotator's adjudicated disagreements with the ledger",
  day: "Items reviewed on the day",
};

/** The items behind one figure of the agreement page. */
export default async function AgreementItemsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | undefined>>;
}) {
  await requirePageUser("ledger.read");
  const parsed = parseAgreementCellQuery(await searchParams);
  if (!parsed.ok) {
    return <EmptyState title="This link has a bad filter">{parsed.errors.join("; ")}.</EmptyState>;
  }
  const { filter: f, cell } = parsed;
  const items = itemsForCell(await loadAgreementItems(f), f, cell);
  const param =
    cell.code ?? cell.dimension ?? (cell.cause && CAUSE_LABELS[cell.cause]) ?? cell.slot ?? cell.reviewer ?? cell.day;
  const within = [f.guardrail && `within ${f.guardrail}`].filter(Boolean).join(" ");
  const title = [CELL_TITLES[cell.cell], param, within].filter(Boolean).join(" · ");
  const dim = cell.dimension;
  return (
    <>
      <PageHeader
        title={title}
        description={`${items.length} item${items.length === 1 ? "" : "s"}`}
        actions={
          <Link className="rounded border border-border px-2 py-1 text-[12px]" href={`/agreement?${filterQuery(f)}`}>
            Back to agreement
          </Link>
        }
      />
      {items.length === 0 ? (
        <EmptyState title="No items behind this figure" />
      ) : (
        <Card>
          <Table>
            <thead>
              <tr>
                <Th>Trajectory</Th>
                <Th numeric>Step</Th>
                <Th numeric>Ledger</Th>
                <Th numeric>Human</Th>
                <Th>Ledger guardrails</Th>
                <Th>Human guardrails</Th>
                {dim && <Th numeric>Ledger {dim}</Th>}
                {dim && <Th numeric>Human {dim}</Th>}
                <Th>Reviewer</Th>
                <Th>Adjudication</Th>
              </tr>
            </thead>
            <tbody data-testid="agreement-items">
              {items.map((i) => {
                const review = i.reviews.find((r) => r.reviewerEmail === cell.reviewer) ?? i.reviews[0];
                return (
                  <tr key={i.item.itemId.toString()}>
                    <Td>
                      <Link
                        className="font-mono text-[12px] text-accent hover:underline"
                        href={`/trajectories/${encodeURIComponent(i.item.trajectoryId)}`}
                      >
                        {i.item.trajectoryId}
                      </Link>
                    </Td>
                    <Td numeric>{i.item.step}</Td>
                    <Td numeric>
                      <Badge tone={rewardTone(i.ledger.reward)}>{i.ledger.reward?.toFixed(3) ?? "–"}</Badge>
                    </Td>
                    <Td numeric>
                      <Badge tone={rewardTone(review.reward)}>{review.reward.toFixed(3)}</Badge>
                    </Td>
                    <Td>{i.ledger.guardrails.join(", ") || "–"}</Td>
                    <Td>{review.guardrails.join(", ") || "–"}</Td>
                    {dim && <Td numeric>{i.ledger.subscores[dim]?.toFixed(3) ?? "–"}</Td>}
                    {dim && <Td numeric>{review.subscores[dim]?.toFixed(3) ?? "–"}</Td>}
                    <Td>{i.reviews.map((r) => r.reviewerEmail).join(", ")}</Td>
                    <Td>
                      {i.adjudication
                        ? `${i.adjudication.cause}${i.adjudication.guardrail ? ` (${i.adjudication.guardrail})` : ""}`
                        : "–"}
                    </Td>
                  </tr>
                );
              })}
            </tbody>
          </Table>
        </Card>
      )}
    </>
  );
}
