"use client";
// A saved search's share of each step's rollouts, in the run charts' shared frame (StepChart) with its optional
// alarm line. The table is lib/saved-searches/table.ts's, the one its CSV writes.
import { COLORS, pctTick, runLines } from "@/components/charts/chart-kit.tsx";
import { alarmLine, alarmPct, StepChart, valueAxis } from "@/components/charts/step-chart.tsx";
import type { ChartTable } from "@/lib/monitors/series.ts";
import { SHARE_KEY } from "@/lib/saved-searches/table.ts";

export function SearchShareChart({ table, runId, alarm }: { table: ChartTable; runId: string; alarm: number | null }) {
  const steps = table.rows.map((r) => r.step);
  const range = { from: steps[0] ?? 0, to: steps[steps.length - 1] ?? 0 };
  const top = (max: number) => Math.min(1, Math.max(max, alarm === null ? 0 : alarm * 1.5, 0.01));
  return (
    <StepChart
      name="search-share"
      table={table}
      runIds={[runId]}
      range={range}
      span={1}
      axes={[valueAxis(pctTick, [0, top]), alarm !== null && alarmLine(alarm, alarmPct(alarm), "insideTopLeft")]}
    >
      {runLines([runId], SHARE_KEY, () => "share matching", COLORS.main)}
    </StepChart>
  );
}
