"use client";
import { COLORS, runLines, numTick, pctTick } from "@/components/charts/chart-kit.tsx";
import {
  alarmLine,
  alarmPct,
  runLabel,
  StepChart,
  valueAxis,
  type StepChartProps,
} from "@/components/charts/step-chart.tsx";

/**
 * The trainer's reward against the ledger's: the share of rollouts whose trained reward differs beyond 1e-6 (left
 * axis, with the alarm line) and the mean absolute difference (right axis).
 */
export function TrainedRewardChart({ ceiling, ...p }: StepChartProps & { ceiling: number }) {
  return (
    <StepChart
      name="trained-reward"
      {...p}
      span={p.bucket}
      axes={[
        valueAxis(pctTick, [0, (max: number) => Math.min(1, Math.max(max, ceiling * 2))], { yAxisId: "share" }),
        // from 0, and a scale even when every difference is 0 (else the axis centres on 0 and goes negative)
        valueAxis(numTick, [0, (max: number) => (max > 0 ? max : 0.01)], { yAxisId: "diff", orientation: "right" }),
        alarmLine(ceiling, alarmPct(ceiling), "insideTopLeft", "share"),
      ]}
    >
      {runLines(
        p.runIds,
        "mismatchShare",
        (id) => runLabel(p.runIds, id, "trained reward differs"),
        COLORS.bad,
        "share",
      )}
      {runLines(
        p.runIds,
        "meanAbsDiff",
        (id) => runLabel(p.runIds, id, "mean |trained − ledger|"),
        COLORS.muted,
        "diff",
      )}
    </StepChart>
  );
}
