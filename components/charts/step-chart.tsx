"use client";
// The frame every run chart shares: the step axis fixed to the zoomed range, the grid, the score-change marks, the
// exact-value tooltip, the legend, and a click that opens the clicked steps' rollouts. Each chart hands in only what
// is its own: its y axes and reference marks (`axes`, drawn under the marks) and its series (`children`).
import type { ReactNode } from "react";
import {
  CartesianGrid,
  ComposedChart,
  Legend,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import {
  CHART_HEIGHT,
  MARGIN,
  scoreChangeMarks,
  StepTooltip,
  stepAxisProps,
  useOpenStep,
  yTick,
} from "@/components/charts/chart-kit.tsx";
import type { ScoreChangeMark } from "@/lib/monitors/score-change-data.ts";
import { runKey, type ChartTable, type Row } from "@/lib/monitors/series.ts";

/** What every run chart takes from the monitors page. */
export type StepChartProps = {
  table: ChartTable;
  runIds: readonly string[];
  range: { from: number; to: number };
  bucket: number;
  /** Steps where a spec or config fix changed scores. */
  marks?: readonly ScoreChangeMark[];
};

export function StepChart({
  name,
  table,
  rows = table.rows,
  runIds,
  range,
  axisRange = range,
  span,
  marks,
  axes,
  children,
}: {
  /** The chart's `data-chart` name. */
  name: string;
  table: ChartTable;
  rows?: Row[];
  runIds: readonly string[];
  range: { from: number; to: number };
  /** The x axis' range when it starts before `range` (an audit window that covers part of the zoomed range). */
  axisRange?: { from: number; to: number };
  /** Steps one point covers: a bucket or an audit window. */
  span: number;
  marks?: readonly ScoreChangeMark[];
  axes: ReactNode[];
  children: ReactNode;
}) {
  const openStep = useOpenStep(runIds[0], span);
  return (
    <div style={{ height: CHART_HEIGHT }} data-chart={name}>
      <ResponsiveContainer width="100%" height="100%">
        <ComposedChart data={rows} margin={MARGIN} {...openStep}>
          <CartesianGrid stroke="var(--border)" strokeDasharray="2 4" />
          <XAxis {...stepAxisProps(axisRange)} />
          {axes}
          {scoreChangeMarks(marks, range)}
          <Tooltip
            content={(p) => <StepTooltip {...p} columns={table.columns} bucket={span} />}
            isAnimationActive={false}
          />
          <Legend wrapperStyle={{ fontSize: 11 }} />
          {children}
        </ComposedChart>
      </ResponsiveContainer>
    </div>
  );
}

/** A y axis of a run chart: its tick format and domain, the shared tick style and width. */
export function valueAxis(
  tickFormatter: (v: number) => string,
  domain: [number, number | string | ((max: number) => number)],
  more: { yAxisId?: string; orientation?: "right"; allowDataOverflow?: boolean } = {},
): ReactNode {
  return (
    <YAxis
      key={`y-${more.yAxisId ?? "main"}`}
      tickFormatter={tickFormatter}
      tick={yTick}
      stroke="var(--border)"
      width={44}
      domain={domain}
      {...more}
    />
  );
}

/** The dashed red line of an alarm threshold, labelled. */
export function alarmLine(
  y: number,
  label: string,
  position: "insideTopLeft" | "insideBottomLeft",
  yAxisId?: string,
): ReactNode {
  return (
    <ReferenceLine
      key="alarm"
      yAxisId={yAxisId}
      y={y}
      stroke="var(--bad)"
      strokeDasharray="4 3"
      ifOverflow="extendDomain"
      label={{ value: label, position, fontSize: 11, fill: "var(--bad)" }}
    />
  );
}

/** "alarm 2.5%": a share threshold as its alarm line's label. */
export const alarmPct = (ceiling: number) => `alarm ${Math.round(ceiling * 1000) / 10}%`;

/** The [low, high] band of column `key` (`<key>Low`, `<key>High`) for run i, or null where either end is missing. */
export function bandOf(key: string, i: number) {
  return (r: Row): [number, number] | null => {
    const lo = r[runKey(`${key}Low`, i)];
    const hi = r[runKey(`${key}High`, i)];
    return lo === null || hi === null || lo === undefined || hi === undefined ? null : [lo, hi];
  };
}

/** A series' legend name: prefixed with its run when two runs are overlaid. */
export function runLabel(runIds: readonly string[], id: string, label: string): string {
  return runIds.length > 1 ? `${id}: ${label}` : label;
}
