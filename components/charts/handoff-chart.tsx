"use client";
import {
  CartesianGrid,
  ComposedChart,
  Legend,
  ReferenceArea,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import {
  CHART_HEIGHT,
  COLORS,
  runLines,
  MARGIN,
  pctTick,
  StepTooltip,
  stepAxisProps,
  yTick,
  scoreChangeMarks,
  useOpenStep,
} from "@/components/charts/chart-kit.tsx";
import type { ScoreChangeMark } from "@/lib/monitors/score-change-data.ts";
import type { ChartTable } from "@/lib/monitors/series.ts";

/**
 * Hand-off rate with its alarm line. When the (first run's) alarm is red, the steps since it turned red are shaded.
 */
export function HandoffChart({
  table,
  runIds,
  range,
  bucket,
  marks,
  ceiling,
  redSince,
}: {
  table: ChartTable;
  runIds: readonly string[];
  range: { from: number; to: number };
  bucket: number;
  /** Steps where a spec or config fix changed scores. */
  marks?: readonly ScoreChangeMark[];
  ceiling: number;
  redSince: number | null;
}) {
  const openStep = useOpenStep(runIds[0], bucket);
  return (
    <div style={{ height: CHART_HEIGHT }} data-chart="handoff">
      <ResponsiveContainer width="100%" height="100%">
        <ComposedChart data={table.rows} margin={MARGIN} {...openStep}>
          <CartesianGrid stroke="var(--border)" strokeDasharray="2 4" />
          <XAxis {...stepAxisProps(range)} />
          <YAxis
            tickFormatter={pctTick}
            tick={yTick}
            stroke="var(--border)"
            width={44}
            domain={[0, (max: number) => Math.min(1, Math.max(max, ceiling * 1.5))]}
          />
          {redSince !== null && redSince <= range.to && (
            <ReferenceArea
              x1={Math.max(redSince, range.from)}
              x2={range.to}
              fill="var(--bad)"
              fillOpacity={0.08}
              stroke="none"
            />
          )}
          <ReferenceLine
            y={ceiling}
            stroke="var(--bad)"
            strokeDasharray="4 3"
            ifOverflow="extendDomain"
            label={{
              value: `alarm ${Math.round(ceiling * 1000) / 10}%`,
              position: "insideTopLeft",
              fontSize: 11,
              fill: "var(--bad)",
            }}
          />
          {scoreChangeMarks(marks, range)}
          <Tooltip
            content={(p) => <StepTooltip {...p} columns={table.columns} bucket={bucket} />}
            isAnimationActive={false}
          />
          <Legend wrapperStyle={{ fontSize: 11 }} />
          {runLines(
            runIds,
            "handoffRate",
            (id) => (runIds.length > 1 ? `${id}: hand-off rate` : "hand-off rate"),
            COLORS.warn,
          )}
        </ComposedChart>
      </ResponsiveContainer>
    </div>
  );
}
