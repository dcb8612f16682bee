"use client";

import {
  Area,
  CartesianGrid,
  ComposedChart,
  Line,
  ReferenceLine,
  ResponsiveContainer,
  Scatter,
  ScatterChart,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";

type Point = { trajectoryId: string; human: number; ledger: number };

/** Human reward against ledger reward, one dot per reviewed item; the band |h − l| ≤ tolerance is where they agree. */
export function AgreementScatter({ points, tolerance }: { points: Point[]; tolerance: number }) {
  return (
    <div className="h-72" data-testid="agreement-scatter">
      <ResponsiveContainer width="100%" height="100%">
        <ScatterChart margin={{ top: 8, right: 16, bottom: 24, left: 0 }}>
          <CartesianGrid stroke="var(--border)" />
          <XAxis
            type="number"
            dataKey="ledger"
            name="ledger reward"
            domain={[0, 1]}
            tick={{ fontSize: 11 }}
            label={{ value: "ledger reward", position: "insideBottom", offset: -12, fontSize: 11 }}
          />
          <YAxis
            type="number"
            dataKey="human"
            name="human reward"
            domain={[0, 1]}
            tick={{ fontSize: 11 }}
            label={{ value: "human", angle: -90, position: "insideLeft", fontSize: 11 }}
          />
          <ReferenceLine
            segment={[
              { x: 0, y: tolerance },
              { x: 1 - tolerance, y: 1 },
            ]}
            stroke="var(--good)"
            strokeDasharray="4 4"
          />
          <ReferenceLine
            segment={[
              { x: tolerance, y: 0 },
              { x: 1, y: 1 - tolerance },
            ]}
            stroke="var(--good)"
            strokeDasharray="4 4"
          />
          <Tooltip
            cursor={{ strokeDasharray: "3 3" }}
            content={({ payload }) => {
              const p = payload?.[0]?.payload as Point | undefined;
              return p ? (
                <div className="rounded border border-border bg-bg px-2 py-1 text-[12px] shadow">
                  <div className="font-mono">{p.trajectoryId}</div>
                  ledger {p.ledger.toFixed(3)} · human {p.human.toFixed(3)}
                </div>
              ) : null;
            }}
          />
          <Scatter data={points} fill="var(--accent)" fillOpacity={0.6} />
        </ScatterChart>
      </ResponsiveContainer>
    </div>
  );
}

type TrendPoint = {
  day: string;
  rate: number | null;
  lower: number | null;
  upper: number | null;
  n: number;
  tooFew: boolean;
  label: string;
  detail: string;
};

/**
 * Agreement rate per review day with its 95% Wilson band. A day with too few items shows its band only: the line
 * joins the days with enough items, and the tooltip says "too few to say" with n and the interval.
 */
export function AgreementTrend({ points }: { points: TrendPoint[] }) {
  const data = points.map((p) => ({
    ...p,
    shown: p.tooFew ? null : p.rate,
    band: p.lower === null || p.upper === null ? null : [p.lower, p.upper],
  }));
  return (
    <div className="h-56" data-testid="agreement-trend">
      <ResponsiveContainer width="100%" height="100%">
        <ComposedChart data={data} margin={{ top: 8, right: 16, bottom: 8, left: 0 }}>
          <CartesianGrid stroke="var(--border)" />
          <XAxis dataKey="day" tick={{ fontSize: 11 }} />
          <YAxis domain={[0, 1]} tick={{ fontSize: 11 }} />
          <Tooltip
            content={({ payload }) => {
              const p = payload?.[0]?.payload as TrendPoint | undefined;
              return p ? (
                <div className="rounded border border-border bg-bg px-2 py-1 text-[12px] shadow">
                  <div className="font-mono">{p.day}</div>
                  agreement {p.label} · {p.detail}
                </div>
              ) : null;
            }}
          />
          <Area dataKey="band" stroke="none" fill="var(--accent)" fillOpacity={0.15} name="95% interval" />
          <Line dataKey="shown" stroke="var(--accent)" dot name="agreement" connectNulls />
          <ReferenceLine y={0.85} stroke="var(--warn)" strokeDasharray="4 4" />
        </ComposedChart>
      </ResponsiveContainer>
    </div>
  );
}
