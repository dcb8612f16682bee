"use client";
import { Area, CartesianGrid, ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import {
  CHART_HEIGHT,
  COLORS,
  DASH_B,
  runStroke,
  MARGIN,
  numTick,
  pctTick,
  StepTooltip,
  stepAxisProps,
  yTick,
  useOpenStep,
} from "@/components/charts/chart-kit.tsx";
import { runKey, type ChartTable, type Row } from "@/lib/monitors/series.ts";

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
  const band = (i: number) => (r: Row) => {
    const lo = r[runKey(`${p.corrected}Low`, i)];
    const hi = r[runKey(`${p.corrected}High`, i)];
    return lo === null || hi === null || lo === undefined || hi === undefined ? null : [lo, hi];
  };
  const named = (id: string, label: string) => (runIds.length > 1 ? `${id}: ${label}` : label);
  const axis = { ...stepAxisProps({ from: Math.floor(range.from / window) * window, to: range.to }) };
  const openStep = useOpenStep(runIds[0], window);
  return (
    <div style={{ height: CHART_HEIGHT }} data-chart={`corrected-${pane}`}>
      <ResponsiveContainer width="100%" height="100%">
        <ComposedChart data={table.rows} margin={MARGIN} {...openStep}>
          <CartesianGrid stroke="var(--border)" strokeDasharray="2 4" />
          <XAxis {...axis} />
          <YAxis tickFormatter={p.tick} tick={yTick} stroke="var(--border)" width={44} domain={[0, 1]} />
          <Tooltip
            content={(t) => <StepTooltip {...t} columns={table.columns} bucket={window} />}
            isAnimationActive={false}
          />
          <Legend wrapperStyle={{ fontSize: 11 }} />
          {runIds.map((id, i) => (
            <Area
              key={`band-${id}`}
              dataKey={band(i)}
              name={named(id, `corrected ${p.label} 95% interval`)}
              stroke="none"
              fill={runStroke(COLORS.good, i)}
              fillOpacity={0.18}
              isAnimationActive={false}
              activeDot={false}
              legendType="none"
            />
          ))}
          {runIds.flatMap((id, i) => [
            <Line
              key={`ledger-${id}`}
              dataKey={runKey(p.ledger, i)}
              name={named(id, `ledger ${p.label}`)}
              stroke={runStroke(COLORS.main, i)}
              strokeWidth={2}
              strokeDasharray={i === 1 ? DASH_B : undefined}
              dot={{ r: 2 }}
              isAnimationActive={false}
            />,
            <Line
              key={`corrected-${id}`}
              dataKey={runKey(p.corrected, i)}
              name={named(id, `corrected ${p.label} (audit)`)}
              stroke={runStroke(COLORS.good, i)}
              strokeWidth={2}
              strokeDasharray={i === 1 ? DASH_B : undefined}
              dot={{ r: 3 }}
              isAnimationActive={false}
            />,
          ])}
        </ComposedChart>
      </ResponsiveContainer>
    </div>
  );
}
