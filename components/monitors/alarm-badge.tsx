import { Badge } from "@/components/ui/badge.tsx";

export type AlarmView = {
  state: "green" | "amber" | "red";
  sinceStep: number | null;
  atStep: number | null;
  message: string;
};

const TONES = { green: "good", amber: "warn", red: "bad" } as const;

/** An alarm's state as a badge: "red since step 21,000"; grey when there was nothing to evaluate yet. */
export function AlarmBadge({ alarm, label }: { alarm: AlarmView | null | undefined; label?: string }) {
  const prefix = label ? `${label}: ` : "";
  if (!alarm || alarm.atStep === null) {
    return (
      <Badge tone="neutral" title={alarm?.message ?? "not evaluated yet"}>
        {prefix}no data
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
