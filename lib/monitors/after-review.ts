// Alarm evaluation after a shadow review is submitted: the run's extraction and reward-hacking alarms read the
// current reviews, so a review is data arriving like an ingest batch. (A lead's verdict changes nothing these alarms
// read.) Never throws: a failed evaluation is logged, and the next write (or start) evaluates again.
import { db } from "@/lib/db/client.ts";
import { evaluateRunAlarms } from "@/lib/monitors/evaluate.ts";
import { evaluateRunGate } from "@/lib/gate/refresh.ts";

/** Evaluates the alarms of the run whose audit batch holds `itemId`; webhook posts go on in the background. */
export async function evaluateAlarmsAfterReview(itemId: bigint): Promise<void> {
  try {
    const item = await db().auditItem.findUnique({
      where: { id: itemId },
      select: { batch: { select: { runId: true } } },
    });
    if (item) {
      await evaluateRunAlarms(item.batch.runId, { webhook: "background" });
      // The gate's agreement, extraction and reward-hacking rules read the reviews too.
      await evaluateRunGate(item.batch.runId, { webhook: "background" });
    }
  } catch (err) {
    console.error(
      `alarms not evaluated after the review of item ${itemId} (the next write or start will):`,
      err instanceof Error ? err.message : err,
    );
  }
}
