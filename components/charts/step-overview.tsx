"use client";
import { Brush, ComposedChart, Line, ResponsiveContainer, XAxis, YAxis } from "recharts";
import { COLORS, stepTick } from "@/components/charts/chart-kit.tsx";

/** One point of the overview: a step, or a bucket of steps [step, stepTo]. */
export type OverviewPoint = { step: number; stepTo: number; hitRate: number | null; handoffRate: number | null };

/** Index of the first point at or after `step` (points ascending). */
function indexAtOrAfter(points: readonly OverviewPoint[], step: number): number {
  const i = points.findIndex((p) => p.step >= step);
  return i < 0 ? points.length - 1 : i;
}
/** Index of the last point at or before `step`. */
function indexAtOrBefore(points: readonly OverviewPoint[], step: number): number {
  for (let i = points.length - 1; i >= 0; i--) if (points[i].step <= step) return i;
  return 0;
}

/**
 * The whole run at a glance (hit rate and hand-off rate) with a brush over it: dragging the brush picks the step
 * range every chart of the page shows. `onSelect` gets the steps at the brush's ends when a drag ends.
 */
export function StepOverview({
  points,
  range,
  onSelect,
}: {
  points: readonly OverviewPoint[];
  range: { from: number; to: number };
  onSelect: (from: number, to: number) => void;
}) {
  if (points.length < 2) return null;
  const startIndex = indexAtOrAfter(points, range.from);
  const endIndex = Math.max(startIndex, indexAtOrBefore(points, range.to));
  return (
    <div style={{ height: 84 }} data-chart="overview">
      <ResponsiveContainer width="100%" height="100%">
        <ComposedChart data={[...points]} margin={{ top: 4, right: 16, bottom: 0, left: 44 }}>
          <XAxis dataKey="step" hide />
          <YAxis hide domain={[0, "auto"]} />
          <Line dataKey="hitRate" stroke={COLORS.main} dot={false} strokeWidth={1} isAnimationActive={false} />
          <Line dataKey="handoffRate" stroke={COLORS.warn} dot={false} strokeWidth={1} isAnimationActive={false} />
          <Brush
            key={`${startIndex}-${endIndex}`}
            dataKey="step"
            height={26}
            startIndex={startIndex}
            endIndex={endIndex}
            tickFormatter={(v: number) => stepTick(v)}
            stroke="var(--accent)"
            fill="var(--bg-subtle)"
            travellerWidth={8}
            ariaLabel="Step range of all charts"
            onDragEnd={(r) => {
              const s = r?.startIndex ?? 0;
              const e = r?.endIndex ?? points.length - 1;
              onSelect(points[s].step, points[e].stepTo);
            }}
          />
        </ComposedChart>
      </ResponsiveContainer>
    </div>
  );
}
