// When the gate is evaluated and its verdict stored: after each committed write of a run (the after-write
// hook, lib/server/after-write.ts), after a submitted review, and when the API or `verity gate` asks for the run's
// own gate (its default rules and window; a rules file or another window answers another question and stores
// nothing). The run page reads the report (loadRunGateReport) and stores nothing while it renders. A change of verdict is posted to the alarm webhook once — the first verdict of a
// run only when it is not a pass, as an alarm's first state is posted only when it is not green.
import { db, type Db } from "@/lib/db/client.ts";
import { env } from "@/lib/env.ts";
import { postAlarmWebhook, WEBHOOK_TIMEOUT_MS } from "@/lib/monitors/webhook.ts";
import { loadGateReport } from "@/lib/gate/loaders.ts";
import type { GateReport } from "@/lib/gate/evaluate.ts";
import { runFingerprints } from "@/lib/monitors/data.ts";
import { processCache } from "@/lib/db/fingerprint-cache.ts";
import { recordGateVerdict, recordGateWebhook, type GateChange } from "@/lib/gate/mutations.ts";
import { gateWebhookPayload } from "@/lib/gate/webhook.ts";

export type GateRefreshOptions = {
  now?: Date;
  /** Webhook URL; default VERITY_ALARM_WEBHOOK_URL, null for none. */
  webhookUrl?: string | null;
  /** "await" (default) returns after the post; "background" returns at once and posts afterwards. */
  webhook?: "await" | "background";
  webhookTimeoutMs?: number;
};

export type GateRefresh = {
  report: GateReport | null;
  /** The change this call recorded, if any. */
  change: GateChange | null;
  /** Settles when the post of the change is done and its outcome recorded. Never rejects. */
  delivered: Promise<void>;
};

const DONE = Promise.resolve();

/** Stores a report of the run's own gate, concluded from `inputs` (runFingerprints), and posts a change. */
async function recordGateReport(
  report: GateReport,
  inputs: string | null,
  opts: GateRefreshOptions,
  client: Db,
): Promise<GateRefresh> {
  const change = await recordGateVerdict(report, opts.now ?? new Date(), inputs, client);
  const url = opts.webhookUrl !== undefined ? opts.webhookUrl : (env().VERITY_ALARM_WEBHOOK_URL ?? null);
  if (!change || (change.from === null && change.to === "pass") || !url) return { report, change, delivered: DONE };
  const delivered = postAlarmWebhook(
    url,
    gateWebhookPayload(change, report),
    opts.webhookTimeoutMs ?? WEBHOOK_TIMEOUT_MS,
  )
    .then((outcome) => recordGateWebhook(change.runId, change.at, outcome, client))
    .catch((err: unknown) => console.error(`gate webhook for run ${change.runId}:`, err));
  if ((opts.webhook ?? "await") === "await") await delivered;
  return { report, change, delivered };
}

// The run's own gate costs what its audit costs (the corrected curve's bootstrap: about 2 s at 10,000 reviews), and
// the run page, the after-write hook and the after-review hook all ask for it. Its inputs are the run's rollups, its
// current reviews and its thresholds, which is what the alarms' fingerprint summarises: while that is unchanged the
// report is reused (the verdict is still stored and compared on every call).
const ownGates = processCache<GateReport | null>("gate", { maxEntries: 32 });

/**
 * The report of the run's own gate (its default rules and window), reused while its inputs are unchanged, with the
 * summary of those inputs (read before the report, so a write during it leaves the stored verdict stale, not fresh).
 */
export async function loadRunGateReport(
  runId: string,
  client: Db = db(),
): Promise<{ report: GateReport | null; inputs: string | null }> {
  const inputs = (await runFingerprints([runId], client)).get(runId) ?? null;
  const report = await ownGates.get(client, runId, inputs, () => loadGateReport(runId, {}, client));
  return { report, inputs };
}

/**
 * Evaluates the run's own gate, stores the verdict and posts a change; no report for an unknown run. What the
 * after-write and after-review hooks, the API (without window_steps) and `verity gate` (without --rules or
 * --window-steps) call.
 */
export async function evaluateRunGate(
  runId: string,
  opts: GateRefreshOptions = {},
  client: Db = db(),
): Promise<GateRefresh> {
  const { report, inputs } = await loadRunGateReport(runId, client);
  if (!report) return { report: null, change: null, delivered: DONE };
  return recordGateReport(report, inputs, opts, client);
}
