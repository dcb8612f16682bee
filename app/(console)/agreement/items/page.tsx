import type { Metadata } from "next";
import Link from "next/link";
import { rewardTone } from "@/components/ui/format.ts";
import { Badge } from "@/components/ui/badge.tsx";
import { Card } from "@/components/ui/card.tsx";
import { EmptyState } from "@/components/ui/empty-state.tsx";
import { PageHeader } from "@/components/ui/page-header.tsx";
import { Table, Td, Th } from "@/components/ui/table.tsx";
import { loadAgreementItems } from "@/lib/agreement/data.ts";
import { itemsForCell } from "@/lib/agreement/report.ts";
import { agreementCellSchema, filterQuery, parseAgreementFilter } from "@/lib/agreement/schema.ts";
import { requirePageUser } from "@/lib/auth/guards.ts";

export const metadata: Metadata = { title: "Agreement items" };

const CELL_TITLES: Record<string, string> = {
  all: "All reviewed items",
  agree: "Items where human and ledger agree",
  disagree: "Items where human and ledger disagree",
  verdict_ledger_only: "Ledger says success, the human does not",
  verdict_human_only: "The human says success, the ledger does not",
  guardrail_ledger_only: "The ledger fired the guardrail, the human did not",
  guardrail_human_only: "The human flagged the guardrail, the ledger did not",
  guardrail_both: "Both flagged the guardrail",
  adjudicated: "Adjudicated disagreements",
};

/** The items behind one figure of the agreement page. */
export default async function AgreementItemsPage({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  await requirePageUser("ledger.read");
  const { cell: rawCell, ...rest } = await searchParams;
  const cell = agreementCellSchema.safeParse(rawCell ?? "all");
  const parsed = parseAgreementFilter(rest);
  if (!cell.success || !parsed.ok) {
    const errors = [...(cell.success ? [] : ["cell: not a figure of the agreement page"]), ...(parsed.ok ? [] : parsed.errors)];
    return <EmptyState title="This link has a bad filter">{errors.join("; ")}.</EmptyState>;
  }
  const f = parsed.filter;
  const items = itemsForCell(await loadAgreementItems(f), f, cell.data);
  const title = `${CELL_TITLES[cell.data]}${f.guardrail ? ` · ${f.guardrail}` : ""}`;
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
                <Th>Reviewer</Th>
                <Th>Adjudication</Th>
              </tr>
            </thead>
            <tbody data-testid="agreement-items">
              {items.map((i) => (
                <tr key={i.item.itemId.toString()}>
                  <Td>
                    <Link className="font-mono text-[12px] text-accent hover:underline" href={`/trajectories/${encodeURIComponent(i.item.trajectoryId)}`}>
                      {i.item.trajectoryId}
                    </Link>
                  </Td>
                  <Td numeric>{i.item.step}</Td>
                  <Td numeric>
                    <Badge tone={rewardTone(i.ledger.reward)}>{i.ledger.reward?.toFixed(3) ?? "–"}</Badge>
                  </Td>
                  <Td numeric>
                    <Badge tone={rewardTone(i.reviews[0].reward)}>{i.reviews[0].reward.toFixed(3)}</Badge>
                  </Td>
                  <Td>{i.ledger.guardrails.join(", ") || "–"}</Td>
                  <Td>{i.reviews[0].guardrails.join(", ") || "–"}</Td>
                  <Td>{i.reviews.map((r) => r.reviewerEmail).join(", ")}</Td>
                  <Td>{i.adjudication ? `${i.adjudication.cause}${i.adjudication.guardrail ? ` (${i.adjudication.guardrail})` : ""}` : "–"}</Td>
                </tr>
              ))}
            </tbody>
          </Table>
        </Card>
      )}
    </>
  );
}
