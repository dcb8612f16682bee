// Glue between a run's data and the alarm state machine (lib/stats/alarms.ts), and the rule for what to persist.
// Every evaluation replays the whole series from green: the machine is deterministic, so the replay gives the same
// state as resuming would, and it stays right when old steps change (a re-score, late rows) or thresholds change.
// A state change is recorded — and posted — only when the replayed state differs from the persisted one, so
// re-evaluating the same data never records anything, and the machine's hysteresis is what stops flapping. Pure.
import {
  alarmTimeline,
  INITIAL_ALARM_STATUS,
  stepSeries,
  type AlarmState,
  type AlarmStatus,
} from "@/lib/stats/alarms.ts";
import { MIN_RUN_EVIDENCE } from "@/lib/stats/alarm-presets.ts";
import type { StepPoint } from "@/lib/stats/trend.ts";
import { auditSeries, windowStart, type AuditPoint } from "@/lib/monitors/audit.ts";
import { orderingSeries, type OrderingPoint } from "@/lib/monitors/ordering.ts";
import { ALARMS, type AlarmKey, type AlarmRules } from "@/lib/monitors/rules.ts";

/** The rollup counters the step alarms read. */
export type AlarmStepRow = {
  step: number;
  rollouts: number;
  handoffs: number;
  guardrailHits: number;
  groups: number;
  groupStdSum: number;
  rewarded: number;
  rewardSum: number;
  trained: number;
  trainedDiffers: number;
  trainedAbsDiffSum: number;
};

export type AlarmInputs = {
  steps: readonly AlarmStepRow[];
  audit: readonly AuditPoint[];
  auditWindow: number;
  /** Pairwise ordering agreement per audit window (none for a run without pairwise judgements). */
  ordering?: readonly OrderingPoint[];
  /** The least a run needs before its alarms judge it; default MIN_RUN_EVIDENCE. */
  minEvidence?: RunEvidence;
};

export type RunEvidence = { readonly rollouts: number; readonly steps: number };

/** The ledger's mean reward pooled into the audit windows, so both series of a reward-hacking rule share a grid. */
export function ledgerRewardByWindow(steps: readonly AlarmStepRow[], width: number): StepPoint[] {
  const acc = new Map<number, { sum: number; n: number }>();
  for (const s of steps) {
    const w = windowStart(s.step, width);
    const a = acc.get(w) ?? { sum: 0, n: 0 };
    a.sum += s.rewardSum;
    a.n += s.rewarded;
    acc.set(w, a);
  }
  return [...acc.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([step, { sum, n }]) => ({ step, value: n > 0 ? sum / n : null, n }));
}

/**
 * Why a run is too small for its alarms to judge it (MIN_RUN_EVIDENCE: rollouts and logged steps over the whole run),
 * or null when it is not.
 */
export function runEvidenceShortfall(
  steps: readonly AlarmStepRow[],
  min: RunEvidence = MIN_RUN_EVIDENCE,
): string | null {
  let rollouts = 0;
  let logged = 0;
  for (const s of steps) {
    rollouts += s.rollouts;
    if (s.rollouts > 0) logged++;
  }
  if (rollouts >= min.rollouts && logged >= min.steps) return null;
  const n = (x: number, one: string, many: string) => `${x.toLocaleString("en-US")} ${x === 1 ? one : many}`;
  return (
    `not judged: the run has ${n(rollouts, "rollout", "rollouts")} over ${n(logged, "logged step", "logged steps")}; ` +
    `alarms judge a run from ${min.rollouts.toLocaleString("en-US")} rollouts over ${min.steps} steps`
  );
}

/**
 * The state each alarm ends in after replaying its series from the start. A run below MIN_RUN_EVIDENCE is not
 * judged: every alarm is green with nothing evaluated, and says why.
 */
export function computeAlarmStatuses(rules: AlarmRules, inputs: AlarmInputs): Record<AlarmKey, AlarmStatus> {
  const { steps, audit } = inputs;
  const shortfall = runEvidenceShortfall(steps, inputs.minEvidence);
  if (shortfall !== null) {
    const status: AlarmStatus = { ...INITIAL_ALARM_STATUS, message: shortfall };
    return Object.fromEntries(ALARMS.map((a) => [a, status])) as Record<AlarmKey, AlarmStatus>;
  }
  const human = auditSeries(audit);
  const ledger = ledgerRewardByWindow(steps, inputs.auditWindow);
  const last = (t: AlarmStatus[]) => t[t.length - 1] ?? INITIAL_ALARM_STATUS;
  return {
    hit_rate: last(
      alarmTimeline(
        rules.hit_rate,
        stepSeries(steps.map((s) => ({ step: s.step, k: s.guardrailHits, n: s.rollouts }))),
      ),
    ),
    handoff: last(
      alarmTimeline(rules.handoff, stepSeries(steps.map((s) => ({ step: s.step, k: s.handoffs, n: s.rollouts })))),
    ),
    group_std: last(
      alarmTimeline(
        rules.group_std,
        steps.map((s) => ({ step: s.step, value: s.groups > 0 ? s.groupStdSum / s.groups : null, n: s.groups })),
      ),
    ),
    extraction: last(alarmTimeline(rules.extraction, human.extraction)),
    hacking_agreement: last(alarmTimeline(rules.hacking_agreement, { ledger, human: human.agreement })),
    hacking_success: last(alarmTimeline(rules.hacking_success, { ledger, human: human.humanSuccess })),
    // Per step: a step without a trained reward has no point (skipped, as a step below an alarm's minimum is).
    trained_mismatch: last(
      alarmTimeline(
        rules.trained_mismatch,
        stepSeries(steps.map((s) => ({ step: s.step, k: s.trainedDiffers, n: s.trained }))),
      ),
    ),
    ordering: last(alarmTimeline(rules.ordering, orderingSeries(inputs.ordering ?? []))),
  };
}

/** What is stored per run and alarm (monitor_alarms). */
export type PersistedAlarm = {
  runId: string;
  alarm: AlarmKey;
  state: AlarmState;
  sinceStep: number | null;
  atStep: number | null;
  value: number | null;
  message: string;
  ruleHash: string;
  fingerprint: string;
  changedAt: Date;
  evaluatedAt: Date;
};

/** A state change to record (monitor_alarm_events) and post to the webhook. */
export type AlarmTransition = {
  runId: string;
  alarm: AlarmKey;
  from: AlarmState;
  to: AlarmState;
  /** Step at which the machine entered the new state. */
  step: number | null;
  value: number | null;
  message: string;
  at: Date;
};

/**
 * The row to store after an evaluation and the transition it records, if any. A run seen for the first time starts
 * from green, so finding it already amber or red is a change (and is posted); staying in the same state keeps
 * changedAt (the "since when" of the Monitors page) and the since-step, and records nothing. The since-step is the
 * step of the recorded change: the replay may place the state's start elsewhere (it left and re-entered the state
 * between two evaluations, or old steps changed), but the page says what the alarm history says.
 */
export function planAlarmUpdate(
  previous: PersistedAlarm | null,
  computed: AlarmStatus,
  meta: { runId: string; alarm: AlarmKey; ruleHash: string; fingerprint: string; now: Date },
): { row: PersistedAlarm; transition: AlarmTransition | null } {
  const from: AlarmState = previous?.state ?? "green";
  const changed = from !== computed.state;
  const row: PersistedAlarm = {
    runId: meta.runId,
    alarm: meta.alarm,
    state: computed.state,
    sinceStep: changed || !previous ? computed.since : previous.sinceStep,
    atStep: computed.at,
    value: computed.value,
    message: computed.message,
    ruleHash: meta.ruleHash,
    fingerprint: meta.fingerprint,
    changedAt: changed || !previous ? meta.now : previous.changedAt,
    evaluatedAt: meta.now,
  };
  const transition = changed
    ? {
        runId: meta.runId,
        alarm: meta.alarm,
        from,
        to: computed.state,
        step: computed.since,
        value: computed.value,
        message: computed.message,
        at: meta.now,
      }
    : null;
  return { row, transition };
}

/** Plans every alarm of a run at once (in ALARMS order). */
export function planRunUpdate(
  previous: readonly PersistedAlarm[],
  computed: Record<AlarmKey, AlarmStatus>,
  meta: { runId: string; ruleHashes: Record<AlarmKey, string>; fingerprint: string; now: Date },
): { rows: PersistedAlarm[]; transitions: AlarmTransition[] } {
  const rows: PersistedAlarm[] = [];
  const transitions: AlarmTransition[] = [];
  for (const alarm of ALARMS) {
    const prev = previous.find((p) => p.alarm === alarm) ?? null;
    const { row, transition } = planAlarmUpdate(prev, computed[alarm], {
      runId: meta.runId,
      alarm,
      ruleHash: meta.ruleHashes[alarm],
      fingerprint: meta.fingerprint,
      now: meta.now,
    });
    rows.push(row);
    if (transition) transitions.push(transition);
  }
  return { rows, transitions };
}
