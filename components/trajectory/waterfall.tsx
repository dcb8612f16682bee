import { fmtScore } from "@/components/ui/format.ts";
import { cn } from "@/components/ui/cn.ts";
import { SUCCESS_THRESHOLD } from "@/lib/stats/agreement.ts";

type Cap = { code: string; cap: number };

const SUCCESS = SUCCESS_THRESHOLD;

/**
 * The reward waterfall: raw reward, each triggered cap (lowest last), and the final reward, on one 0–1 scale, so
 * "why 0.31?" reads left to right.
 */
export function RewardWaterfall({
  raw,
  reward,
  caps,
  deciding,
}: {
  raw: number | null;
  reward: number | null;
  caps: Cap[];
  deciding: string | null;
}) {
  if (raw === null || reward === null)
    return <p className="px-3 py-2 text-fg-muted">No reward: this record is an error (see the reasons).</p>;
  const sorted = [...caps].sort((a, b) => b.cap - a.cap);
  const rows: { label: string; value: number; kind: "raw" | "cap" | "final"; active?: boolean; note?: string }[] = [
    { label: "raw reward", value: raw, kind: "raw", note: "weighted sum of the sub-scores" },
    ...sorted.map((c) => ({
      label: `cap · ${c.code}`,
      value: c.cap,
      kind: "cap" as const,
      active: c.code === deciding,
      note:
        c.cap < raw
          ? c.code === deciding
            ? "deciding: the lowest cap"
            : "caps, but a lower cap decides"
          : "above the raw reward: no effect",
    })),
    { label: "reward", value: reward, kind: "final", note: deciding ? `min(raw, ${deciding} cap)` : "no cap applied" },
  ];
  return (
    <div className="space-y-1 px-3 py-2" data-testid="waterfall">
      <p className="flex items-center gap-1 text-[11px] text-fg-muted">
        <span aria-hidden className="inline-block h-3 border-l-2 border-dashed border-good" />
        dashed line: success at {SUCCESS} (a reward at or above it counts as a success)
      </p>
      {rows.map((r, i) => (
        <div key={i} className="grid grid-cols-[13rem_1fr_56px] items-center gap-2">
          {/* wide enough for "cap · duplicate_side_effect", and wrapping rather than cut where it is not */}
          <span className={cn("break-words text-[12px]", r.active && "font-semibold text-bad")}>{r.label}</span>
          <div className="relative h-4 rounded bg-bg-muted">
            <div
              className={cn(
                "absolute inset-y-0 left-0 rounded",
                r.kind === "raw" && "bg-accent/60",
                r.kind === "cap" && (r.active ? "bg-bad/70" : "bg-warn/40"),
                r.kind === "final" && "bg-good/70",
              )}
              style={{ width: `${Math.max(0, Math.min(1, r.value)) * 100}%` }}
            />
            {r.kind === "raw" && (
              <div
                className="absolute inset-y-0 border-l-2 border-dashed border-good"
                style={{ left: `${SUCCESS * 100}%` }}
                role="img"
                aria-label={`success line ${SUCCESS}`}
                data-testid="success-line"
              />
            )}
          </div>
          <span className="num text-right font-medium">{fmtScore(r.value)}</span>
          <span />
          <span className="-mt-1 text-[11px] text-fg-subtle">{r.note}</span>
          <span />
        </div>
      ))}
    </div>
  );
}
