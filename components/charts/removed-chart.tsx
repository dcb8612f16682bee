"use client";
import { Area } from "recharts";
import { COLORS, runLines, guardrailColor, numTick } from "@/components/charts/chart-kit.tsx";
import { StepChart, valueAxis, type StepChartProps } from "@/components/charts/step-chart.tsx";

/**
 * Reward removed by caps per rollout, stacked by the guardrail that decided the cap (the stack's top is the total).
 * Two overlaid runs are drawn as their totals instead: two stacks on one axis cannot be read.
 */
export function RemovedChart(p: StepChartProps) {
  const codes = p.table.columns
    .filter((c) => c.key.startsWith("removed_") && !c.key.endsWith("__b"))
    .map((c) => c.key.slice("removed_".length));
  return (
    <StepChart name="removed" {...p} span={p.bucket} axes={[valueAxis(numTick, [0, "auto"])]}>
      {p.runIds.length === 1
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
        : runLines(p.runIds, "removed", (id) => `${id}: removed per rollout`, COLORS.bad)}
    </StepChart>
  );
}
