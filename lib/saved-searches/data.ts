import "server-only";
// Reads of saved searches: a user's own list, and how many of a run's rollouts match one per step (its chart on the
// monitors page and its table on the clusters page).
import { db, type Db } from "@/lib/db/client.ts";
import { Prisma, type PrismaClient } from "@/lib/generated/prisma/client.ts";
import { readDb } from "@/lib/db/read-client.ts";
import type { Result } from "@/lib/result.ts";
import type { StepShare } from "@/lib/saved-searches/table.ts";
import type { SearchQuery } from "@/lib/search/parse.ts";
import { loadIndexedSearch, SearchTimeoutError, withSearchTimeout } from "@/lib/search/data.ts";
import { searchCondition } from "@/lib/search/sql.ts";

export type SavedSearch = {
  id: number;
  name: string;
  query: string;
  runId: string | null;
  alarmShare: number | null;
  createdAt: Date;
};

const SELECT = { id: true, name: true, query: true, runId: true, alarmShare: true, createdAt: true } as const;

/**
 * The user's own saved searches, by name. With `runId`, those that count in that run: the global ones and the ones
 * scoped to it. Read from the primary: a search just saved is listed at once.
 */
export async function listSavedSearches(
  userId: number,
  opts: { runId?: string } = {},
  client: Db = db(),
): Promise<SavedSearch[]> {
  const scope = opts.runId ? { OR: [{ runId: null }, { runId: opts.runId }] } : {};
  return client.savedSearch.findMany({ where: { userId, ...scope }, select: SELECT, orderBy: [{ name: "asc" }] });
}

/** One of the user's saved searches, or null (another user's is not found). */
export async function findSavedSearch(userId: number, id: number, client: Db = db()): Promise<SavedSearch | null> {
  return client.savedSearch.findFirst({ where: { id, userId }, select: SELECT });
}

/**
 * Per step of the run (in `range` when given): its current ledger entries (step_rollups' counter) and how many of
 * them match the search. The matches are counted in the run's partitions only (searchCondition through `l.run_id`,
 * the run's search index narrowing the candidates), grouped by step, and joined to the step counters; the statement
 * is bounded by the search's statement timeout, and a count it stops is answered as such.
 */
export async function stepShares(
  query: SearchQuery,
  runId: string,
  range: { from?: number; to?: number } = {},
  client: PrismaClient = readDb(),
): Promise<Result<{ steps: StepShare[] }>> {
  const inRange = (col: string) =>
    Prisma.sql`${Prisma.raw(col)} between ${range.from ?? 0} and ${range.to ?? 2147483647}`;
  try {
    const rows = await withSearchTimeout(client, async (tx) => {
      const search = await loadIndexedSearch(tx, query, [runId]);
      return tx.$queryRaw<{ step: number; rollouts: number; matches: bigint }[]>`
        select r.step, r.rollouts, coalesce(m.matches, 0) as matches
          from step_rollups r
          left join (
            select l.step, count(*) as matches from ledger l
             where l.run_id = ${runId} and l.is_current and ${inRange("l.step")} and ${searchCondition(search, "l")}
             group by l.step
          ) m on m.step = r.step
         where r.run_id = ${runId} and ${inRange("r.step")} and r.rollouts > 0
         order by r.step`;
    });
    return { ok: true, steps: rows.map((r) => ({ step: r.step, rollouts: r.rollouts, matches: Number(r.matches) })) };
  } catch (err) {
    if (!(err instanceof SearchTimeoutError)) throw err;
    return { ok: false, error: `Counting ${JSON.stringify(query.text)} per step: ${err.message}.` };
  }
}
