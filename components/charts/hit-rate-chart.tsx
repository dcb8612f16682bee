"use client";
import {
  CartesianGrid,
  ComposedChart,
  Legend,
  Line,
  ReferenceArea,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import {
  CHART_HEIGHT,
  COLORS,
  runLines,
  guardrailColor,
  MARGIN,
  pctTick,
  StepTooltip,
  stepAxisProps,
  yTick,
  scoreChangeMarks,
  useOpenStep,
} from "@/components/charts/chart-kit.tsx";
import type { ScoreChangeMark } from "@/lib/monitors/score-change-data.ts";
import { runKey, type ChartTable } from "@/lib/monitors/series.ts";

/**
 * Guardrail hit rate (share of rollouts with any guardrail) against the healthy band, shaded; optionally one line per
 * guardrail (of the first run). A second run is dashed.
 */
export function HitRateChart({
  table,
  runIds,
  range,
  bucket,
  marks,
  band,
  perGuardrail,
}: {
  table: ChartTable;
  runIds: readonly string[];
  range: { from: number; to: number };
  bucket: number;
  /** Steps where a spec or config fix changed scores. */
  marks?: readonly ScoreChangeMark[];
  band: { low: number; high: number };
  perGuardrail: boolean;
}) {
  const codes = table.columns
    .filter((c) => c.key.startsWith("g_") && !c.key.endsWith("__b"))
    .map((c) => c.key.slice(2));
  const label = `healthy ${Math.round(band.low * 100)}–${Math.round(band.high * 100)}%`;
  const openStep = useOpenStep(runIds[0], bucket);
  return (
    <div style={{ height: CHART_HEIGHT }} data-chart="hit-rate">
      <ResponsiveContainer width="100%" height="100%">
        <ComposedChart data={table.rows} margin={MARGIN} {...openStep}>
          <CartesianGrid stroke="var(--border)" strokeDasharray="2 4" />
          <XAxis {...stepAxisProps(range)} />
          <YAxis
            tickFormatter={pctTick}
            tick={yTick}
            stroke="var(--border)"
            width={44}
            domain={[0, (max: number) => Math.min(1, Math.max(max, band.high + 0.05))]}
          />
          <ReferenceArea
            y1={band.low}
            y2={band.high}
            fill="var(--good)"
            fillOpacity={0.12}
            stroke="none"
            ifOverflow="extendDomain"
            label={{ value: label, position: "insideTopRight", fontSize: 11, fill: "var(--good)" }}
          />
          {scoreChangeMarks(marks, range)}
          <Tooltip
            content={(p) => <StepTooltip {...p} columns={table.columns} bucket={bucket} />}
            isAnimationActive={false}
          />
          <Legend wrapperStyle={{ fontSize: 11 }} />
          {runLines(
            runIds,
            "hitRate",
            (id) => (runIds.length > 1 ? `${id}: hit rate` : "guardrail hit rate"),
            COLORS.main,
          )}
          {perGuardrail &&
            codes.map((code) => (
              <Line
                key={code}
                dataKey={runKey(`g_${code}`, 0)}
                name={code}
                stroke={guardrailColor(code)}
                strokeWidth={1.2}
                dot={false}
                connectNulls
                isAnimationActive={false}
              />
            ))}
        </ComposedChart>
      </ResponsiveContainer>
    </div>
  );
}
