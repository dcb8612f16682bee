"use client";
// Shared pieces of the step charts: the shared step axis, value formats, colours, and the tooltip that lists every
// column of the hovered row with its exact value (the chart draws rounded lines; the tooltip is where numbers are
// read). Presentational.
import { useRouter } from "next/navigation";
import type { ReactNode } from "react";
import { Line, ReferenceArea, ReferenceLine } from "recharts";
import { stepHref } from "@/components/ui/id-links.tsx";
import type { ScoreChangeMark } from "@/lib/monitors/score-change-data.ts";
import { runKey, type Column, type ColumnFormat, type Row } from "@/lib/monitors/series.ts";

export const CHART_HEIGHT = 230;
export const MARGIN = { top: 8, right: 16, bottom: 4, left: 0 };

/** Colours by role; the second run of a comparison is drawn dashed in the same colour. */
export const COLORS = {
  main: "var(--accent)",
  good: "var(--good)",
  warn: "var(--warn)",
  bad: "var(--bad)",
  muted: "var(--fg-muted)",
};

/** One colour per guardrail, in verifier.md table order (distinct in light and dark themes). */
const GUARDRAIL_COLORS: Record<string, string> = {
  customer_harm: "#d1495b",
  unauthorized_write: "#e07a1f",
  duplicate_side_effect: "#8f6bd6",
  empty_promise: "#c2a100",
  policy_error: "#2a9d8f",
  missing_evidence: "#3d7be0",
  high_risk_unchecked: "#b5179e",
  approval_bypass: "#6a994e",
  privacy_overreach: "#9c6644",
  stale_submission: "#577590",
  tool_missing: "#7f7f7f",
};
export function guardrailColor(code: string): string {
  return GUARDRAIL_COLORS[code] ?? "#7f7f7f";
}

/** Second-run lines: dashed. */
export const DASH_B = "6 3";

/**
 * The second run's colour for each series colour the charts use: a distinct hue (not a shade of the first run's), so
 * the two runs of a comparison differ in colour as well as in dash, and each keeps its own legend entry.
 */
const SECOND_RUN_COLORS: Record<string, string> = {
  [COLORS.main]: "#f4a261",
  [COLORS.good]: "#b5179e",
  [COLORS.warn]: "#8f6bd6",
  [COLORS.bad]: "#2a9d8f",
  [COLORS.muted]: "#9c6644",
  [GUARDRAIL_COLORS.missing_evidence]: "#c2a100",
  [GUARDRAIL_COLORS.unauthorized_write]: "#577590",
};

/** The colour of a series for run i of a comparison (0: the series' own colour; 1: its second-run colour). */
export function runStroke(color: string, i: number): string {
  return i === 0 ? color : (SECOND_RUN_COLORS[color] ?? "#6a994e");
}

/** One series drawn once per run of a comparison: the first run solid, the second dashed in its second-run colour. */
export function runLines(
  runIds: readonly string[],
  key: string,
  name: (id: string) => string,
  stroke: string,
  yAxisId?: string,
): ReactNode[] {
  return runIds.map((id, i) => (
    <Line
      key={id}
      yAxisId={yAxisId}
      dataKey={runKey(key, i)}
      name={name(id)}
      stroke={runStroke(stroke, i)}
      strokeWidth={2}
      strokeDasharray={i === 1 ? DASH_B : undefined}
      dot={false}
      connectNulls
      isAnimationActive={false}
    />
  ));
}

export function formatValue(format: ColumnFormat, v: number | null | undefined, precise = false): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return "–";
  if (format === "percent") return `${(v * 100).toFixed(precise ? 2 : 0)}%`;
  if (format === "count") return Math.round(v).toLocaleString("en-US");
  return v.toFixed(precise ? 4 : 2);
}

// Tick labels in their shortest exact form (recharts' ticks are round numbers): rounding to a fixed precision printed
// 0.5% and 1.5% as "1%" and "2%", and 0.0025 as "0.00", so an axis over a small range repeated its labels.
export const pctTick = (v: number) => `${Number((v * 100).toFixed(6))}%`;
export const numTick = (v: number) => String(Number(v.toFixed(6)));
/** 12000 → "12k", 22500 → "22.5k"; steps stay readable on a narrow axis without being rounded to a wrong step. */
export const stepTick = (v: number) =>
  Math.abs(v) >= 1000 ? `${Number((v / 1000).toFixed(Math.abs(v) % 1000 === 0 ? 0 : 1))}k` : String(v);

/** Props of the shared step axis: numeric, fixed to the zoomed range (points outside are clipped). */
export function stepAxisProps(range: { from: number; to: number }) {
  return {
    dataKey: "step",
    type: "number" as const,
    domain: [range.from, range.to] as [number, number],
    allowDataOverflow: true,
    tickFormatter: stepTick,
    tick: { fontSize: 11, fill: "var(--fg-muted)" },
    stroke: "var(--border)",
  };
}

export const yTick = { fontSize: 11, fill: "var(--fg-muted)" };

type TooltipArgs = { active?: boolean; payload?: readonly { payload?: unknown }[] };

/**
 * Tooltip body: the step (or step range of a bucket) and every column of the table for that point, exact. Columns
 * are grouped by run when two runs are overlaid.
 */
export function StepTooltip({
  active,
  payload,
  columns,
  bucket,
}: TooltipArgs & { columns: readonly Column[]; bucket: number }): ReactNode {
  const row = payload?.[0]?.payload as Row | undefined;
  if (!active || !row) return null;
  return (
    <div className="rounded border border-border bg-bg px-2 py-1.5 text-[12px] shadow-sm" role="status">
      <div className="mb-1 font-semibold">
        {bucket > 1 ? `steps ${row.step}–${row.step + bucket - 1}` : `step ${row.step}`}
      </div>
      <table>
        <tbody>
          {columns.map((c) => (
            <tr key={c.key}>
              <td className="pr-3 text-fg-muted">{c.label}</td>
              <td className="num text-right">{formatValue(c.format, row[c.key], true)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="mt-1 text-[11px] text-fg-muted">click to open these rollouts</div>
    </div>
  );
}

/**
 * A click on a step chart opens the trajectory browser on the clicked point's steps (a bucket or audit window of
 * `span` steps) of the first run: spread onto the chart (`<ComposedChart {...openStep}>`). The tooltip says so.
 */
export function useOpenStep(runId: string | undefined, span: number) {
  const router = useRouter();
  return {
    onClick: (state: { activeLabel?: unknown } | null) => {
      const step = Number(state?.activeLabel);
      if (runId !== undefined && state?.activeLabel !== undefined && Number.isFinite(step))
        router.push(stepHref(runId, step, span));
    },
    style: { cursor: "pointer" },
  };
}

/** A line under a chart explaining what is shaded or drawn as a reference (the legend lists only data series). */
export function ChartNote({ children }: { children: ReactNode }) {
  return <p className="px-3 pb-2 text-[11px] text-fg-muted">{children}</p>;
}

/** A fix that changed scores at this many distinct steps or fewer is drawn as one line per step, else as its range. */
const MAX_MARK_LINES = 12;

/**
 * The steps where a spec or config fix changed scores (score_change_marks), as reference marks on a step chart: a
 * line per changed step, or a shaded range when it changed many; the label ("spec fix T-123 v2, 14 entries") sits on
 * the first. Marks outside the zoomed range are left out.
 */
export function scoreChangeMarks(
  marks: readonly ScoreChangeMark[] | undefined,
  range: { from: number; to: number },
): ReactNode[] {
  const out: ReactNode[] = [];
  for (const m of marks ?? []) {
    const label = { value: m.label, position: "insideTopRight" as const, fontSize: 10, fill: "var(--fg-muted)" };
    const steps = m.steps?.map((s) => s.step).filter((s) => s >= range.from && s <= range.to);
    if (steps && steps.length <= MAX_MARK_LINES) {
      steps.forEach((step, i) =>
        out.push(
          <ReferenceLine
            key={`mark-${m.id}-${step}`}
            x={step}
            stroke="var(--accent)"
            strokeDasharray="2 2"
            ifOverflow="hidden"
            label={i === 0 ? label : undefined}
          />,
        ),
      );
    } else {
      out.push(
        <ReferenceArea
          key={`mark-${m.id}`}
          x1={Math.max(m.stepMin, range.from)}
          x2={Math.min(m.stepMax, range.to)}
          fill="var(--accent)"
          fillOpacity={0.06}
          stroke="var(--accent)"
          strokeOpacity={0.3}
          ifOverflow="hidden"
          label={label}
        />,
      );
    }
  }
  return out;
}
