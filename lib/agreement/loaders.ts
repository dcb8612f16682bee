// Page data of /agreement/items: the items behind one figure, under the report's filters, sorted and paged by key.
import { itemsForCell } from "@/lib/agreement/cells.ts";
import { loadAgreementItems } from "@/lib/agreement/data.ts";
import { agreementFacets } from "@/lib/agreement/facets.ts";
import { pageItems, type ItemPage } from "@/lib/agreement/items-listing.ts";
import type { ItemsQuery } from "@/lib/agreement/items-schema.ts";
import type { Db } from "@/lib/db/client.ts";
import { readDb } from "@/lib/db/read-client.ts";

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
