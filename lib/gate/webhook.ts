// A change of a run's gate verdict, posted to the alarm webhook (VERITY_ALARM_WEBHOOK_URL) like an alarm's state
// change: one attempt with the webhook's timeout, the outcome kept with the stored verdict.
import type { GateReport, GateStatus } from "@/lib/gate/evaluate.ts";
import type { GateChange } from "@/lib/gate/mutations.ts";

/** The JSON body of one post (README, "Configuration"; docs/gate.md). */
export type GateWebhookPayload = {
  type: "verity.gate";
  run: string;
  /** The verdict before; null for the first verdict recorded of the run. */
  from: GateStatus | null;
  to: GateStatus;
  failed: string[];
  insufficient: string[];
  /** Health readings out of their line when the verdict changed (they do not change it). */
  warnings: string[];
  window: GateReport["window"];
  message: string;
  at: string;
};

export function gateWebhookPayload(change: GateChange, report: GateReport): GateWebhookPayload {
  const named = (keys: string[]) =>
    keys.map((k) => report.rules.find((r) => r.rule === k)?.label.toLowerCase() ?? k).join(", ");
  const message =
    report.verdict === "fail"
      ? `gate fails: ${named(report.failed)}`
      : report.verdict === "insufficient"
        ? `gate lacks evidence: ${named(report.insufficient)}`
        : report.warnings.length
          ? `gate passes, with warnings: ${named(report.warnings)}`
          : "gate passes: every rule within its line";
  return {
    type: "verity.gate",
    run: change.runId,
    from: change.from,
    to: change.to,
    failed: report.failed,
    insufficient: report.insufficient,
    warnings: report.warnings,
    window: report.window,
    message,
    at: change.at.toISOString(),
  };
}
