"use client";
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
  COLORS,
  runLines,
  MARGIN,
  numTick,
  StepTooltip,
  stepAxisProps,
  yTick,
  scoreChangeMarks,
  useOpenStep,
} from "@/components/charts/chart-kit.tsx";
import type { ScoreChangeMark } from "@/lib/monitors/score-change-data.ts";
import type { ChartTable } from "@/lib/monitors/series.ts";

/** Mean within-group reward std (GRPO's learning signal) with the no-gradient floor. */
export function GroupStdChart({
  table,
  runIds,
  range,
  bucket,
  marks,
  floor,
}: {
  table: ChartTable;
  runIds: readonly string[];
  range: { from: number; to: number };
  bucket: number;
  /** Steps where a spec or config fix changed scores. */
  marks?: readonly ScoreChangeMark[];
  floor: number;
}) {
  const openStep = useOpenStep(runIds[0], bucket);
  return (
    <div style={{ height: CHART_HEIGHT }} data-chart="group-std">
      <ResponsiveContainer width="100%" height="100%">
        <ComposedChart data={table.rows} margin={MARGIN} {...openStep}>
          <CartesianGrid stroke="var(--border)" strokeDasharray="2 4" />
          <XAxis {...stepAxisProps(range)} />
          <YAxis
            tickFormatter={numTick}
            tick={yTick}
            stroke="var(--border)"
            width={44}
            domain={[0, (max: number) => Math.max(max, floor * 2)]}
          />
          <ReferenceLine
            y={floor}
            stroke="var(--bad)"
            strokeDasharray="4 3"
            ifOverflow="extendDomain"
            label={{ value: `floor ${floor}`, position: "insideBottomLeft", fontSize: 11, fill: "var(--bad)" }}
          />
          {scoreChangeMarks(marks, range)}
          <Tooltip
            content={(p) => <StepTooltip {...p} columns={table.columns} bucket={bucket} />}
            isAnimationActive={false}
          />
          <Legend wrapperStyle={{ fontSize: 11 }} />
          {runLines(
            runIds,
            "meanGroupStd",
            (id) => (runIds.length > 1 ? `${id}: within-group std` : "mean within-group reward std"),
            COLORS.main,
          )}
        </ComposedChart>
      </ResponsiveContainer>
    </div>
  );
}
