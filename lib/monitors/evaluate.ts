// Alarm evaluation as data arrives. `evaluateRunAlarms(runId)` is what a write calls after committing (ingest,
// re-score, a case fix, a submitted review, new thresholds); `refreshAlarms` is what a start calls, for states stored
// by an older evaluation (or by a write that did not evaluate, such as the demo audit). Pages only read the stored
// states: reading a page never changes an alarm. Both skip the work when the run's fingerprint (rollups, reviews,
// thresholds) is what the stored states were computed from. Reads are O(steps + reviews); nothing scans the ledger.
import { createHash } from "node:crypto";
import { db } from "@/lib/db/client.ts";
import { env } from "@/lib/env.ts";
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";
import { computeAlarmStatuses, type PersistedAlarm } from "@/lib/monitors/alarm-state.ts";
import { listAuditPoints } from "@/lib/monitors/audit-data.ts";
import {
  getRunThresholds,
  listAlarmStepRows,
  listOrderingJudgements,
  listPersistedAlarms,
  runFingerprints,
} from "@/lib/monitors/data.ts";
import { orderingPoints } from "@/lib/monitors/ordering.ts";
import { persistAlarmEvaluation, recordWebhookOutcomes, type PersistedTransition } from "@/lib/monitors/mutations.ts";
import { alarmRules, ALARMS, ruleHash, type AlarmKey } from "@/lib/monitors/rules.ts";
import { resolveThresholds } from "@/lib/monitors/schema.ts";
import { deliverTransitions, WEBHOOK_TIMEOUT_MS } from "@/lib/monitors/webhook.ts";

/** Bump when the evaluation logic changes, so stored states are recomputed once after a deploy. */
const EVALUATION_VERSION = "3";

export type EvaluateOptions = {
  client?: PrismaClient;
  now?: Date;
  /** Evaluate even when the fingerprint is unchanged. */
  force?: boolean;
  /** Webhook URL; default VERITY_ALARM_WEBHOOK_URL, null for none. */
  webhookUrl?: string | null;
  /** "await" (default) returns after the posts; "background" returns at once and posts afterwards (servers). */
  webhook?: "await" | "background";
  webhookTimeoutMs?: number;
};

export type RunAlarms = {
  runId: string;
  /** The states after this call, in ALARMS order (empty for an unknown run). */
  alarms: PersistedAlarm[];
  /** Changes this call recorded (and posted, or is posting). */
  transitions: PersistedTransition[];
  /** False when nothing changed since the last evaluation, or another evaluation of the run was in progress. */
  evaluated: boolean;
  /** Settles when the webhook posts of this call are done and recorded. */
  delivered: Promise<void>;
};

const DONE = Promise.resolve();

function fingerprintOf(raw: string, hashes: Record<AlarmKey, string>): string {
  return createHash("sha256")
    .update(`${EVALUATION_VERSION}|${raw}|${ALARMS.map((a) => hashes[a]).join(",")}`)
    .digest("hex")
    .slice(0, 32);
}

function webhookUrlOf(opts: EvaluateOptions): string | null {
  if (opts.webhookUrl !== undefined) return opts.webhookUrl;
  return env().VERITY_ALARM_WEBHOOK_URL ?? null;
}

async function evaluate(
  run: { id: string; thresholds: unknown },
  rawFingerprint: string,
  previous: PersistedAlarm[],
  opts: EvaluateOptions,
): Promise<RunAlarms> {
  const client = opts.client ?? db();
  const { thresholds } = resolveThresholds(run.thresholds);
  const rules = alarmRules(thresholds);
  const ruleHashes = Object.fromEntries(ALARMS.map((a) => [a, ruleHash(rules[a])])) as Record<AlarmKey, string>;
  const fingerprint = fingerprintOf(rawFingerprint, ruleHashes);
  const fresh = previous.length === ALARMS.length && previous.every((p) => p.fingerprint === fingerprint);
  if (fresh && !opts.force)
    return { runId: run.id, alarms: previous, transitions: [], evaluated: false, delivered: DONE };

  const [steps, audit, judgements] = await Promise.all([
    listAlarmStepRows(run.id, client),
    listAuditPoints(run.id, thresholds.auditWindow, client),
    listOrderingJudgements(run.id, client),
  ]);
  const ordering = orderingPoints(judgements, thresholds.auditWindow);
  const computed = computeAlarmStatuses(rules, { steps, audit, auditWindow: thresholds.auditWindow, ordering });
  const stored = await persistAlarmEvaluation(
    run.id,
    computed,
    { ruleHashes, fingerprint, now: opts.now ?? new Date() },
    client,
  );
  if (!stored) return { runId: run.id, alarms: previous, transitions: [], evaluated: false, delivered: DONE };

  const url = webhookUrlOf(opts);
  let delivered = DONE;
  if (url && stored.transitions.length > 0) {
    delivered = deliverTransitions(url, stored.transitions, opts.webhookTimeoutMs ?? WEBHOOK_TIMEOUT_MS)
      .then((outcomes) =>
        recordWebhookOutcomes(
          stored.transitions.map((t, i) => ({ eventId: t.eventId, outcome: outcomes[i] })),
          client,
        ),
      )
      .catch((err: unknown) => console.error(`alarm webhook for run ${run.id}:`, err));
    if ((opts.webhook ?? "await") === "await") await delivered;
  }
  return { runId: run.id, alarms: stored.rows, transitions: stored.transitions, evaluated: true, delivered };
}

/**
 * Evaluates a run's alarms against its current rollups and reviews, stores the states, records each state change
 * and posts it to the webhook. Cheap when nothing changed (two small queries). Call it after a batch of a run is
 * committed; it never throws for a missing run (returns no alarms).
 */
export async function evaluateRunAlarms(runId: string, opts: EvaluateOptions = {}): Promise<RunAlarms> {
  const client = opts.client ?? db();
  const run = await getRunThresholds(runId, client);
  if (!run) return { runId, alarms: [], transitions: [], evaluated: false, delivered: DONE };
  const [fingerprints, previous] = await Promise.all([
    runFingerprints([runId], client),
    listPersistedAlarms([runId], client),
  ]);
  return evaluate(run, fingerprints.get(runId) ?? "", previous, opts);
}

/**
 * The alarm states of several runs (default: every run), evaluating only the runs whose data changed since their
 * states were stored (or whose states an older evaluation stored). For a start, not for pages.
 */
export async function refreshAlarms(
  runIds?: readonly string[],
  opts: EvaluateOptions = {},
): Promise<Map<string, RunAlarms>> {
  const client = opts.client ?? db();
  const runs = await client.run.findMany({
    where: runIds ? { id: { in: [...runIds] } } : {},
    select: { id: true, thresholds: true },
    orderBy: { id: "asc" },
  });
  const ids = runs.map((r) => r.id);
  const [fingerprints, previous] = await Promise.all([runFingerprints(ids, client), listPersistedAlarms(ids, client)]);
  const out = new Map<string, RunAlarms>();
  for (const run of runs) {
    const prev = previous.filter((p) => p.runId === run.id);
    out.set(run.id, await evaluate(run, fingerprints.get(run.id) ?? "", prev, opts));
  }
  return out;
}
