"use client";
import {
  Area,
  CartesianGrid,
  ComposedChart,
  Legend,
  Line,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import {
  CHART_HEIGHT,
  COLORS,
  DASH_B,
  runStroke,
  MARGIN,
  pctTick,
  StepTooltip,
  stepAxisProps,
  yTick,
  useOpenStep,
} from "@/components/charts/chart-kit.tsx";
import { auditPlotRows, runKey, type ChartTable, type Row } from "@/lib/monitors/series.ts";

const SERIES = [
  { key: "agreement", label: "agreement", color: COLORS.main },
  { key: "extraction", label: "extraction accuracy", color: COLORS.good },
] as const;

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
  const band = (key: string, i: number) => (r: Row) => {
    const lo = r[runKey(`${key}Low`, i)];
    const hi = r[runKey(`${key}High`, i)];
    return lo === null || hi === null || lo === undefined || hi === undefined ? null : [lo, hi];
  };
  const named = (id: string, label: string) => (runIds.length > 1 ? `${id}: ${label}` : label);
  // A window starting before the zoomed range still covers part of it.
  const axis = { ...stepAxisProps({ from: Math.floor(range.from / window) * window, to: range.to }) };
  const openStep = useOpenStep(runIds[0], window);
  return (
    <div style={{ height: CHART_HEIGHT }} data-chart="audit">
      <ResponsiveContainer width="100%" height="100%">
        <ComposedChart data={auditPlotRows(table.rows, runIds.length)} margin={MARGIN} {...openStep}>
          <CartesianGrid stroke="var(--border)" strokeDasharray="2 4" />
          <XAxis {...axis} />
          <YAxis tickFormatter={pctTick} tick={yTick} stroke="var(--border)" width={44} domain={[0, 1]} />
          <ReferenceLine y={floor} stroke="var(--bad)" strokeDasharray="4 3" />
          <Tooltip
            content={(p) => <StepTooltip {...p} columns={table.columns} bucket={window} />}
            isAnimationActive={false}
          />
          <Legend wrapperStyle={{ fontSize: 11 }} />
          {runIds.flatMap((id, i) =>
            SERIES.map((s) => (
              <Area
                key={`band-${s.key}-${id}`}
                dataKey={band(s.key, i)}
                name={named(id, `${s.label} 95% interval`)}
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
                name={named(id, s.label)}
                stroke={runStroke(s.color, i)}
                strokeWidth={2}
                strokeDasharray={i === 1 ? DASH_B : undefined}
                dot={{ r: 3 }}
                connectNulls={false}
                isAnimationActive={false}
              />
            )),
          )}
        </ComposedChart>
      </ResponsiveContainer>
    </div>
  );
}
