import Link from "next/link";
import { Badge } from "@/components/ui/badge.tsx";
import { Head, Table, Td, numeric } from "@/components/ui/table.tsx";
import { fmtInt, fmtPct, fmtScore } from "@/components/ui/format.ts";
import { AlarmBadge, alarmTone } from "@/components/monitors/alarm-badge.tsx";
import type { PersistedAlarm } from "@/lib/monitors/alarm-state.ts";
import { ALARM_LABELS, type AlarmKey } from "@/lib/monitors/rules.ts";
import type { Thresholds } from "@/lib/monitors/schema.ts";
import type { RunSummary } from "@/lib/runs/data.ts";

/**
 * The latest step's rate, coloured by its alarm's state: the alarm (with its hysteresis and minimums) is what says
 * whether the rate is a problem, so the badge and the alarms column never disagree. The title gives both.
 */
function RateBadge({ value, alarm, line }: { value: number | null; alarm: PersistedAlarm | undefined; line: string }) {
  const state = !alarm || alarm.atStep === null ? "not judged" : alarm.state;
  return (
    <Badge
      tone={alarmTone(alarm)}
      title={`latest step ${fmtPct(value)} (${line}); alarm ${state}: ${alarm?.message ?? "not evaluated yet"}`}
    >
      {fmtPct(value)}
    </Badge>
  );
}

/** The alarms that are not green (evaluated ones), or one "all green" badge. */
function AlarmCell({ alarms }: { alarms: readonly PersistedAlarm[] }) {
  const evaluated = alarms.filter((a) => a.atStep !== null);
  const raised = evaluated.filter((a) => a.state !== "green");
  if (evaluated.length === 0)
    return (
      <Badge tone="neutral" title={alarms[0]?.message ?? "not evaluated yet"}>
        not judged
      </Badge>
    );
  if (raised.length === 0) return <Badge tone="good">all green</Badge>;
  return (
    <div className="flex flex-col items-start gap-0.5">
      {raised.map((a) => (
        <AlarmBadge key={a.alarm} alarm={a} label={ALARM_LABELS[a.alarm]} />
      ))}
    </div>
  );
}

/**
 * Every run with its latest health: the latest step's guardrail hit rate and hand-off rate (coloured by their alarms),
 * success and mean reward, and its raised alarms.
 */
export function RunsTable({
  runs,
  alarms,
  thresholds,
}: {
  runs: RunSummary[];
  alarms: ReadonlyMap<string, readonly PersistedAlarm[]>;
  thresholds: ReadonlyMap<string, Thresholds>;
}) {
  return (
    <Table>
      <Head
        cols={[
          "Run",
          ...numeric("Rollouts", "Steps", "Latest step", "Hit rate", "Hand-off", "Success", "Mean reward"),
          "Alarms",
        ]}
      />
      <tbody>
        {runs.map((r) => {
          const t = thresholds.get(r.id);
          const l = r.latest;
          const alarm = (key: AlarmKey) => alarms.get(r.id)?.find((a) => a.alarm === key);
          return (
            <tr key={r.id} className="hover:bg-bg-subtle" data-run={r.id}>
              <Td>
                <Link className="font-medium text-accent hover:underline" href={`/runs/${encodeURIComponent(r.id)}`}>
                  {r.id}
                </Link>
                {r.description && <div className="text-[11px] text-fg-muted">{r.description}</div>}
              </Td>
              <Td numeric>{fmtInt(r.rollouts)}</Td>
              <Td numeric>{r.firstStep === null ? "–" : `${fmtInt(r.firstStep)}–${fmtInt(r.lastStep)}`}</Td>
              <Td numeric>{l ? fmtInt(l.step) : "–"}</Td>
              <Td numeric>
                {l && t ? (
                  <RateBadge
                    value={l.guardrailHitRate}
                    alarm={alarm("hit_rate")}
                    line={`healthy ${fmtPct(t.hitRateLow, 0)}–${fmtPct(t.hitRateHigh, 0)}`}
                  />
                ) : (
                  "–"
                )}
              </Td>
              <Td numeric>
                {l && t ? (
                  <RateBadge
                    value={l.handoffRate}
                    alarm={alarm("handoff")}
                    line={`alarm above ${fmtPct(t.handoffCeiling, 0)}`}
                  />
                ) : (
                  "–"
                )}
              </Td>
              <Td numeric>{fmtPct(l?.successRate)}</Td>
              <Td numeric>{fmtScore(l?.meanReward)}</Td>
              <Td>
                <AlarmCell alarms={alarms.get(r.id) ?? []} />
              </Td>
            </tr>
          );
        })}
      </tbody>
    </Table>
  );
}
