import Link from "next/link";
import { DateTime } from "@/components/ui/datetime.tsx";
import { StepLink } from "@/components/ui/id-links.tsx";
import { Table, Td, Th } from "@/components/ui/table.tsx";
import { AlarmBadge } from "@/components/monitors/alarm-badge.tsx";
import { formatAlarmValue } from "@/components/monitors/alarm-table.tsx";
import type { AlarmEventRow } from "@/lib/monitors/data.ts";
import { ALARM_LABELS } from "@/lib/monitors/rules.ts";

/** Alarm state changes, newest first, with the outcome of their webhook post. */
export function AlarmEvents({ events, showRun = true }: { events: readonly AlarmEventRow[]; showRun?: boolean }) {
  return (
    <Table>
      <thead>
        <tr>
          <Th>When</Th>
          {showRun && <Th>Run</Th>}
          <Th>Alarm</Th>
          <Th>Change</Th>
          <Th numeric>At step</Th>
          <Th numeric>Value</Th>
          <Th>Webhook</Th>
        </tr>
      </thead>
      <tbody>
        {events.map((e) => (
          <tr key={e.id.toString()}>
            <Td>
              <DateTime value={e.at} />
            </Td>
            {showRun && (
              <Td>
                <Link className="text-accent hover:underline" href={`/runs/${encodeURIComponent(e.runId)}`}>
                  {e.runId}
                </Link>
              </Td>
            )}
            <Td>{ALARM_LABELS[e.alarm]}</Td>
            <Td>
              <span className="inline-flex items-center gap-1">
                <AlarmBadge alarm={{ state: e.fromState, sinceStep: null, atStep: 0, message: "" }} /> →{" "}
                <AlarmBadge alarm={{ state: e.toState, sinceStep: null, atStep: 0, message: e.message }} />
              </span>
            </Td>
            <Td numeric>{e.step === null ? "–" : <StepLink runId={e.runId} step={e.step} />}</Td>
            <Td numeric>{formatAlarmValue(e.alarm, e.value)}</Td>
            <Td className="text-[12px] text-fg-muted">{e.webhook ?? "not configured"}</Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
