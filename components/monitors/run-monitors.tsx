"use client";
// The run page's charts on one shared step axis (the view: use-chart-view.ts). Every chart draws the table that its
// CSV download writes.
import { useMemo, useState } from "react";
import { AuditChart } from "@/components/charts/audit-chart.tsx";
import { ChartCard } from "@/components/charts/chart-card.tsx";
import { CorrectedChart } from "@/components/charts/corrected-chart.tsx";
import { GroupStdChart } from "@/components/charts/group-std-chart.tsx";
import { HandoffChart } from "@/components/charts/handoff-chart.tsx";
import { HitRateChart } from "@/components/charts/hit-rate-chart.tsx";
import { OutcomesChart } from "@/components/charts/outcomes-chart.tsx";
import { RemovedChart } from "@/components/charts/removed-chart.tsx";
import { TrainedRewardChart } from "@/components/charts/trained-reward-chart.tsx";
import { AlarmBadge, type AlarmView } from "@/components/monitors/alarm-badge.tsx";
import { useChartView } from "@/components/monitors/use-chart-view.ts";
import { stepSpan, ViewControls } from "@/components/monitors/view-controls.tsx";
import type { ChartData } from "@/lib/monitors/loaders.ts";
import type { AlarmKey } from "@/lib/monitors/rules.ts";
import { MIN_WINDOW_REVIEWS, MIN_WINDOW_SLOTS } from "@/lib/stats/alarm-presets.ts";
import { fmtPct } from "@/components/ui/format.ts";
import type { ChartQueryErrors } from "@/lib/monitors/schema.ts";
import { chartTable, type ChartTable } from "@/lib/monitors/series.ts";

export type RunMonitorsProps = {
  data: ChartData;
  /** The first run's alarms, for the badges on their charts. */
  alarms: Partial<Record<AlarmKey, AlarmView>>;
  /** Search params the page keeps while zooming (compare=…, or a=…&b=…). */
  keep: Record<string, string>;
  /** CSV route of the first run: `${csvBase}/${chart}?…`. */
  csvBase: string;
  /** The address's bad range and smoothing parameters, shown at their fields, with the values as given. */
  errors?: ChartQueryErrors["fields"];
  given?: Record<string, string>;
};

const pct = (v: number) => `${Math.round(v * 1000) / 10}%`;

/** Each chart's table at the chosen smoothing (the CSV route writes the same). */
function useTables(runs: ChartData["runs"], smooth: number) {
  return useMemo(() => {
    const d = { runs, smooth };
    return {
      hit: chartTable(d, "hit-rate"),
      handoff: chartTable(d, "handoff"),
      outcomes: chartTable(d, "outcomes"),
      std: chartTable(d, "group-std"),
      removed: chartTable(d, "removed"),
      trained: chartTable(d, "trained-reward"),
      audit: chartTable(d, "audit"),
      corrected: chartTable(d, "corrected"),
    };
  }, [runs, smooth]);
}

export function RunMonitors({ data, alarms, keep, csvBase, errors = {}, given = {} }: RunMonitorsProps) {
  const view = useChartView(data, keep, csvBase, errors.smooth);
  const [perGuardrail, setPerGuardrail] = useState(false);
  const { range, thresholds: t, bucket } = data;
  const runIds = data.runs.map((r) => r.id);
  const csv = view.csv;
  const tables = useTables(data.runs, view.smooth);
  const handoffAlarm = alarms.handoff;
  const hasTrained = data.runs.some((r) => r.rows.some((s) => s.trained > 0));
  const common = { runIds, range, bucket, marks: data.marks };

  return (
    <div className="flex flex-col gap-3">
      <ViewControls data={data} view={view} errors={errors} given={given} />
      <div className="grid grid-cols-1 gap-3 xl:grid-cols-2">
        <ChartCard
          id="chart-hit-rate"
          title="Guardrail hit rate"
          description={`Share of rollouts with any guardrail. Healthy between ${pct(t.hitRateLow)} and ${pct(t.hitRateHigh)}: below, guardrails are not working; above, caps flatten the group's rewards.`}
          status={<AlarmBadge alarm={alarms.hit_rate} />}
          csvHref={csv("hit-rate")}
          controls={
            <label className="flex items-center gap-1">
              <input type="checkbox" checked={perGuardrail} onChange={(e) => setPerGuardrail(e.target.checked)} />
              One line per guardrail
            </label>
          }
        >
          <HitRateChart
            table={tables.hit}
            {...common}
            band={{ low: t.hitRateLow, high: t.hitRateHigh }}
            perGuardrail={perGuardrail}
          />
        </ChartCard>

        <ChartCard
          id="chart-handoff"
          title="Hand-off rate"
          description={`Hand-offs trigger no guardrail, so a policy can learn to hand off instead of resolving. Alarm above ${pct(t.handoffCeiling)}.`}
          status={<AlarmBadge alarm={handoffAlarm} />}
          csvHref={csv("handoff")}
        >
          <HandoffChart
            table={tables.handoff}
            {...common}
            ceiling={t.handoffCeiling}
            redSince={handoffAlarm?.state === "red" ? handoffAlarm.sinceStep : null}
          />
        </ChartCard>

        <ChartCard
          id="chart-outcomes"
          title="Success and reward"
          description="Success (reward ≥ 0.9), mean reward with a ±1 std band, and the missing-evidence and unauthorized-write hit rates."
          csvHref={csv("outcomes")}
        >
          <OutcomesChart table={tables.outcomes} {...common} />
        </ChartCard>

        <ChartCard
          id="chart-group-std"
          title="Within-group reward std"
          description={`Mean reward standard deviation inside GRPO groups: near zero, the group has nothing to learn from. Alarm below ${t.groupStdFloor}.`}
          status={<AlarmBadge alarm={alarms.group_std} />}
          csvHref={csv("group-std")}
        >
          <GroupStdChart table={tables.std} {...common} floor={t.groupStdFloor} />
        </ChartCard>

        <ChartCard
          id="chart-removed"
          title="Reward removed by caps"
          description="Mean of raw − final reward per rollout, stacked by the guardrail whose cap decided it."
          csvHref={csv("removed")}
        >
          <RemovedChart table={tables.removed} {...common} />
        </ChartCard>

        <ChartCard
          id="chart-trained-reward"
          title="Trained reward vs ledger"
          description={`Share of rollouts whose trained reward (the trainer's own) differs from the ledger's by more than 1e-6, and the mean absolute difference, over rollouts that carry one. Alarm above ${pct(t.trainedMismatchCeiling)}: the trainer optimizes something other than what the ledger records.`}
          status={<AlarmBadge alarm={alarms.trained_mismatch} />}
          csvHref={csv("trained-reward")}
        >
          {hasTrained ? (
            <TrainedRewardChart table={tables.trained} {...common} ceiling={t.trainedMismatchCeiling} />
          ) : (
            <p className="px-3 py-10 text-center text-[13px] text-fg-muted">
              No rollout {runIds.length > 1 ? "of these runs" : "of this run"} in these steps carries a trained reward.
              Log the trainer&apos;s own reward as <code>trained_reward</code> to compare it with the ledger&apos;s.
            </p>
          )}
        </ChartCard>

        <CorrectedCard data={data} table={tables.corrected} csvHref={csv("corrected")} />
        <AuditCard data={data} table={tables.audit} alarm={alarms.extraction} csvHref={csv("audit")} />
      </div>
    </div>
  );
}

type WindowCardProps = { data: ChartData; table: ChartTable; csvHref: string };

/** The ledger's success and mean reward per audit window beside the audit-corrected ones, or why there are none. */
function CorrectedCard({ data, table, csvHref }: WindowCardProps) {
  const { range, thresholds: t } = data;
  const runIds = data.runs.map((r) => r.id);
  // Windows the audit is too thin to correct, with why (the chart draws no corrected point there).
  const thin = data.runs.flatMap((r) =>
    r.corrected.filter((w) => w.thin).map((w) => ({ run: r.id, from: w.stepFrom, to: w.stepTo, why: w.thin! })),
  );
  const anyCorrected = data.runs.some((r) => r.corrected.some((w) => w.corrected !== null));
  return (
    <ChartCard
      id="chart-corrected"
      title="Human-corrected success and reward"
      description={`Per ${t.auditWindow.toLocaleString("en-US")}-step window: the ledger's success rate and mean reward beside the ones corrected by the shadow audit — the ledger's success share times the share of its successes blind humans confirm, plus its failure share times the share of its failures they pass, and the mean human − ledger difference — with 95% bootstrap bands over audited tickets. A band below the ledger's line means humans do not agree with the ledger's gains.`}
      csvHref={csvHref}
    >
      {anyCorrected ? (
        <div className="grid gap-2 md:grid-cols-2">
          <CorrectedChart pane="success" table={table} runIds={runIds} range={range} window={t.auditWindow} />
          <CorrectedChart pane="reward" table={table} runIds={runIds} range={range} window={t.auditWindow} />
        </div>
      ) : (
        <p role="status" className="px-3 py-10 text-center text-[13px] text-fg-muted" data-testid="corrected-thin">
          The audit is too thin to correct the ledger {runIds.length > 1 ? "of these runs" : "of this run"} in these
          steps
          {thin[0] ? `: ${thin[thin.length - 1].why}` : ""}. A corrected curve needs, per window or pooled with its
          neighbours, 20 audited rollouts from 10 tickets with at least 3 human successes and 3 failures.
        </p>
      )}
      {anyCorrected && thin.length > 0 && (
        <div className="border-t border-border px-3 py-2 text-[11px] text-fg-muted" data-testid="corrected-thin">
          <p>Too thin to correct, so no corrected point is drawn:</p>
          <ul className="list-disc pl-4">
            {thin.map((w) => (
              <li key={`${w.run}-${w.from}`}>
                {runIds.length > 1 ? `${w.run}, ` : ""}
                {stepSpan(w.from, w.to)}: {w.why}
              </li>
            ))}
          </ul>
        </div>
      )}
    </ChartCard>
  );
}

/** Agreement and extraction accuracy of the shadow audit per window, or a note that there are no reviews yet. */
function AuditCard({ data, table, alarm, csvHref }: WindowCardProps & { alarm: AlarmView | undefined }) {
  const { range, thresholds: t } = data;
  const runIds = data.runs.map((r) => r.id);
  const hasAudit = data.runs.some((r) => r.audit.length > 0);
  return (
    <ChartCard
      id="chart-audit"
      title="Shadow audit over training"
      description={`Blind human reviews per ${t.auditWindow.toLocaleString("en-US")}-step window: agreement with the ledger and claim-extraction accuracy, with 95% Wilson intervals; the dashed red line is the extraction alarm's floor (${fmtPct(t.extractionFloor, 0)}). A window with fewer than ${MIN_WINDOW_REVIEWS} reviews (extraction: ${MIN_WINDOW_SLOTS} claim slots) is a gap, not a 0% or 100% point; the CSV keeps its figures and counts.`}
      status={<AlarmBadge alarm={alarm} label="extraction" />}
      csvHref={csvHref}
    >
      {hasAudit ? (
        <AuditChart table={table} runIds={runIds} range={range} window={t.auditWindow} floor={t.extractionFloor} />
      ) : (
        <p className="px-3 py-10 text-center text-[13px] text-fg-muted">
          No shadow reviews {runIds.length > 1 ? "for these runs" : "for this run"} in these steps yet. Agreement and
          extraction accuracy appear here once an audit batch of the run has reviewed items.
        </p>
      )}
    </ChartCard>
  );
}
