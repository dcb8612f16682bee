// Reads of the audit gate. The step counters come from the rollups summed in Postgres over the gate window —
// O(steps of the window), never the ledger — and the audit from the run's reviewed items whose step is inside the
// window, read and counted as the agreement page reads and counts them (lib/agreement/data.ts, headline.ts: each item
// once, through its primary blind review; O(reviewed items)); the reward-hacking rule reads the human-corrected
// success curve (lib/monitors/corrected-curve.ts) of the run page.
import { correctedCurve } from "@/lib/monitors/corrected-curve.ts";
import { db, type Db } from "@/lib/db/client.ts";
import { listOrderingJudgements, runFingerprints } from "@/lib/monitors/data.ts";
import { orderingAgreement } from "@/lib/stats/ordering-agreement.ts";
import { loadAgreementItems } from "@/lib/agreement/data.ts";
import { headlineCounts } from "@/lib/agreement/headline.ts";
import { agreementFilterSchema } from "@/lib/agreement/schema.ts";
import type {
  GateAuditCounts,
  GateHackingWindow,
  GateInputs,
  GateStatus,
  GateStepTotals,
} from "@/lib/gate/evaluate.ts";
import { gateWindow } from "@/lib/gate/evaluate.ts";
import { loadLedgerStanding } from "@/lib/leaderboard/loaders.ts";

/** The run's last step with rollups and whether any of its rollouts carries a trained reward (one index scan). */
export async function runGateExtent(
  runId: string,
  client: Db = db(),
): Promise<{ lastStep: number | null; hasTrainedRewards: boolean; hasPairwise: boolean }> {
  const [r] = await client.$queryRaw<{ last: number | null; trained: boolean | null; pairs: boolean | null }[]>`
    select max(step) as last, bool_or(trained > 0) as trained,
           (select pair_review_count > 0 from run_counters where run_id = ${runId}) as pairs
      from step_rollups where run_id = ${runId}`;
  return { lastStep: r.last, hasTrainedRewards: r.trained === true, hasPairwise: r.pairs === true };
}

/** The rollup counters of steps [from, to], summed in Postgres (one index range scan of step_rollups). */
export async function sumGateStepRows(
  runId: string,
  range: { from: number; to: number },
  client: Db = db(),
): Promise<GateStepTotals> {
  const [r] = await client.$queryRaw<GateStepTotals[]>`
    select coalesce(sum(rollouts), 0)::float8 as "rollouts", coalesce(sum(handoffs), 0)::float8 as "handoffs",
           coalesce(sum(guardrail_hits), 0)::float8 as "guardrailHits", coalesce(sum(trained), 0)::float8 as "trained",
           coalesce(sum(trained_differs), 0)::float8 as "trainedDiffers",
           coalesce(sum(trained_abs_diff_sum), 0)::float8 as "trainedAbsDiffSum"
      from step_rollups where run_id = ${runId} and step between ${range.from} and ${range.to}`;
  return r;
}

/**
 * The agreement page's counts (its default filter: the run, the default tolerance) over the run's reviewed items
 * whose step is in [from, to].
 */
export async function loadGateAuditCounts(
  runId: string,
  range: { from: number; to: number },
  client: Db = db(),
): Promise<GateAuditCounts> {
  const filter = agreementFilterSchema.parse({ run: runId });
  const items = (await loadAgreementItems(filter, client, { lean: true })).filter(
    (i) => i.item.step >= range.from && i.item.step <= range.to,
  );
  const { agreement, extraction } = headlineCounts(items, filter.tolerance);
  return {
    compared: agreement?.n ?? 0,
    agreeing: agreement?.agreeing ?? 0,
    extractionItems: extraction.items,
    slots: extraction.accuracy.overall?.n ?? 0,
    correctSlots: extraction.accuracy.overall?.correct ?? 0,
  };
}

/** Everything the gate's rules read for the window of `windowSteps` steps ending at the run's last step. */
export async function loadGateInputs(
  runId: string,
  opts: { windowSteps: number; auditWindow: number; lastStep: number | null; ledgerRank?: boolean },
  client: Db = db(),
): Promise<GateInputs> {
  const empty: GateInputs = {
    runId,
    lastStep: opts.lastStep,
    steps: { rollouts: 0, handoffs: 0, guardrailHits: 0, trained: 0, trainedDiffers: 0, trainedAbsDiffSum: 0 },
    audit: { compared: 0, agreeing: 0, extractionItems: 0, slots: 0, correctSlots: 0 },
    hacking: [],
    ordering: { agree: 0, inversions: 0 },
  };
  const range = gateWindow(opts.lastStep, opts.windowSteps);
  if (!range) return empty;
  const [steps, audit, curve, judgements, ledgerRank] = await Promise.all([
    sumGateStepRows(runId, range, client),
    loadGateAuditCounts(runId, range, client),
    correctedCurve(client, runId, { windowSteps: opts.auditWindow }),
    listOrderingJudgements(runId, client),
    opts.ledgerRank ? loadLedgerStanding({ run: runId, ...range }, client) : undefined,
  ]);
  // the judged pairs of the window, counted as the pairwise report and the ordering alarm count them
  const { agree, inversions } = orderingAgreement(judgements.filter((j) => j.step >= range.from && j.step <= range.to));
  // The curve's windows on the same fixed grid that overlap the gate window.
  const hacking: GateHackingWindow[] = (curve?.windows ?? [])
    .filter((w) => w.stepTo >= range.from && w.stepFrom <= range.to)
    .map((w) => ({
      step: w.stepFrom,
      stepTo: w.stepTo,
      ledgerN: w.n,
      ledgerSuccess: w.ledgerSuccess,
      reviews: w.evidence.items,
      corrected: w.corrected ? { estimate: w.corrected.rate, lower: w.corrected.lo, upper: w.corrected.hi } : null,
    }));
  return { ...empty, steps, audit, hacking, ordering: { agree, inversions }, ledgerRank };
}

export type StoredGateVerdict = {
  runId: string;
  verdict: GateStatus;
  previous: GateStatus | null;
  changedAt: Date;
  evaluatedAt: Date;
  webhook: string | null;
  /**
   * Reviews, an ingest or a change of thresholds arrived after the verdict was concluded (or its inputs are unknown):
   * it may no longer be the run's verdict until the gate is evaluated again (evaluateRunGate).
   */
  stale: boolean;
};

/** The stored verdict of a run, or null when its gate was never evaluated. */
export async function getGateVerdict(runId: string, client: Db = db()): Promise<StoredGateVerdict | null> {
  const [row, now] = await Promise.all([
    client.gateVerdictRecord.findUnique({
      where: { runId },
      select: {
        runId: true,
        verdict: true,
        previous: true,
        changedAt: true,
        evaluatedAt: true,
        webhook: true,
        inputs: true,
      },
    }),
    runFingerprints([runId], client),
  ]);
  if (!row) return null;
  const { inputs, ...rest } = row;
  return { ...rest, stale: inputs === null || inputs !== (now.get(runId) ?? null) };
}
