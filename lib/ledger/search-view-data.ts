// A search's view of one run — its count, and the order of its entries when they are read from a match set — kept
// while nothing they are computed from changes.
//
// The count: a browser page counts its view at every load — its next pages too, whose count is the same — and a
// frequent search's count is a block sample of 10,000 of the run's entries, each probed for the search
// (lib/ledger/browse.ts, countLedger): at 3 M rollouts about twice the CPU of the page it is shown with. The order: a
// view read from a search's match set (lib/search/match-set-data.ts) reads every entry of the set's rollouts for each
// page, to filter and sort them — 46,125 entries for each page of `退款 -refund` sorted by reward at 3 M rollouts,
// 157 ms of the server's CPU (docs/benchmarks.md, "Search"). Kept, a page is the next ids past its cursor, each read
// by key, and marked as sampled or reviewed as it is read.
//
// Both are computed from the run's current ledger entries that have a stored rollout (an entry without one never
// matches a search), the fields the filters and the order read, and those rollouts' searchable texts: they are kept
// while the run's highest rollout id and highest ledger entry id are unchanged (lib/db/run-fingerprint.ts, where why
// every write raises one of them is said). A view that filters by the shadow audit (sampled, reviewed) reads what
// neither covers and is never kept.
import { processCache } from "@/lib/db/fingerprint-cache.ts";
import { fingerprintOnce, type RunFingerprint } from "@/lib/db/run-fingerprint.ts";
import { readDb } from "@/lib/db/read-client.ts";
import { sharedRead } from "@/lib/search/data.ts";
import type { BrowseParams } from "@/lib/ledger/browse-schema.ts";

/** A view's count as countLedger gives it. */
export type KeptCount = { count: number; exact: boolean; atLeast?: true };

// a count is a few bytes: enough for every view of a few dozen runs (20 runs × 9 searches × 5 filters in
// bench/search.ts's researchers), where 256 were taken over by other runs' views before a view came back
const counts = processCache<KeptCount>("search-view-counts", { maxEntries: 4096, maxAgeMs: 5 * 60_000 });

/**
 * A view's entries read from a match set, in the view's order: their ids and the values they sort by (the view's
 * sort expression; the id itself in id order).
 */
export type KeptOrder = { ids: BigInt64Array; values: Float64Array };

// by their size (16 bytes an entry: 4 MB for the 244,000 matches of a phrase at 10 M rollouts), not their number: 32,
// the bound by number before, were taken over by the views of other runs and step ranges before a view came back,
// its order then read again (with the sets gathered again, 17 s of 56 s of the server's statement time under 20
// researchers at 10 M rollouts, docs/benchmarks.md)
const orders = processCache<KeptOrder>("search-view-orders", {
  maxEntries: 4096,
  maxAgeMs: 5 * 60_000,
  weigh: (o) => o.ids.byteLength + o.values.byteLength,
  maxWeight: 256 * 2 ** 20,
});

/** Parameters that do not change a view's count: its page's place and order. */
const NOT_COUNTED = new Set(["after", "sort", "dir"]);

/** The view's key: every parameter that changes its count, in one order. */
const keyOf = (p: BrowseParams) =>
  JSON.stringify(
    Object.entries(p)
      .filter(([k, v]) => v !== undefined && !NOT_COUNTED.has(k))
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );

/** Whether a view reads what the fingerprint does not cover (the shadow audit's items and reviews). */
const readsAudit = (p: BrowseParams) => p.sampled !== undefined || p.reviewed !== undefined;

/** The fingerprint a view is kept at: both ids (null: nothing kept, for a run without rollouts). */
const viewFingerprint = async (fingerprint: () => Promise<RunFingerprint | null>) => {
  const fp = await fingerprint();
  return fp && `${fp.rollouts}:${fp.entries}`;
};

/**
 * The count of a search's view of one run (`p.run` set, `q` a search): the one kept while the run's fingerprint is
 * the one it was counted at, or `count()`'s, kept. A view filtered by the shadow audit is counted afresh each time.
 */
export async function keptSearchCount(
  p: BrowseParams & { run: string },
  count: () => Promise<KeptCount>,
  fingerprint = fingerprintOnce(p.run, readDb()),
): Promise<KeptCount> {
  if (readsAudit(p)) return count();
  return counts.get(readDb(), keyOf(p), await viewFingerprint(fingerprint), count);
}

/**
 * The order of a search's view of one run read from its match set (`p.run` set, `q` a search), in the direction
 * `dir`: the one kept while the run's fingerprint is the one it was read at, or `read()`'s, kept. `read` is a shared
 * read (lib/search/data.ts: in a transaction of its own), and a caller, in withSearchTimeout's transaction, is thrown
 * SharedReadPending while it runs. Null for a view filtered by the shadow audit (never kept: its caller reads its
 * page as it is).
 */
export async function keptSetOrder(
  p: BrowseParams & { run: string },
  dir: "asc" | "desc",
  read: () => Promise<KeptOrder>,
  fingerprint: () => Promise<RunFingerprint | null>,
): Promise<KeptOrder | null> {
  if (readsAudit(p)) return null;
  return sharedRead(
    orders.get(readDb(), JSON.stringify([keyOf(p), p.sort, dir]), await viewFingerprint(fingerprint), read),
  );
}
