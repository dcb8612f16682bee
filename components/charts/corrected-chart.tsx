"use client";
import { Area, Line } from "recharts";
import { COLORS, DASH_B, runStroke, numTick, pctTick } from "@/components/charts/chart-kit.tsx";
import { windowAxisRange } from "@/components/charts/audit-chart.tsx";
import { bandOf, runLabel, StepChart, valueAxis } from "@/components/charts/step-chart.tsx";
import { runKey, type ChartTable } from "@/lib/monitors/series.ts";

const PANES = {
  success: { ledger: "ledgerSuccess", corrected: "correctedSuccess", label: "success", tick: pctTick },
  reward: { ledger: "ledgerMeanReward", corrected: "correctedMeanReward", label: "mean reward", tick: numTick },
} as const;

/**
 * The ledger's figure per audit window beside the audit-corrected one (line) and its 95% bootstrap band (area). A
 * window the audit is too thin to correct has no corrected point, so the line breaks there instead of guessing.
 */
export function CorrectedChart({
  pane,
  table,
  runIds,
  range,
  window,
}: {
  pane: keyof typeof PANES;
  table: ChartTable;
  runIds: readonly string[];
  range: { from: number; to: number };
  window: number;
}) {
  const p = PANES[pane];
  const line = (id: string, i: number, key: string, label: string, color: string, r: number) => (
    <Line
      key={`${key}-${id}`}
      dataKey={runKey(key, i)}
      name={runLabel(runIds, id, label)}
      stroke={runStroke(color, i)}
      strokeWidth={2}
      strokeDasharray={i === 1 ? DASH_B : undefined}
      dot={{ r }}
      isAnimationActive={false}
    />
  );
  return (
    <StepChart
      name={`corrected-${pane}`}
      table={table}
      runIds={runIds}
      range={range}
      axisRange={windowAxisRange(range, window)}
      span={window}
      axes={[valueAxis(p.tick, [0, 1])]}
    >
      {runIds.map((id, i) => (
        <Area
          key={`band-${id}`}
          dataKey={bandOf(p.corrected, i)}
          name={runLabel(runIds, id, `corrected ${p.label} 95% interval`)}
          stroke="none"
          fill={runStroke(COLORS.good, i)}
          fillOpacity={0.18}
          isAnimationActive={false}
          activeDot={false}
          legendType="none"
        />
      ))}
      {runIds.flatMap((id, i) => [
        line(id, i, p.ledger, `ledger ${p.label}`, COLORS.main, 2),
        line(id, i, p.corrected, `corrected ${p.label} (audit)`, COLORS.good, 3),
      ])}
    </StepChart>
  );
}
