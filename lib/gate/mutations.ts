// Writes of the audit gate: the run's last verdict, and the webhook outcome of its last change.
import { db, type Db } from "@/lib/db/client.ts";
import type { GateReport, GateStatus } from "@/lib/gate/evaluate.ts";

export type GateChange = { runId: string; from: GateStatus | null; to: GateStatus; at: Date };

/**
 * Records a run's verdict, with the summary of the inputs it was concluded from (`inputs`: runFingerprints of the
 * run, read before the report was computed; null when unknown). Returns the change when the verdict differs from the one stored (or none was): the
 * upsert only writes when it differs and returns the verdict it replaced, and a concurrent evaluation that concludes
 * the same waits on the row and then finds nothing to change — so a change is returned exactly once. An unchanged
 * verdict only refreshes the stored report.
 */
export async function recordGateVerdict(
  report: GateReport,
  now: Date,
  inputs: string | null,
  client: Db = db(),
): Promise<GateChange | null> {
  const json = JSON.stringify(report);
  const changed = await client.$queryRaw<{ previous: GateStatus | null }[]>`
    insert into gate_verdicts as g (run_id, verdict, previous, report, changed_at, evaluated_at, inputs)
    values (${report.run}, ${report.verdict}::"GateVerdict", null, ${json}::jsonb, ${now}, ${now}, ${inputs})
    on conflict (run_id) do update set
      previous = g.verdict, verdict = excluded.verdict, report = excluded.report, changed_at = excluded.changed_at,
      evaluated_at = excluded.evaluated_at, webhook = null, inputs = excluded.inputs
    where g.verdict <> excluded.verdict
    returning previous::text as previous`;
  if (changed.length > 0) return { runId: report.run, from: changed[0].previous, to: report.verdict, at: now };
  await client.$executeRaw`
    update gate_verdicts set report = ${json}::jsonb, evaluated_at = ${now}, inputs = ${inputs}
     where run_id = ${report.run} and verdict = ${report.verdict}::"GateVerdict"`;
  return null;
}

/** The outcome of posting a change, kept with the verdict ("sent" or "failed: …"). */
export async function recordGateWebhook(runId: string, changedAt: Date, outcome: string, client: Db = db()) {
  await client.$executeRaw`update gate_verdicts set webhook = ${outcome} where run_id = ${runId} and changed_at = ${changedAt}`;
}
