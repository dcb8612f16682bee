"use client";
import { Area, CartesianGrid, ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import {
  CHART_HEIGHT,
  COLORS,
  DASH_B,
  runStroke,
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
import { runKey, type ChartTable, type Row } from "@/lib/monitors/series.ts";

const LINES = [
  { key: "successRate", label: "success (reward ≥ 0.9)", color: COLORS.good, width: 2 },
  { key: "meanReward", label: "mean reward", color: COLORS.main, width: 2 },
  { key: "missingEvidenceRate", label: "missing evidence", color: guardrailColor("missing_evidence"), width: 1.2 },
  { key: "unauthorizedRate", label: "unauthorized write", color: guardrailColor("unauthorized_write"), width: 1.2 },
] as const;

/**
 * Success rate, mean reward with its ±1 std band (population std from the step's reward moments), and the
 * missing-evidence and unauthorized-write hit rates, all on [0, 1].
 */
export function OutcomesChart({
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
  const band = (i: number) => (r: Row) => {
    const lo = r[runKey("rewardLow", i)];
    const hi = r[runKey("rewardHigh", i)];
    return lo === null || hi === null || lo === undefined || hi === undefined ? null : [lo, hi];
  };
  const named = (id: string, label: string) => (runIds.length > 1 ? `${id}: ${label}` : label);
  const openStep = useOpenStep(runIds[0], bucket);
  return (
    <div style={{ height: CHART_HEIGHT }} data-chart="outcomes">
      <ResponsiveContainer width="100%" height="100%">
        <ComposedChart data={table.rows} margin={MARGIN} {...openStep}>
          <CartesianGrid stroke="var(--border)" strokeDasharray="2 4" />
          <XAxis {...stepAxisProps(range)} />
          <YAxis
            tickFormatter={numTick}
            tick={yTick}
            stroke="var(--border)"
            width={44}
            domain={[0, 1]}
            allowDataOverflow
          />
          {scoreChangeMarks(marks, range)}
          <Tooltip
            content={(p) => <StepTooltip {...p} columns={table.columns} bucket={bucket} />}
            isAnimationActive={false}
          />
          <Legend wrapperStyle={{ fontSize: 11 }} />
          {runIds.map((id, i) => (
            <Area
              key={`band-${id}`}
              dataKey={band(i)}
              name={named(id, "mean reward ± 1 std")}
              stroke="none"
              fill={runStroke(COLORS.main, i)}
              fillOpacity={i === 0 ? 0.14 : 0.07}
              connectNulls
              isAnimationActive={false}
              activeDot={false}
            />
          ))}
          {runIds.flatMap((id, i) =>
            LINES.map((l) => (
              <Line
                key={`${l.key}-${id}`}
                dataKey={runKey(l.key, i)}
                name={named(id, l.label)}
                stroke={runStroke(l.color, i)}
                strokeWidth={l.width}
                strokeDasharray={i === 1 ? DASH_B : undefined}
                dot={false}
                connectNulls
                isAnimationActive={false}
              />
            )),
          )}
        </ComposedChart>
      </ResponsiveContainer>
    </div>
  );
}
