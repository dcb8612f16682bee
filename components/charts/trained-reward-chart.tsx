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
 * The trainer's reward against the ledger's: the share of rollouts whose trained reward differs beyond 1e-6 (left
 * axis, with the alarm line) and the mean absolute difference (right axis).
 */
export function TrainedRewardChart({
  table,
  runIds,
  range,
  bucket,
  marks,
  ceiling,
}: {
  table: ChartTable;
  runIds: readonly string[];
  range: { from: number; to: number };
  bucket: number;
  /** Steps where a spec or config fix changed scores. */
  marks?: readonly ScoreChangeMark[];
  ceiling: number;
}) {
  const openStep = useOpenStep(runIds[0], bucket);
  return (
    <div style={{ height: CHART_HEIGHT }} data-chart="trained-reward">
      <ResponsiveContainer width="100%" height="100%">
        <ComposedChart data={table.rows} margin={MARGIN} {...openStep}>
          <CartesianGrid stroke="var(--border)" strokeDasharray="2 4" />
          <XAxis {...stepAxisProps(range)} />
          <YAxis
            yAxisId="share"
            tickFormatter={pctTick}
            tick={yTick}
            stroke="var(--border)"
            width={44}
            domain={[0, (max: number) => Math.min(1, Math.max(max, ceiling * 2))]}
          />
          <YAxis
            yAxisId="diff"
            orientation="right"
            tickFormatter={numTick}
            tick={yTick}
            stroke="var(--border)"
            width={44}
            // from 0, and a scale even when every difference is 0 (else the axis centres on 0 and goes negative)
            domain={[0, (max: number) => (max > 0 ? max : 0.01)]}
          />
          <ReferenceLine
            yAxisId="share"
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
            "mismatchShare",
            (id) => (runIds.length > 1 ? `${id}: trained reward differs` : "trained reward differs"),
            COLORS.bad,
            "share",
          )}
          {runLines(
            runIds,
            "meanAbsDiff",
            (id) => (runIds.length > 1 ? `${id}: mean |trained − ledger|` : "mean |trained − ledger|"),
            COLORS.muted,
            "diff",
          )}
        </ComposedChart>
      </ResponsiveContainer>
    </div>
  );
}
