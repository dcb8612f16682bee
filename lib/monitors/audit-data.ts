// The shadow audit over training steps, memoised per run. Reviews are append-only (a correction is a new row) and the
// ledger entry an item compares with is fixed when it is sampled, so a run's audit is a function of its reviews'
// count and newest id (kept on the run's row, 027): a one-row read decides whether the O(reviews) read and the
// per-pair extraction scoring have to run again. What is kept is the run's reviews pooled per step (a few bytes a
// step), from which the monitors' windows of any width and the gate's sums over its window are read.
import { db, type Db } from "@/lib/db/client.ts";
import { auditPointsOf, type AuditPoint, type AuditSteps } from "@/lib/monitors/audit.ts";
import { readAuditSteps, reviewFingerprint } from "@/lib/monitors/data.ts";
import { processCache } from "@/lib/db/fingerprint-cache.ts";

const steps = processCache<AuditSteps>("audit-steps", { maxEntries: 200 });

/** The run's reviews pooled per step, reused while its reviews' count and newest id hold. */
export async function listAuditSteps(runId: string, client: Db = db()): Promise<AuditSteps> {
  const fingerprint = await reviewFingerprint(runId, client);
  return steps.get(client, runId, fingerprint, () => readAuditSteps(runId, {}, client));
}

/** A run's audit points for windows of `window` steps, whole run (filter by range with pointsInRange). */
export async function listAuditPoints(runId: string, window: number, client: Db = db()): Promise<AuditPoint[]> {
  return auditPointsOf(await listAuditSteps(runId, client), window);
}

/** The windows that overlap [from, to]. */
export function pointsInRange(points: readonly AuditPoint[], range: { from: number; to: number }): AuditPoint[] {
  return points.filter((p) => p.stepTo >= range.from && p.step <= range.to);
}
