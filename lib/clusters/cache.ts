// The last few cluster reports, per database client, keyed by window and by a fingerprint of the run's rollups.
// Every drill-down click re-renders the page; without this each one recomputed the whole report (~1 CPU-s at 1M
// rollouts). The rollups change in the same transaction as every ledger write (ingest, re-score), so an unchanged
// fingerprint means an unchanged population; entries also expire after a few minutes, whatever happens.
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";
import type { ClusterReport } from "@/lib/clusters/report.ts";
import type { ClusterWindow } from "@/lib/clusters/schema.ts";

const MAX_ENTRIES = 16;
const MAX_AGE_MS = 5 * 60_000;

type Entry = { at: number; report: Promise<ClusterReport> };
const globalForCache = globalThis as unknown as { verityClusterCache?: WeakMap<PrismaClient, Map<string, Entry>> };

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
  const caches = (globalForCache.verityClusterCache ??= new WeakMap());
  let cache = caches.get(client);
  if (!cache) caches.set(client, (cache = new Map()));
  const fingerprint = await rollupFingerprint(client, w.runId);
  // A run without rollup rows (a ledger written around the ingest path) has nothing to notice a change by.
  if (fingerprint === null) return compute();
  const key = JSON.stringify([w.runId, w.from ?? null, w.to ?? null, w.threshold, fingerprint]);
  const hit = cache.get(key);
  if (hit && now - hit.at < MAX_AGE_MS) {
    cache.delete(key);
    cache.set(key, hit); // most recently used last
    return hit.report;
  }
  const report = compute();
  cache.set(key, { at: now, report });
  report.catch(() => cache.delete(key));
  while (cache.size > MAX_ENTRIES) cache.delete(cache.keys().next().value!);
  return report;
}
