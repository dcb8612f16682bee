"use client";
import { Line, ReferenceArea } from "recharts";
import { COLORS, runLines, guardrailColor, pctTick } from "@/components/charts/chart-kit.tsx";
import { StepChart, valueAxis, type StepChartProps } from "@/components/charts/step-chart.tsx";
import { runKey } from "@/lib/monitors/series.ts";

/**
 * Guardrail hit rate (share of rollouts with any guardrail) against the healthy band, shaded; optionally one line per
 * guardrail (of the first run). A second run is dashed.
 */
export function HitRateChart({
  band,
  perGuardrail,
  ...p
}: StepChartProps & { band: { low: number; high: number }; perGuardrail: boolean }) {
  const codes = p.table.columns
    .filter((c) => c.key.startsWith("g_") && !c.key.endsWith("__b"))
    .map((c) => c.key.slice(2));
  const label = `healthy ${Math.round(band.low * 100)}–${Math.round(band.high * 100)}%`;
  return (
    <StepChart
      name="hit-rate"
      {...p}
      span={p.bucket}
      axes={[
        valueAxis(pctTick, [0, (max: number) => Math.min(1, Math.max(max, band.high + 0.05))]),
        <ReferenceArea
          key="band"
          y1={band.low}
          y2={band.high}
          fill="var(--good)"
          fillOpacity={0.12}
          stroke="none"
          ifOverflow="extendDomain"
          label={{ value: label, position: "insideTopRight", fontSize: 11, fill: "var(--good)" }}
        />,
      ]}
    >
      {runLines(
        p.runIds,
        "hitRate",
        (id) => (p.runIds.length > 1 ? `${id}: hit rate` : "guardrail hit rate"),
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
    </StepChart>
  );
}
