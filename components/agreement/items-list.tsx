import Link from "next/link";
import { BatchLink, TrajectoryLink } from "@/components/ui/id-links.tsx";
import { Badge } from "@/components/ui/badge.tsx";
import { rewardTone } from "@/components/ui/format.ts";
import { Table, Td, Th } from "@/components/ui/table.tsx";
import { encodeKey, type ItemPage, type ListedItem } from "@/lib/agreement/items-listing.ts";
import { itemsQuery, type ItemsQuery } from "@/lib/agreement/items-schema.ts";
import type { AgreementCell, AgreementCellSelection } from "@/lib/agreement/schema.ts";
import { CAUSE_LABELS, type DisagreementCause } from "@/lib/agreement/causes.ts";

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

/** "Adjudicated disagreements by cause · Spec wrong · within empty_promise". */
export function itemsTitle(cell: AgreementCellSelection, guardrail?: string): string {
  const param =
    cell.code ?? cell.dimension ?? (cell.cause && CAUSE_LABELS[cell.cause]) ?? cell.slot ?? cell.reviewer ?? cell.day;
  return [CELL_TITLES[cell.cell], param, guardrail && `within ${guardrail}`].filter(Boolean).join(" · ");
}

function Verdict({ i, canAdjudicate }: { i: ListedItem; canAdjudicate: boolean }) {
  const label = i.adjudication
    ? `${CAUSE_LABELS[i.adjudication.cause as DisagreementCause] ?? i.adjudication.cause}${i.adjudication.guardrail ? ` (${i.adjudication.guardrail})` : ""}`
    : i.item.disputedAt
      ? "waiting for a verdict"
      : "–";
  if (!i.item.disputedAt || !canAdjudicate) return <>{label}</>;
  return (
    <Link className="text-accent hover:underline" href={`/audit/adjudication?item=${i.item.itemId}`}>
      {label}
    </Link>
  );
}

/**
 * The rows of one page: each item links to its rollout and, when it was disputed and the reader may adjudicate,
 * to its adjudication. A row's data-disagrees says whether the shown review is beyond the tolerance.
 */
export function ItemsTable({
  rows,
  dimension,
  batches,
  canAdjudicate,
}: {
  rows: ListedItem[];
  dimension?: AgreementCellSelection["dimension"];
  batches: { id: number; name: string }[];
  canAdjudicate: boolean;
}) {
  const dim = dimension;
  const batchName = new Map(batches.map((b) => [b.id, b.name]));
  return (
    <Table>
      <thead>
        <tr>
          <Th>Trajectory</Th>
          <Th>Batch</Th>
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
        {rows.map((i) => (
          <tr
            key={i.item.itemId.toString()}
            data-item={i.item.itemId.toString()}
            data-disagrees={i.disagrees ? "true" : "false"}
            className={i.disagrees ? "bg-bad-bg/40" : undefined}
          >
            <Td>
              <TrajectoryLink id={i.item.trajectoryId} />
            </Td>
            <Td data-testid="row-batch">
              <BatchLink
                id={i.item.batchId}
                name={batchName.get(i.item.batchId) ?? `#${i.item.batchId}`}
                withAgreement={false}
              />
            </Td>
            <Td numeric>{i.item.step}</Td>
            <Td numeric>
              <Badge tone={rewardTone(i.ledger.reward)}>
                <span data-testid="row-ledger">{i.ledger.reward?.toFixed(3) ?? "–"}</span>
              </Badge>
            </Td>
            <Td numeric>
              <Badge tone={rewardTone(i.shown.reward)}>
                <span data-testid="row-human">{i.shown.reward.toFixed(3)}</span>
              </Badge>
            </Td>
            <Td data-testid="row-ledger-guardrails">{i.ledger.guardrails.join(", ") || "–"}</Td>
            <Td>{i.shown.guardrails.join(", ") || "–"}</Td>
            {dim && <Td numeric>{i.ledger.subscores[dim]?.toFixed(3) ?? "–"}</Td>}
            {dim && <Td numeric>{i.shown.subscores[dim]?.toFixed(3) ?? "–"}</Td>}
            <Td data-testid="row-reviewers">{i.reviews.map((r) => r.reviewerEmail).join(", ")}</Td>
            <Td>
              <Verdict i={i} canAdjudicate={canAdjudicate} />
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

/** "rows 11–20 of 84" and the links to the first, previous and next pages (page keys, not offsets). */
export function ItemsPager({ q, page }: { q: ItemsQuery; page: ItemPage }) {
  const base = { filter: q.filter, cell: q.cell, listing: { ...q.listing, after: undefined, before: undefined } };
  const href = (k: { after?: string; before?: string }) =>
    `/agreement/items?${itemsQuery({ ...base, listing: { ...base.listing, ...k } })}`;
  const to = page.from ? page.from + page.rows.length - 1 : 0;
  const link = "rounded border border-border px-2 py-0.5 text-[12px]";
  return (
    <nav aria-label="Pages" className="flex items-center gap-2 px-3 py-2 text-[12px]">
      <span data-testid="items-range" className="text-fg-muted">
        rows {page.from}–{to} of {page.total}
      </span>
      {page.prev && (
        <>
          <Link className={link} href={href({})}>
            First page
          </Link>
          <Link className={link} href={href({ before: encodeKey(page.prev) })}>
            ← Previous page
          </Link>
        </>
      )}
      {page.next && (
        <Link className={link} href={href({ after: encodeKey(page.next) })}>
          Next page →
        </Link>
      )}
    </nav>
  );
}
