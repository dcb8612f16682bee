// The gate of a run as the CLI, the API and the run page ask for it: the run's thresholds and extent, the rules in
// force (a rules file over the run's defaults) and the evaluation. The same function for all three, so the CLI's
// `--json` and the API's body are the same document.
import { db, type Db } from "@/lib/db/client.ts";
import { getRunThresholds } from "@/lib/monitors/data.ts";
import { resolveThresholds } from "@/lib/monitors/schema.ts";
import { loadGateInputs, runGateExtent } from "@/lib/gate/data.ts";
import { evaluateGate, type GateReport } from "@/lib/gate/evaluate.ts";
import { hackingAuditWindow, resolveGateRules } from "@/lib/gate/rules.ts";
import type { GateRulesFile } from "@/lib/gate/schema.ts";

export type GateOptions = {
  /** Steps back from the run's last step; default the rules file's window_steps, else the run's hacking window. */
  windowSteps?: number;
  /** A parsed rules file; null or absent: the run's default rules. */
  file?: GateRulesFile | null;
};

/** The gate report of a run, or null when there is no such run. */
export async function loadGateReport(
  runId: string,
  opts: GateOptions = {},
  client: Db = db(),
): Promise<GateReport | null> {
  const run = await getRunThresholds(runId, client);
  if (!run) return null;
  const { thresholds } = resolveThresholds(run.thresholds);
  const extent = await runGateExtent(runId, client);
  const rules = resolveGateRules(
    thresholds,
    { hasTrainedRewards: extent.hasTrainedRewards, hasPairwise: extent.hasPairwise, windowSteps: opts.windowSteps },
    opts.file ?? null,
  );
  const inputs = await loadGateInputs(
    runId,
    {
      windowSteps: rules.windowSteps,
      auditWindow: rules.reward_hacking?.audit_window ?? hackingAuditWindow(thresholds.auditWindow, rules.windowSteps),
      lastStep: extent.lastStep,
      ledgerRank: rules.ledger_rank !== null,
    },
    client,
  );
  return evaluateGate(rules, inputs);
}

/**
 * Exit code of `verity gate` for a verdict (docs/gate.md): a pass with warnings is 0; 3 is a usage error or an
 * unreachable database.
 */
export const GATE_EXIT = { pass: 0, fail: 1, insufficient: 2, error: 3 } as const;
