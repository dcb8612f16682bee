// The shadow audit over training steps, memoised per run. Reviews are append-only (a correction is a new row), the
// ledger entry an item compares with is fixed when it is sampled, and cases and registries never change, so a run's
// audit points are a function of its reviews' count and newest id: a cheap query decides whether the O(reviews)
// read and the per-pair extraction scoring have to run again.
import type { Db } from "@/lib/auth/activity-log.ts";
import { db } from "@/lib/db/client.ts";
import type { AuditPoint } from "@/lib/monitors/audit.ts";
import { readAuditPoints, reviewFingerprint } from "@/lib/monitors/data.ts";

const MAX_RUNS = 200;
const cache = new Map<string, { key: string; points: AuditPoint[] }>();

/** A run's audit points for windows of `window` steps, whole run (filter by range with pointsInRange). */
export async function listAuditPoints(runId: string, window: number, client: Db = db()): Promise<AuditPoint[]> {
  const key = `${await reviewFingerprint(runId, client)}|${window}`;
  const hit = cache.get(runId);
  if (hit && hit.key === key) return hit.points;
  const points = key.startsWith("0:") ? [] : await readAuditPoints(runId, window, {}, client);
  // Oldest entry out first (Map keeps insertion order; a refreshed run moves to the end).
  cache.delete(runId);
  cache.set(runId, { key, points });
  if (cache.size > MAX_RUNS) cache.delete(cache.keys().next().value!);
  return points;
}

/** The windows that overlap [from, to]. */
export function pointsInRange(points: readonly AuditPoint[], range: { from: number; to: number }): AuditPoint[] {
  return points.filter((p) => p.stepTo >= range.from && p.step <= range.to);
}
