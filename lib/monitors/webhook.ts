// Posts alarm state changes to VERITY_ALARM_WEBHOOK_URL. One attempt per change, each with a timeout, and after the
// first failure the rest of the batch is not attempted (marked as skipped): a receiver that is down costs one
// timeout per evaluation, not one per change, and is never retried in a loop. The outcome is stored on the event.
import type { AlarmTransition } from "@/lib/monitors/alarm-state.ts";
import { ALARM_LABELS } from "@/lib/monitors/rules.ts";

export const WEBHOOK_TIMEOUT_MS = 3000;
/** Changes posted per evaluation at most (a first evaluation of many red runs must not flood the receiver). */
export const WEBHOOK_MAX_PER_BATCH = 20;

/** What every post to the webhook carries: its kind ("verity.alarm", "verity.gate", …) and its run. */
export type WebhookEnvelope = { type: `verity.${string}`; run: string };

/** The JSON body of one post. */
export type AlarmWebhookPayload = {
  type: "verity.alarm";
  run: string;
  alarm: string;
  label: string;
  from: string;
  to: string;
  step: number | null;
  value: number | null;
  message: string;
  at: string;
};

export function webhookPayload(t: AlarmTransition): AlarmWebhookPayload {
  return {
    type: "verity.alarm",
    run: t.runId,
    alarm: t.alarm,
    label: ALARM_LABELS[t.alarm],
    from: t.from,
    to: t.to,
    step: t.step,
    value: t.value,
    message: t.message,
    at: t.at.toISOString(),
  };
}

/**
 * "sent" or "failed: <why>" for one post. Never throws. Also posts the audit gate's verdict changes (their body,
 * `type: "verity.gate"`, is the gate's own: lib/gate/webhook.ts).
 */
export async function postAlarmWebhook(
  url: string,
  payload: WebhookEnvelope,
  timeoutMs = WEBHOOK_TIMEOUT_MS,
): Promise<string> {
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": "verity-monitors" },
      body: JSON.stringify(payload),
      signal: AbortSignal.timeout(timeoutMs),
      redirect: "manual",
    });
    // The body is not needed; drain it so the connection is released.
    await res.arrayBuffer().catch(() => undefined);
    return res.ok ? "sent" : `failed: HTTP ${res.status}`;
  } catch (err) {
    const name = err instanceof Error ? err.name : "";
    if (name === "TimeoutError" || name === "AbortError") return `failed: no answer within ${timeoutMs} ms`;
    const cause =
      err instanceof Error && err.cause instanceof Error
        ? err.cause.message
        : err instanceof Error
          ? err.message
          : String(err);
    return `failed: ${cause}`.slice(0, 300);
  }
}

/** Posts the changes in order; returns one outcome per change (same order). */
export async function deliverTransitions(
  url: string,
  transitions: readonly AlarmTransition[],
  timeoutMs = WEBHOOK_TIMEOUT_MS,
): Promise<string[]> {
  const out: string[] = [];
  let failed = false;
  for (const [i, t] of transitions.entries()) {
    if (failed) out.push("failed: skipped after an earlier failure in the same evaluation");
    else if (i >= WEBHOOK_MAX_PER_BATCH)
      out.push(`failed: skipped, more than ${WEBHOOK_MAX_PER_BATCH} changes in one evaluation`);
    else {
      const r = await postAlarmWebhook(url, webhookPayload(t), timeoutMs);
      out.push(r);
      failed = r !== "sent";
    }
  }
  return out;
}
