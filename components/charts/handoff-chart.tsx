"use client";
import { ReferenceArea } from "recharts";
import { COLORS, runLines, pctTick } from "@/components/charts/chart-kit.tsx";
import {
  alarmLine,
  alarmPct,
  runLabel,
  StepChart,
  valueAxis,
  type StepChartProps,
} from "@/components/charts/step-chart.tsx";

/**
 * Hand-off rate with its alarm line. When the (first run's) alarm is red, the steps since it turned red are shaded.
 */
export function HandoffChart({
  ceiling,
  redSince,
  ...p
}: StepChartProps & { ceiling: number; redSince: number | null }) {
  const { range } = p;
  return (
    <StepChart
      name="handoff"
      {...p}
      span={p.bucket}
      axes={[
        valueAxis(pctTick, [0, (max: number) => Math.min(1, Math.max(max, ceiling * 1.5))]),
        redSince !== null && redSince <= range.to && (
          <ReferenceArea
            key="red"
            x1={Math.max(redSince, range.from)}
            x2={range.to}
            fill="var(--bad)"
            fillOpacity={0.08}
            stroke="none"
          />
        ),
        alarmLine(ceiling, alarmPct(ceiling), "insideTopLeft"),
      ]}
    >
      {runLines(p.runIds, "handoffRate", (id) => runLabel(p.runIds, id, "hand-off rate"), COLORS.warn)}
    </StepChart>
  );
}
