"use client";
import { Area, CartesianGrid, ComposedChart, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import {
  CHART_HEIGHT,
  COLORS,
  runLines,
  guardrailColor,
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

/**
 * Reward removed by caps per rollout, stacked by the guardrail that decided the cap (the stack's top is the total).
 * Two overlaid runs are drawn as their totals instead: two stacks on one axis cannot be read.
 */
export function RemovedChart({
  table,
  runIds,
  range,
  bucket,
  marks,
}: {
  table: ChartTable;
  runIds: readonly string[];
  range: { from: number; to: number };
  bucket: number;
  /** Steps where a spec or config fix changed scores. */
  marks?: readonly ScoreChangeMark[];
}) {
  const codes = table.columns
    .filter((c) => c.key.startsWith("removed_") && !c.key.endsWith("__b"))
    .map((c) => c.key.slice("removed_".length));
  const openStep = useOpenStep(runIds[0], bucket);
  return (
    <div style={{ height: CHART_HEIGHT }} data-chart="removed">
      <ResponsiveContainer width="100%" height="100%">
        <ComposedChart data={table.rows} margin={MARGIN} {...openStep}>
          <CartesianGrid stroke="var(--border)" strokeDasharray="2 4" />
          <XAxis {...stepAxisProps(range)} />
          <YAxis tickFormatter={numTick} tick={yTick} stroke="var(--border)" width={44} domain={[0, "auto"]} />
          {scoreChangeMarks(marks, range)}
          <Tooltip
            content={(p) => <StepTooltip {...p} columns={table.columns} bucket={bucket} />}
            isAnimationActive={false}
          />
          <Legend wrapperStyle={{ fontSize: 11 }} />
          {runIds.length === 1
            ? codes.map((code) => (
                <Area
                  key={code}
                  dataKey={`removed_${code}`}
                  name={code}
                  stackId="removed"
                  stroke={guardrailColor(code)}
                  fill={guardrailColor(code)}
                  fillOpacity={0.55}
                  isAnimationActive={false}
                />
              ))
            : runLines(runIds, "removed", (id) => `${id}: removed per rollout`, COLORS.bad)}
        </ComposedChart>
      </ResponsiveContainer>
    </div>
  );
}
