import "server-only";
// Page data of saved searches: each of the user's searches that counts in a run, with its count per step as a chart
// table (or why there is none), for the monitors page's charts, the clusters page's table and the CSV route.
import type { ChartTable } from "@/lib/monitors/series.ts";
import { listSavedSearches, findSavedSearch, stepShares, type SavedSearch } from "@/lib/saved-searches/data.ts";
import { savedSearchRef } from "@/lib/saved-searches/schema.ts";
import { shareTable } from "@/lib/saved-searches/table.ts";
import { parseSearch } from "@/lib/search/parse.ts";

export type SearchCount = { search: SavedSearch; table: ChartTable | null; error: string | null };

type Range = { from?: number; to?: number };

/** One saved search counted per step in the run (in `range`): its table, or why it could not be counted. */
export async function countSavedSearch(search: SavedSearch, runId: string, range: Range = {}): Promise<SearchCount> {
  const parsed = parseSearch(search.query);
  // saved through the same parser, so only a change of the syntax since can refuse it
  if (!parsed.ok) return { search, table: null, error: `This search no longer parses: ${parsed.error}` };
  const r = await stepShares(parsed.query, runId, range);
  return r.ok ? { search, table: shareTable(r.steps), error: null } : { search, table: null, error: r.error };
}

/** Every saved search of the user that counts in the run (global ones and the run's own), each counted per step. */
export async function loadSearchCounts(userId: number, runId: string, range: Range = {}): Promise<SearchCount[]> {
  const searches = await listSavedSearches(userId, { runId });
  const out: SearchCount[] = [];
  // one after the other: each is one bounded statement, and a page of them should not take every pooled connection
  for (const s of searches) out.push(await countSavedSearch(s, runId, range));
  return out;
}

/** One of the user's saved searches counted in the run, or null when it is not theirs or not for this run. */
export async function loadSearchCount(
  userId: number,
  id: number,
  runId: string,
  range: Range = {},
): Promise<SearchCount | null> {
  const search = await findSavedSearch(userId, id);
  if (!search || (search.runId !== null && search.runId !== runId)) return null;
  return countSavedSearch(search, runId, range);
}

/**
 * The clusters page's saved search: the user's searches that count in the run, and the picked one (`saved`, an id
 * from the address; anything else picks none) counted per step over the window.
 */
export async function loadWindowSearch(
  userId: number,
  runId: string,
  range: Range,
  saved: unknown,
): Promise<{ searches: SavedSearch[]; count: SearchCount | null }> {
  const searches = await listSavedSearches(userId, { runId });
  const picked = savedSearchRef.safeParse({ id: Array.isArray(saved) ? saved[0] : saved });
  const search = picked.success ? searches.find((s) => s.id === picked.data.id) : undefined;
  return { searches, count: search ? await countSavedSearch(search, runId, range) : null };
}
