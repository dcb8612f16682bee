"use client";
import { Area, Line } from "recharts";
import { COLORS, DASH_B, runStroke, guardrailColor, numTick } from "@/components/charts/chart-kit.tsx";
import { bandOf, runLabel, StepChart, valueAxis, type StepChartProps } from "@/components/charts/step-chart.tsx";
import { runKey } from "@/lib/monitors/series.ts";

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
export function OutcomesChart(p: StepChartProps) {
  const { runIds } = p;
  return (
    <StepChart name="outcomes" {...p} span={p.bucket} axes={[valueAxis(numTick, [0, 1], { allowDataOverflow: true })]}>
      {runIds.map((id, i) => (
        <Area
          key={`band-${id}`}
          dataKey={bandOf("reward", i)}
          name={runLabel(runIds, id, "mean reward ± 1 std")}
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
            name={runLabel(runIds, id, l.label)}
            stroke={runStroke(l.color, i)}
            strokeWidth={l.width}
            strokeDasharray={i === 1 ? DASH_B : undefined}
            dot={false}
            connectNulls
            isAnimationActive={false}
          />
        )),
      )}
    </StepChart>
  );
}
