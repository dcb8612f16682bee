import Link from "next/link";
import { DateTime } from "@/components/ui/datetime.tsx";
import { StepLink } from "@/components/ui/id-links.tsx";
import { Table, Td, Th } from "@/components/ui/table.tsx";
import { AlarmBadge } from "@/components/monitors/alarm-badge.tsx";
import type { PersistedAlarm } from "@/lib/monitors/alarm-state.ts";
import { ALARM_LABELS, type AlarmKey } from "@/lib/monitors/rules.ts";

/** An alarm's last value as its rule reads it: a rate, a std, or the ledger's reward trend (reward hacking). */
export function formatAlarmValue(alarm: AlarmKey, v: number | null): string {
  if (v === null) return "–";
  if (alarm === "group_std") return v.toFixed(3);
  if (alarm === "hacking_agreement" || alarm === "hacking_success")
    return `${v >= 0 ? "+" : "−"}${Math.abs(v * 1000).toFixed(3)} / 1k steps`;
  return `${(v * 100).toFixed(1)}%`;
}

const SEVERITY = { red: 0, amber: 1, green: 2 } as const;

/**
 * Alarms grouped by run, the runs with the worst alarm first (red, amber, green, not yet evaluated), and within a run
 * worst first.
 */
export function sortAlarms(alarms: readonly PersistedAlarm[]): PersistedAlarm[] {
  const rank = (a: PersistedAlarm) => (a.atStep === null ? 3 : SEVERITY[a.state]);
  const worst = new Map<string, number>();
  for (const a of alarms) worst.set(a.runId, Math.min(worst.get(a.runId) ?? 3, rank(a)));
  return [...alarms].sort(
    (a, b) =>
      worst.get(a.runId)! - worst.get(b.runId)! ||
      (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0) ||
      rank(a) - rank(b),
  );
}

/**
 * Every alarm with its state, since which step and since when, its last value and the state machine's message. Rows
 * of one run are adjacent (sortAlarms); the run is named once, on its first row.
 */
export function AlarmTable({ alarms, showRun = true }: { alarms: readonly PersistedAlarm[]; showRun?: boolean }) {
  return (
    <Table>
      <thead>
        <tr>
          {showRun && <Th>Run</Th>}
          <Th>Alarm</Th>
          <Th>State</Th>
          <Th numeric>Since step</Th>
          <Th>Since</Th>
          <Th numeric>Last step</Th>
          <Th numeric>Value</Th>
          <Th>Why</Th>
        </tr>
      </thead>
      <tbody>
        {alarms.map((a, i) => (
          <tr
            key={`${a.runId}/${a.alarm}`}
            data-run={a.runId}
            data-alarm={a.alarm}
            data-state={a.atStep === null ? "none" : a.state}
          >
            {showRun && (i === 0 || alarms[i - 1].runId !== a.runId) && (
              <Td className="bg-bg">
                <span className="sr-only">run </span>
                <Link className="font-medium text-accent hover:underline" href={`/runs/${encodeURIComponent(a.runId)}`}>
                  {a.runId}
                </Link>
              </Td>
            )}
            {showRun && i > 0 && alarms[i - 1].runId === a.runId && <Td />}
            <Td>{ALARM_LABELS[a.alarm]}</Td>
            <Td>
              <AlarmBadge alarm={a} />
            </Td>
            <Td numeric>{a.sinceStep === null ? "–" : <StepLink runId={a.runId} step={a.sinceStep} />}</Td>
            <Td>{a.atStep === null ? <span className="text-fg-subtle">–</span> : <DateTime value={a.changedAt} />}</Td>
            <Td numeric>{a.atStep === null ? "–" : <StepLink runId={a.runId} step={a.atStep} />}</Td>
            <Td numeric>{formatAlarmValue(a.alarm, a.value)}</Td>
            <Td className="max-w-[28rem] text-[12px] text-fg-muted">{a.message}</Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
