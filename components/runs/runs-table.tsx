import Link from "next/link";
import { Badge } from "@/components/ui/badge.tsx";
import { Table, Td, Th } from "@/components/ui/table.tsx";
import { fmtInt, fmtPct, fmtScore } from "@/components/ui/format.ts";
import { AlarmBadge } from "@/components/monitors/alarm-badge.tsx";
import type { PersistedAlarm } from "@/lib/monitors/alarm-state.ts";
import { ALARM_LABELS } from "@/lib/monitors/rules.ts";
import type { Thresholds } from "@/lib/monitors/schema.ts";
import type { RunSummary } from "@/lib/runs/data.ts";

type Tone = "neutral" | "good" | "warn" | "bad";

function bandTone(v: number | null, t: Thresholds): Tone {
  return v === null ? "neutral" : v < t.hitRateLow || v > t.hitRateHigh ? "warn" : "good";
}
function ceilingTone(v: number | null, t: Thresholds): Tone {
  return v === null ? "neutral" : v > t.handoffCeiling ? "bad" : v > 0.8 * t.handoffCeiling ? "warn" : "good";
}

/** The alarms that are not green (evaluated ones), or one "all green" badge. */
function AlarmCell({ alarms }: { alarms: readonly PersistedAlarm[] }) {
  const evaluated = alarms.filter((a) => a.atStep !== null);
  const raised = evaluated.filter((a) => a.state !== "green");
  if (evaluated.length === 0) return <Badge tone="neutral">no data</Badge>;
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
 * Every run with its latest health: the latest step's guardrail hit rate (against the healthy band), hand-off rate
 * (against the alarm line), success and mean reward, and its raised alarms.
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
      <thead>
        <tr>
          <Th>Run</Th>
          <Th numeric>Rollouts</Th>
          <Th numeric>Steps</Th>
          <Th numeric>Latest step</Th>
          <Th numeric>Hit rate</Th>
          <Th numeric>Hand-off</Th>
          <Th numeric>Success</Th>
          <Th numeric>Mean reward</Th>
          <Th>Alarms</Th>
        </tr>
      </thead>
      <tbody>
        {runs.map((r) => {
          const t = thresholds.get(r.id);
          const l = r.latest;
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
                {l && t ? <Badge tone={bandTone(l.guardrailHitRate, t)}>{fmtPct(l.guardrailHitRate)}</Badge> : "–"}
              </Td>
              <Td numeric>
                {l && t ? <Badge tone={ceilingTone(l.handoffRate, t)}>{fmtPct(l.handoffRate)}</Badge> : "–"}
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
