"use client";
import { COLORS, runLines, numTick } from "@/components/charts/chart-kit.tsx";
import { alarmLine, StepChart, valueAxis, type StepChartProps } from "@/components/charts/step-chart.tsx";

/** Mean within-group reward std (GRPO's learning signal) with the no-gradient floor. */
export function GroupStdChart({ floor, ...p }: StepChartProps & { floor: number }) {
  return (
    <StepChart
      name="group-std"
      {...p}
      span={p.bucket}
      axes={[
        valueAxis(numTick, [0, (max: number) => Math.max(max, floor * 2)]),
        alarmLine(floor, `floor ${floor}`, "insideBottomLeft"),
      ]}
    >
      {runLines(
        p.runIds,
        "meanGroupStd",
        (id) => (p.runIds.length > 1 ? `${id}: within-group std` : "mean within-group reward std"),
        COLORS.main,
      )}
    </StepChart>
  );
}
