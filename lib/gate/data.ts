// Reads of the audit gate. The step counters come from the rollups pooled in Postgres into the audit windows of the
// gate window — O(steps of the window), never the ledger — and the audit from the run's current reviews inside the
// window (O(reviews), a ~1% sample), through the same reads and definitions as the monitors and the agreement page.
import type { Db } from "@/lib/auth/activity-log.ts";
import { db } from "@/lib/db/client.ts";
import { auditPoints } from "@/lib/monitors/audit.ts";
import { listAuditPairs } from "@/lib/monitors/data.ts";
import type { GateHackingWindow, GateInputs, GateStatus } from "@/lib/gate/evaluate.ts";
import { gateWindow } from "@/lib/gate/evaluate.ts";

/** The run's last step with rollups and whether any of its rollouts carries a trained reward (one index scan). */
export async function runGateExtent(
  runId: string,
  client: Db = db(),
): Promise<{ lastStep: number | null; hasTrainedRewards: boolean }> {
  const [r] = await client.$queryRaw<{ last: number | null; trained: boolean | null }[]>`
    select max(step) as last, bool_or(trained > 0) as trained from step_rollups where run_id = ${runId}`;
  return { lastStep: r.last, hasTrainedRewards: r.trained === true };
}

type WindowRow = [
  step: number,
  rollouts: number,
  handoffs: number,
  guardrailHits: number,
  rewarded: number,
  success: number,
  trained: number,
  trainedDiffers: number,
  trainedAbsDiffSum: number,
];

/**
 * The rollup counters of steps [from, to] pooled per audit window [k·width, (k+1)·width) (the monitors' fixed grid),
 * as one JSON value.
 */
export async function listGateWindowRows(
  runId: string,
  range: { from: number; to: number },
  width: number,
  client: Db = db(),
): Promise<WindowRow[]> {
  const w = Math.max(1, Math.floor(width));
  const [r] = await client.$queryRaw<{ rows: WindowRow[] | null }[]>`
    select json_agg(json_build_array(b, rollouts, handoffs, guardrail_hits, rewarded, success, trained, trained_differs,
                                     trained_abs_diff_sum) order by b) as rows
      from (select (step / ${w}::int) * ${w}::int as b, sum(rollouts) as rollouts, sum(handoffs) as handoffs,
                   sum(guardrail_hits) as guardrail_hits, sum(rewarded) as rewarded, sum(success) as success,
                   sum(trained) as trained, sum(trained_differs) as trained_differs,
                   sum(trained_abs_diff_sum) as trained_abs_diff_sum
              from step_rollups where run_id = ${runId} and step between ${range.from} and ${range.to} group by 1) s`;
  return r.rows ?? [];
}

/** Everything the gate's rules read for the window of `windowSteps` steps ending at the run's last step. */
export async function loadGateInputs(
  runId: string,
  opts: { windowSteps: number; auditWindow: number; lastStep: number | null },
  client: Db = db(),
): Promise<GateInputs> {
  const empty: GateInputs = {
    runId,
    lastStep: opts.lastStep,
    steps: { rollouts: 0, handoffs: 0, guardrailHits: 0, trained: 0, trainedDiffers: 0, trainedAbsDiffSum: 0 },
    audit: { compared: 0, agreeing: 0, slots: 0, correctSlots: 0 },
    hacking: [],
  };
  const range = gateWindow(opts.lastStep, opts.windowSteps);
  if (!range) return empty;
  const [rows, pairs] = await Promise.all([
    listGateWindowRows(runId, range, opts.auditWindow, client),
    listAuditPairs(runId, range, client),
  ]);
  const steps = { ...empty.steps };
  const ledger = new Map<number, { n: number; k: number }>();
  for (const [b, rollouts, handoffs, hits, rewarded, success, trained, differs, absSum] of rows) {
    steps.rollouts += rollouts;
    steps.handoffs += handoffs;
    steps.guardrailHits += hits;
    steps.trained += trained;
    steps.trainedDiffers += differs;
    steps.trainedAbsDiffSum += absSum;
    ledger.set(b, { n: rewarded, k: success });
  }
  const points = auditPoints(pairs, opts.auditWindow);
  const audit = { ...empty.audit };
  for (const p of points) {
    audit.compared += p.compared;
    audit.agreeing += p.agreeing;
    audit.slots += p.slots;
    audit.correctSlots += p.correctSlots;
  }
  const hacking: GateHackingWindow[] = points.map((p) => ({
    step: p.step,
    stepTo: p.stepTo,
    ledgerN: ledger.get(p.step)?.n ?? 0,
    ledgerSuccesses: ledger.get(p.step)?.k ?? 0,
    reviews: p.reviews,
    corrected: p.humanSuccess,
  }));
  return { ...empty, steps, audit, hacking };
}

export type StoredGateVerdict = {
  runId: string;
  verdict: GateStatus;
  previous: GateStatus | null;
  changedAt: Date;
  evaluatedAt: Date;
  webhook: string | null;
};

/** The stored verdict of a run, or null when its gate was never evaluated. */
export async function getGateVerdict(runId: string, client: Db = db()): Promise<StoredGateVerdict | null> {
  return client.gateVerdictRecord.findUnique({
    where: { runId },
    select: { runId: true, verdict: true, previous: true, changedAt: true, evaluatedAt: true, webhook: true },
  });
}
