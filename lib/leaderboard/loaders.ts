// The leaderboard for the page, the API and the CLI: read (lib/leaderboard/data.ts), built, sorted and compared
// (lib/leaderboard/view.ts), uncached — every load reads the latest reviews and results.
import type { Db } from "@/lib/db/client.ts";
import { readDb } from "@/lib/db/read-client.ts";
import { loadLeaderboardInput, runHasRewardRuns } from "@/lib/leaderboard/data.ts";
import type { LeaderboardQuery } from "@/lib/leaderboard/schema.ts";
import { ledgerStanding, type LedgerStanding } from "@/lib/leaderboard/standing.ts";
import { leaderboardView, type LeaderboardView } from "@/lib/leaderboard/view.ts";

export type LoadedView = { ok: true; view: LeaderboardView } | { ok: false; status: 400 | 404; error: string };

export async function loadLeaderboard(q: LeaderboardQuery, client: Db = readDb()): Promise<LoadedView> {
  const src = await loadLeaderboardInput(q, client);
  if (!src.ok) return src;
  const view = leaderboardView(src, q);
  if (!view.ok) return { ok: false, status: 400, error: view.error };
  return { ok: true, view };
}

/**
 * The run page's audit section: the ledger's standing on the leaderboard of the run's audited items, read only when a
 * reward function was run on the run (`ran: false` otherwise: the standing would be the ledger alone).
 */
export async function loadRunStanding(
  runId: string,
  client: Db = readDb(),
): Promise<{ ran: false } | { ran: true; standing: LedgerStanding | null }> {
  if (!(await runHasRewardRuns(runId, client))) return { ran: false };
  return { ran: true, standing: await loadLedgerStanding({ run: runId }, client) };
}

/** The ledger's standing on the leaderboard of a run's (a step window's) audited items; null for an unknown run. */
export async function loadLedgerStanding(
  scope: { run: string; from?: number; to?: number },
  client: Db = readDb(),
): Promise<LedgerStanding | null> {
  const src = await loadLeaderboardInput(scope, client);
  return src.ok ? ledgerStanding(src.input) : null;
}
