import type { Metadata } from "next";
import Link from "next/link";
import { ItemsListForm } from "@/components/agreement/items-list-form.tsx";
import { ItemsPager, ItemsTable, itemsTitle } from "@/components/agreement/items-list.tsx";
import { Card } from "@/components/ui/card.tsx";
import { EmptyState } from "@/components/ui/empty-state.tsx";
import { PageHeader } from "@/components/ui/page-header.tsx";
import { agreementFacets } from "@/lib/agreement/facets.ts";
import { parseAgreementItemsQuery } from "@/lib/agreement/items-schema.ts";
import { loadAgreementItemsPage } from "@/lib/agreement/loaders.ts";
import { filterQuery } from "@/lib/agreement/schema.ts";
import { requirePageUser } from "@/lib/auth/guards.ts";
import { can } from "@/lib/auth/policy.ts";

export const metadata: Metadata = { title: "Agreement items" };

/** The items behind one figure of the agreement page, sorted, filtered and paged through the URL. */
export default async function AgreementItemsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | undefined>>;
}) {
  const me = await requirePageUser("ledger.read");
  const parsed = parseAgreementItemsQuery(await searchParams);
  if (!parsed.ok) {
    const facets = await agreementFacets();
    return (
      <>
        <PageHeader title="Agreement items" />
        <ItemsListForm q={null} batches={facets.batches} annotators={facets.annotators} />
        <EmptyState title="This link has a bad value">
          <ul role="alert">
            {parsed.errors.map((e) => (
              <li key={e}>{e}</li>
            ))}
          </ul>
          <Link className="text-accent" href="/agreement/items">
            Start again from all items
          </Link>
        </EmptyState>
      </>
    );
  }
  const q = parsed.query;
  const page = await loadAgreementItemsPage(q);
  return (
    <>
      <PageHeader
        title={itemsTitle(q.cell, q.filter.guardrail)}
        description={`${page.total} item${page.total === 1 ? "" : "s"}`}
        actions={
          <Link
            className="rounded border border-border px-2 py-1 text-[12px]"
            href={`/agreement?${filterQuery(q.filter)}`}
          >
            Back to agreement
          </Link>
        }
      />
      <ItemsListForm q={q} batches={page.facets.batches} annotators={page.facets.annotators} />
      {page.total === 0 ? (
        <EmptyState title="No items behind this figure" />
      ) : (
        <Card>
          <ItemsTable
            rows={page.rows}
            dimension={q.cell.dimension}
            batches={page.facets.batches}
            canAdjudicate={can(me.role, "adjudicate")}
          />
          <ItemsPager q={q} page={page} />
        </Card>
      )}
    </>
  );
}
