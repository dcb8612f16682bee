// Writes of the training monitors: the persisted alarm states and their change events, the webhook outcome of an
// event, and a run's thresholds (logged in the activity log).
import { appendActivityLog, type ActivityActor } from "@/lib/auth/activity-log.ts";
import { db, type Db } from "@/lib/db/client.ts";
import type { AlarmStatus } from "@/lib/stats/alarms.ts";
import { Prisma, type PrismaClient } from "@/lib/generated/prisma/client.ts";
import { planRunUpdate, type AlarmTransition, type PersistedAlarm } from "@/lib/monitors/alarm-state.ts";
import { listPersistedAlarms } from "@/lib/monitors/data.ts";
import type { AlarmKey } from "@/lib/monitors/rules.ts";
import { resolveThresholds, thresholdOverrides, type Thresholds } from "@/lib/monitors/schema.ts";

export type PersistedTransition = AlarmTransition & { eventId: bigint };

/**
 * Stores an evaluation's outcome for a run: plans against the persisted rows read under a per-run transaction-level
 * advisory lock, so two evaluations of the same run (a review and the ingest hook) cannot both record the same
 * change. When another evaluation holds the lock this one gives way and returns null: that one stores the same
 * conclusion from the same or newer data.
 */
export async function persistAlarmEvaluation(
  runId: string,
  computed: Record<AlarmKey, AlarmStatus>,
  meta: { ruleHashes: Record<AlarmKey, string>; fingerprint: string; now: Date },
  client: PrismaClient = db(),
): Promise<{ rows: PersistedAlarm[]; transitions: PersistedTransition[] } | null> {
  return client.$transaction(async (tx) => {
    const [lock] = await tx.$queryRaw<
      { ok: boolean }[]
    >`select pg_try_advisory_xact_lock(hashtextextended(${`verity.monitors:${runId}`}, 0)) as ok`;
    if (!lock.ok) return null;
    const previous = await listPersistedAlarms([runId], tx);
    const { rows, transitions } = planRunUpdate(previous, computed, { runId, ...meta });
    // One statement for the run's six rows (the evaluation runs after every ingest batch; round trips add up).
    await tx.$executeRaw`
      insert into monitor_alarms as t (run_id, alarm, state, since_step, at_step, value, message, rule_hash, fingerprint, changed_at, evaluated_at)
      select ${runId}, a, st::"MonitorAlarmState", ss, ats, v, m, h, ${meta.fingerprint}, ca, ${meta.now}
        from unnest(${rows.map((r) => r.alarm)}::text[], ${rows.map((r) => r.state)}::text[], ${rows.map((r) => r.sinceStep)}::int[],
                    ${rows.map((r) => r.atStep)}::int[], ${rows.map((r) => r.value)}::float8[], ${rows.map((r) => r.message)}::text[],
                    ${rows.map((r) => r.ruleHash)}::text[], ${rows.map((r) => r.changedAt)}::timestamptz[]) as u(a, st, ss, ats, v, m, h, ca)
      on conflict (run_id, alarm) do update set
        state = excluded.state, since_step = excluded.since_step, at_step = excluded.at_step, value = excluded.value,
        message = excluded.message, rule_hash = excluded.rule_hash, fingerprint = excluded.fingerprint,
        changed_at = excluded.changed_at, evaluated_at = excluded.evaluated_at`;
    const stored: PersistedTransition[] = [];
    for (const t of transitions) {
      const e = await tx.monitorAlarmEvent.create({
        data: {
          runId,
          alarm: t.alarm,
          fromState: t.from,
          toState: t.to,
          step: t.step,
          value: t.value,
          message: t.message,
          at: t.at,
        },
        select: { id: true },
      });
      stored.push({ ...t, eventId: e.id });
    }
    return { rows, transitions: stored };
  });
}

/** Records the webhook outcome of events ("sent" / "failed: …"). */
export async function recordWebhookOutcomes(
  outcomes: readonly { eventId: bigint; outcome: string }[],
  client: Db = db(),
): Promise<void> {
  for (const o of outcomes)
    await client.monitorAlarmEvent.update({ where: { id: o.eventId }, data: { webhook: o.outcome } });
}

/**
 * Sets a run's thresholds (only the fields that differ from the defaults are stored; none → null) and records who
 * changed what from what in the activity log, in one transaction.
 */
export async function setRunThresholds(
  runId: string,
  thresholds: Thresholds,
  actor: ActivityActor,
  client: PrismaClient = db(),
): Promise<{ ok: true; stored: Partial<Thresholds> | null } | { ok: false; error: string }> {
  return client.$transaction(async (tx) => {
    const run = await tx.run.findUnique({ where: { id: runId }, select: { thresholds: true } });
    if (!run) return { ok: false as const, error: `No run ${runId}.` };
    const before = resolveThresholds(run.thresholds).thresholds;
    const stored = thresholdOverrides(thresholds);
    // Prisma needs DbNull to store SQL null in a Json? column.
    await tx.run.update({ where: { id: runId }, data: { thresholds: stored ?? Prisma.DbNull } });
    const changed = Object.fromEntries(
      (Object.keys(thresholds) as (keyof Thresholds)[])
        .filter((k) => before[k] !== thresholds[k])
        .map((k) => [k, { from: before[k], to: thresholds[k] }]),
    );
    await appendActivityLog(
      {
        actor,
        action: "run.thresholds_update",
        target: { type: "run", id: runId },
        details: { changed, stored: stored ?? null },
      },
      tx,
    );
    return { ok: true as const, stored };
  });
}
