// The /agreement/items list: the items behind a figure, sorted, optionally with the disagreements first, one page
// at a time by key (the sort value and the item id of a page's edge row), never by offset. Pure: the items come
// from loadAgreementItems and itemsForCell, which already hold the filters (batch, annotator, guardrail …).
import type { AgreementItem } from "@/lib/agreement/data.ts";
import { scoresAgree } from "@/lib/stats/agreement.ts";
import { fitsInt8 } from "@/lib/db/column-ranges.ts";

export const ITEM_SORTS = ["item", "step", "ledger", "human", "delta", "reviewed"] as const;
export type ItemSort = (typeof ITEM_SORTS)[number];
export const SORT_LABELS: Record<ItemSort, string> = {
  item: "Item",
  step: "Step",
  ledger: "Ledger reward",
  human: "Human reward",
  delta: "|human − ledger|",
  reviewed: "Reviewed at",
};

/** A row's place in the order: disagreements rank 0 when they come first, the sort value (null last), the id. */
export type ItemKey = { rank: 0 | 1; value: number | null; id: bigint };

export type ItemListing = {
  sort: ItemSort;
  dir: "asc" | "desc";
  disagreementsFirst: boolean;
  after?: ItemKey;
  before?: ItemKey;
  size: number;
};

export type ListedItem = AgreementItem & {
  /** The review shown and compared: the named reviewer's, else the primary (first) one. */
  shown: AgreementItem["reviews"][number];
  disagrees: boolean;
  key: ItemKey;
};

export type ItemPage = {
  rows: ListedItem[];
  total: number;
  /** 1-based position of the first row in the whole order (0 when the page is empty). */
  from: number;
  next: ItemKey | null;
  prev: ItemKey | null;
};

function valueOf(sort: ItemSort, i: AgreementItem, shown: ListedItem["shown"]): number | null {
  const ledger = i.ledger.reward;
  switch (sort) {
    case "item":
      return null;
    case "step":
      return i.item.step;
    case "ledger":
      return ledger;
    case "human":
      return shown.reward;
    case "delta":
      return ledger === null ? null : Math.abs(shown.reward - ledger);
    case "reviewed":
      return shown.createdAt.getTime();
  }
}

/** Total order of keys under a listing: rank, then the value (nulls last either way), then the id, both in `dir`. */
export function compareKeys(a: ItemKey, b: ItemKey, dir: "asc" | "desc"): number {
  if (a.rank !== b.rank) return a.rank - b.rank;
  const s = dir === "asc" ? 1 : -1;
  if (a.value !== b.value) {
    if (a.value === null) return 1;
    if (b.value === null) return -1;
    return s * (a.value - b.value);
  }
  return a.id === b.id ? 0 : s * (a.id < b.id ? -1 : 1);
}

/** The item's shown review, whether it disagrees with the ledger beyond the tolerance, and its key. */
export function listedItem(
  i: AgreementItem,
  l: Pick<ItemListing, "sort" | "disagreementsFirst">,
  tolerance: number,
  reviewer?: string,
): ListedItem {
  const shown = i.reviews.find((r) => r.reviewerEmail === reviewer) ?? i.reviews[0];
  const disagrees = i.ledger.reward !== null && !scoresAgree(shown.reward, i.ledger.reward, tolerance);
  const rank = l.disagreementsFirst && disagrees ? 0 : 1;
  return { ...i, shown, disagrees, key: { rank, value: valueOf(l.sort, i, shown), id: i.item.itemId } };
}

/**
 * One page of the items under the listing. `after` continues past a key (the previous page's last row), `before`
 * returns the page that ends just before a key (the next page's first row); a key need not be a listed row, so a
 * link keeps working after items come or go.
 */
export function pageItems(items: AgreementItem[], l: ItemListing, tolerance: number, reviewer?: string): ItemPage {
  const all = items
    .filter((i) => i.reviews.length > 0)
    .map((i) => listedItem(i, l, tolerance, reviewer))
    .sort((a, b) => compareKeys(a.key, b.key, l.dir));
  let start = 0;
  if (l.after) {
    const after = l.after;
    start = firstIndex(all, (x) => compareKeys(x.key, after, l.dir) > 0);
  } else if (l.before) {
    const before = l.before;
    start = Math.max(0, firstIndex(all, (x) => compareKeys(x.key, before, l.dir) >= 0) - l.size);
  }
  const rows = all.slice(start, start + l.size);
  const end = start + rows.length;
  return {
    rows,
    total: all.length,
    from: rows.length ? start + 1 : 0,
    next: end < all.length && rows.length ? rows[rows.length - 1].key : null,
    prev: start > 0 ? (rows[0]?.key ?? all[start - 1].key) : null,
  };
}

/** The first index whose row satisfies a predicate that is false, then true along the list (binary search). */
function firstIndex<T>(list: T[], from: (x: T) => boolean): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (from(list[mid])) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** A key as it travels in the URL: `rank_value_id`, the value `n` when null ("0_0.35_123"). */
export function encodeKey(k: ItemKey): string {
  return `${k.rank}_${k.value === null ? "n" : String(k.value)}_${k.id}`;
}

const KEY = /^([01])_(n|-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)_(\d{1,19})$/;

export function decodeKey(s: string): ItemKey | null {
  const m = KEY.exec(s);
  if (!m || !fitsInt8(m[3])) return null;
  return { rank: m[1] === "0" ? 0 : 1, value: m[2] === "n" ? null : Number(m[2]), id: BigInt(m[3]) };
}
