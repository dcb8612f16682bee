import { Badge } from "@/components/ui/badge.tsx";

export type AlarmView = {
  state: "green" | "amber" | "red";
  sinceStep: number | null;
  atStep: number | null;
  message: string;
};

const TONES = { green: "good", amber: "warn", red: "bad" } as const;

/** The tone of an alarm's state; neutral when it judged nothing (no data yet, or a run below its minimum evidence). */
export function alarmTone(alarm: AlarmView | null | undefined): "neutral" | "good" | "warn" | "bad" {
  return !alarm || alarm.atStep === null ? "neutral" : TONES[alarm.state];
}

/**
 * An alarm's state as a badge: "red since step 21,000"; grey "not judged" when it had nothing to judge (its title
 * says why: no data yet, or a run below its minimum evidence).
 */
export function AlarmBadge({ alarm, label }: { alarm: AlarmView | null | undefined; label?: string }) {
  const prefix = label ? `${label}: ` : "";
  if (!alarm || alarm.atStep === null) {
    return (
      <Badge tone="neutral" title={alarm?.message ?? "not evaluated yet"}>
        {prefix}not judged
      </Badge>
    );
  }
  const since = alarm.sinceStep === null ? "" : ` since step ${alarm.sinceStep.toLocaleString("en-US")}`;
  return (
    <Badge tone={TONES[alarm.state]} title={alarm.message}>
      {prefix}
      {alarm.state}
      {since}
    </Badge>
  );
}
