"use client";
import { Area, Line, ReferenceLine } from "recharts";
import { COLORS, DASH_B, runStroke, pctTick } from "@/components/charts/chart-kit.tsx";
import { bandOf, runLabel, StepChart, valueAxis } from "@/components/charts/step-chart.tsx";
import { auditPlotRows, runKey, type ChartTable } from "@/lib/monitors/series.ts";

const SERIES = [
  { key: "agreement", label: "agreement", color: COLORS.main },
  { key: "extraction", label: "extraction accuracy", color: COLORS.good },
] as const;

/** The x range of a chart of audit windows: a window starting before the zoomed range still covers part of it. */
export function windowAxisRange(range: { from: number; to: number }, window: number) {
  return { from: Math.floor(range.from / window) * window, to: range.to };
}

/**
 * Shadow audit per step window: human/ledger agreement and claim-extraction accuracy, each with its 95% Wilson
 * interval as a band, against the extraction alarm floor (a dashed line, named in the card's description: a label
 * inside the plot sat on the lines). Points sit at the first step of their window; a window below the minimum
 * reviews or claim slots is a gap (auditPlotRows), and points are not joined across it.
 */
export function AuditChart({
  table,
  runIds,
  range,
  window,
  floor,
}: {
  table: ChartTable;
  runIds: readonly string[];
  range: { from: number; to: number };
  window: number;
  floor: number;
}) {
  return (
    <StepChart
      name="audit"
      table={table}
      rows={auditPlotRows(table.rows, runIds.length)}
      runIds={runIds}
      range={range}
      axisRange={windowAxisRange(range, window)}
      span={window}
      axes={[
        valueAxis(pctTick, [0, 1]),
        <ReferenceLine key="floor" y={floor} stroke="var(--bad)" strokeDasharray="4 3" />,
      ]}
    >
      {runIds.flatMap((id, i) =>
        SERIES.map((s) => (
          <Area
            key={`band-${s.key}-${id}`}
            dataKey={bandOf(s.key, i)}
            name={runLabel(runIds, id, `${s.label} 95% interval`)}
            stroke="none"
            fill={runStroke(s.color, i)}
            fillOpacity={0.12}
            connectNulls={false}
            isAnimationActive={false}
            activeDot={false}
            legendType="none"
          />
        )),
      )}
      {runIds.flatMap((id, i) =>
        SERIES.map((s) => (
          <Line
            key={`${s.key}-${id}`}
            dataKey={runKey(s.key, i)}
            name={runLabel(runIds, id, s.label)}
            stroke={runStroke(s.color, i)}
            strokeWidth={2}
            strokeDasharray={i === 1 ? DASH_B : undefined}
            dot={{ r: 3 }}
            connectNulls={false}
            isAnimationActive={false}
          />
        )),
      )}
    </StepChart>
  );
}
