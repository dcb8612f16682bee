import { ReasonList, type Reason } from "@/components/trajectory/reason-list.tsx";
import { fmtScore } from "@/components/ui/format.ts";

const DIMS = ["outcome", "policy", "evidence", "efficiency", "communication"] as const;
type Dim = (typeof DIMS)[number];

/** Each sub-score against its weight: the share of the reward it contributed and lost, with its reasons. */
export function SubscoresPanel({
  scores,
  weights,
  reasons,
}: {
  scores: Record<Dim, number | null>;
  weights: Record<Dim, number>;
  reasons: Reason[];
}) {
  return (
    <div className="divide-y divide-border">
      {DIMS.map((d) => {
        const s = scores[d];
        const w = weights[d];
        const mine = reasons.filter((r) => r.dimension === d);
        return (
          <div key={d} className="px-3 py-2" data-testid={`subscore-${d}`}>
            <div className="grid grid-cols-[110px_1fr_150px] items-center gap-2">
              <span className="font-medium">{d}</span>
              <div className="relative h-3 rounded bg-bg-muted" title={`weight ${w}`}>
                <div
                  className="absolute inset-y-0 left-0 rounded bg-bg-subtle outline outline-1 outline-border"
                  style={{ width: `${w * 100}%` }}
                />
                <div
                  className="absolute inset-y-0 left-0 rounded bg-accent/70"
                  style={{ width: `${(s ?? 0) * w * 100}%` }}
                />
              </div>
              <span className="num text-right text-[12px]">
                {fmtScore(s)} × {w.toFixed(2)} = <b>{s === null ? "–" : (s * w).toFixed(3)}</b>
                {s !== null && s < 1 && <span className="text-bad"> (−{((1 - s) * w).toFixed(3)})</span>}
              </span>
            </div>
            {mine.length > 0 && (
              <div className="mt-1">
                <ReasonList reasons={mine} />
              </div>
            )}
          </div>
        );
      })}
    </div>
  );
}
