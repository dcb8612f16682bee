// Page data of /agreement (the report, its filters' options, the pairwise reports to link, the fixes behind a change
// of basis) and of /agreement/items (the items behind one figure, under the report's filters, sorted and paged by key).
import { loadAgreementReportLatest } from "@/lib/agreement/cached.ts";
import { itemsForCell } from "@/lib/agreement/cells.ts";
import { loadAgreementItems } from "@/lib/agreement/data.ts";
import { agreementFacets, listPairwiseBatches } from "@/lib/agreement/facets.ts";
import { pageItems, type ItemPage } from "@/lib/agreement/items-listing.ts";
import type { ItemsQuery } from "@/lib/agreement/items-schema.ts";
import type { AgreementFilter } from "@/lib/agreement/schema.ts";
import type { Db } from "@/lib/db/client.ts";
import { readDb } from "@/lib/db/read-client.ts";
import { countFixes } from "@/lib/agreement/fixes-data.ts";

/**
 * The agreement page: the report (while a slow one is rebuilt after a change, the one before it, with `asOf`), the
 * filters' options, the pairwise batches whose reports it links, and the spec and rule fixes among the items
 * re-scored between the bases (when the bases differ).
 */
export async function loadAgreementPage(f: AgreementFilter) {
  const [{ value: report, asOf }, facets, pairBatches] = await Promise.all([
    loadAgreementReportLatest(f),
    agreementFacets(),
    listPairwiseBatches(f.run),
  ]);
  const fixes = report.bases.differ ? await countFixes(report.bases.rescored.map((id) => BigInt(id))) : null;
  return { report, asOf, facets, pairBatches, fixes };
}

export type AgreementItemsPage = ItemPage & { facets: Awaited<ReturnType<typeof agreementFacets>> };

/**
 * One page of the items behind the figure `q.cell`. The cell is selected from the same populations the report
 * computes on (lib/agreement/cells.ts), so `total` is the figure's n; the sort, disagreements-first and the page
 * key only order and cut that list.
 */
export async function loadAgreementItemsPage(q: ItemsQuery, client: Db = readDb()): Promise<AgreementItemsPage> {
  const [items, facets] = await Promise.all([loadAgreementItems(q.filter, client), agreementFacets()]);
  const page = pageItems(itemsForCell(items, q.filter, q.cell), q.listing, q.filter.tolerance, q.cell.reviewer);
  return { ...page, facets };
}
