import { Badge } from "@/components/ui/badge.tsx";
import { fmtPct } from "@/components/ui/format.ts";
import { STATUS_LABELS, type ClusterStatus } from "@/lib/clusters/schema.ts";
import type { Trend } from "@/lib/clusters/bins.ts";

const STATUS_TONE: Record<ClusterStatus, "neutral" | "warn" | "good" | "accent"> = {
  open: "neutral",
  data_requested: "warn",
  fixed: "good",
  wont_fix: "neutral",
};

export function StatusBadge({ status }: { status: ClusterStatus }) {
  return <Badge tone={STATUS_TONE[status]}>{STATUS_LABELS[status]}</Badge>;
}

/** "12.0% → 3.4%" with the direction coloured: a growing cluster is the warning. */
export function EarlyLate({ trend }: { trend: Trend }) {
  if (trend.early === null || trend.late === null) return <span className="text-fg-subtle">–</span>;
  const up = trend.late > trend.early * 1.1 && trend.late - trend.early > 0.001;
  const down = trend.late < trend.early * 0.9;
  return (
    <span
      className={up ? "text-bad" : down ? "text-good" : "text-fg-muted"}
      title="share of rollouts in the first third of the window → in the last third"
    >
      {fmtPct(trend.early)} → {fmtPct(trend.late)}
    </span>
  );
}

/** A share's slope per step as percentage points per 1,000 steps. */
export function fmtSlope(slope: number | null): string {
  return slope === null ? "–" : `${slope >= 0 ? "+" : ""}${(slope * 1e5).toFixed(2)} pt/1k`;
}

export function fmtPriority(score: number | null | undefined): string {
  return score === null || score === undefined ? "–" : score.toFixed(4);
}
