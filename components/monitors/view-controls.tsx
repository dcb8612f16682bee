"use client";
import { StepOverview } from "@/components/charts/step-overview.tsx";
import { RangeControl } from "@/components/monitors/range-control.tsx";
import type { ChartView } from "@/components/monitors/use-chart-view.ts";
import { FieldError } from "@/components/ui/field.tsx";
import type { ChartData } from "@/lib/monitors/loaders.ts";
import { SMOOTHING, type ChartQueryErrors } from "@/lib/monitors/schema.ts";

/** "steps 1,000–2,000". */
export const stepSpan = (from: number, to: number) =>
  `steps ${from.toLocaleString("en-US")}–${to.toLocaleString("en-US")}`;

/** The controls above the run charts: the step range (typed or brushed on the overview) and smoothing. */
export function ViewControls({
  data,
  view,
  errors,
  given,
}: {
  data: ChartData;
  view: ChartView;
  errors: ChartQueryErrors["fields"];
  given: Record<string, string>;
}) {
  const { range, extent, bucket } = data;
  const { smooth, smoothError } = view;
  return (
    <section aria-label="Step range and view" className="rounded-md border border-border bg-bg px-3 py-2">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <RangeControl
          key={`${range.from}-${range.to}-${errors.from ?? ""}-${errors.to ?? ""}`}
          range={range}
          extent={extent}
          pending={view.pending}
          onApply={view.zoom}
          given={{ from: given.from, to: given.to }}
          errors={{ from: errors.from, to: errors.to }}
        />
        <div className="flex flex-col text-[12px]">
          <label className="flex items-center gap-1.5">
            <span className="text-fg-muted">Smoothing</span>
            <select
              className="rounded border border-border bg-bg px-1 py-0.5 aria-[invalid=true]:border-bad"
              value={smooth}
              onChange={(e) => view.setSmoothing(Number(e.target.value))}
              aria-invalid={smoothError ? true : undefined}
              aria-describedby={smoothError ? "smooth-error" : undefined}
            >
              {SMOOTHING.map((w) => (
                <option key={w} value={w}>
                  {w === 1 ? "none" : `moving average, ${w} points`}
                </option>
              ))}
            </select>
          </label>
          <FieldError id="smooth-error" errors={smoothError ? [`smooth ${smoothError}`] : undefined} />
        </div>
      </div>
      <StepOverview points={data.overview} range={range} onSelect={view.zoom} />
      <ScoreChangeList marks={data.marks} />
      <p className="text-[11px] text-fg-muted">
        Drag the brush or type a range to zoom every chart.
        {bucket > 1 &&
          ` Each point pools ${bucket.toLocaleString("en-US")} steps (the range has more steps than a chart can draw).`}
        {smooth > 1 && ` Smoothed: each point pools the counts of the last ${smooth} points.`}
      </p>
    </section>
  );
}

/** The fixes that changed scores in the shown steps, as a list beside their marks on the charts. */
function ScoreChangeList({ marks }: { marks: ChartData["marks"] }) {
  if (marks.length === 0) return null;
  return (
    <div className="mt-1 text-[11px]" data-testid="score-change-marks">
      <p className="text-fg-muted">Fixes that changed scores in these steps (marked on the step charts):</p>
      <ul className="list-disc pl-4">
        {marks.map((m) => (
          <li key={m.id}>
            {m.label}:{" "}
            {m.steps && m.steps.length <= 12
              ? `step${m.steps.length === 1 ? "" : "s"} ${m.steps.map((x) => x.step.toLocaleString("en-US")).join(", ")}`
              : stepSpan(m.stepMin, m.stepMax)}
          </li>
        ))}
      </ul>
    </div>
  );
}
