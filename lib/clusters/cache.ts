// The last few cluster reports (lib/db/fingerprint-cache.ts), per database client, keyed by window and by a fingerprint of the run's rollups.
// Every drill-down click re-renders the page; without this each one recomputed the whole report (~1 CPU-s at 1M
// rollouts). The rollups change in the same transaction as every ledger write (ingest, re-score), so an unchanged
// fingerprint means an unchanged population; entries also expire after a few minutes, whatever happens.
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";
import type { ClusterReport } from "@/lib/clusters/report.ts";
import type { ClusterWindow } from "@/lib/clusters/schema.ts";
import { processCache } from "@/lib/db/fingerprint-cache.ts";

const cache = processCache<ClusterReport>("clusters", { maxEntries: 16, maxAgeMs: 5 * 60_000 });

/** A cheap summary of everything the report is computed from: O(steps) over step_rollups; null without rows. */
export async function rollupFingerprint(client: PrismaClient, runId: string): Promise<string | null> {
  const [r] = await client.$queryRaw<{ f: string | null }[]>`
    select case when count(*) > 0 then concat_ws('/', count(*), sum(rollouts), sum(rewarded), sum(reward_sum), sum(removed_sum),
                                                 sum(guardrail_hits), sum(handoffs), max(step)) end as f
      from step_rollups where run_id = ${runId}`;
  return r?.f ?? null;
}

/** The cached report of the window, or `compute()`'s (shared by concurrent callers while it runs). */
export async function cachedReport(
  client: PrismaClient,
  w: ClusterWindow,
  compute: () => Promise<ClusterReport>,
  now = Date.now(),
): Promise<ClusterReport> {
  // A run without rollup rows (a ledger written around the ingest path) has nothing to notice a change by.
  const fingerprint = await rollupFingerprint(client, w.runId);
  const key = JSON.stringify([w.runId, w.from ?? null, w.to ?? null, w.threshold]);
  return cache.get(client, key, fingerprint, compute, now);
}
