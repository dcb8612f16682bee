import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { GateCard } from "@/components/gate/gate-card.tsx";
import { AlarmEvents } from "@/components/monitors/alarm-events.tsx";
import { AlarmTable } from "@/components/monitors/alarm-table.tsx";
import { OrderingTable } from "@/components/monitors/ordering-table.tsx";
import { RunMonitorsLazy } from "@/components/monitors/run-monitors-lazy.tsx";
import { ThresholdsForm } from "@/components/monitors/thresholds-form.tsx";
import { RescoreButton } from "@/components/runs/rescore-button.tsx";
import { StepsTable } from "@/components/runs/steps-table.tsx";
import { Card, Stat } from "@/components/ui/card.tsx";
import { EmptyState } from "@/components/ui/empty-state.tsx";
import { FieldError } from "@/components/ui/field.tsx";
import { fmtInt, fmtPct, fmtScore } from "@/components/ui/format.ts";
import { PageHeader } from "@/components/ui/page-header.tsx";
import { listStoredConfigs } from "@/lib/verifier-configs/data.ts";
import { requirePageUser } from "@/lib/auth/guards.ts";
import { can } from "@/lib/auth/policy.ts";
import { evaluateRunGate } from "@/lib/gate/refresh.ts";
import { listAlarmEvents, listOrderingJudgements, listPersistedAlarms } from "@/lib/monitors/data.ts";
import { orderingPoints } from "@/lib/monitors/ordering.ts";
import { MIN_ORDERED_JUDGEMENTS } from "@/lib/stats/alarm-presets.ts";
import { loadRunCharts } from "@/lib/monitors/loaders.ts";
import { chartQueryMessages, parseChartQuery } from "@/lib/monitors/schema.ts";
import { getRunSummary, listRunIds } from "@/lib/runs/data.ts";
import { withRun } from "@/lib/runs/location.ts";
import { decodeSegment } from "@/lib/server/route-params.ts";

type Props = { params: Promise<{ run: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const raw = (await params).run;
  return { title: `Run ${decodeSegment(raw) ?? raw}` };
}

export default async function RunPage({ params, searchParams }: Props) {
  const user = await requirePageUser("runs.read");
  const runId = decodeSegment((await params).run);
  if (runId === null) notFound();
  // A bad parameter is shown at its field (the range, smoothing and comparison controls stay editable); the page
  // shows what the good ones ask for.
  const parsed = parseChartQuery(await searchParams);
  const bad = parsed.ok ? null : parsed;
  const loaded = await loadRunCharts(runId, parsed.query);
  if (loaded.state === "not_found") notFound();
  const compareId = loaded.state === "ok" ? (loaded.data.runs[1]?.id ?? null) : null;
  const [summary, stored, events, runIds, gate, judgements] = await Promise.all([
    getRunSummary(runId),
    // The states the last write recorded: reading the page never evaluates (or changes) an alarm.
    listPersistedAlarms(compareId ? [runId, compareId] : [runId]),
    listAlarmEvents({ runId, limit: 10 }),
    listRunIds(),
    // The run's own gate, stored; a change of verdict is posted to the alarm webhook after the page has answered.
    evaluateRunGate(runId, { webhook: "background" }),
    // The pairwise audit's judgements (O(pair reviews of the run)), shown per audit window when there are any.
    listOrderingJudgements(runId),
  ]);
  const alarms = stored.filter((a) => a.runId === runId);
  const compareAlarms = stored.filter((a) => a.runId === compareId);
  // Re-scoring a run is an admin's verifier-configuration task.
  const configs = can(user.role, "configs.manage")
    ? (await listStoredConfigs()).map((c) => ({
        id: c.id,
        label: `${c.name} v${c.version}${c.isDefault ? " (default)" : ""}`,
      }))
    : null;
  const mayEditThresholds = can(user.role, "audit.manage");
  const others = runIds.filter((id) => id !== runId);
  const latest = summary?.latest ?? null;
  // Errors with no field on the page: unknown parameters, and all of them while there are no charts.
  const unplaced = bad
    ? loaded.state === "empty"
      ? chartQueryMessages(bad.errors)
      : [
          ...bad.errors.other,
          ...(bad.errors.fields.compare && !others.length ? [`compare ${bad.errors.fields.compare}`] : []),
        ]
    : [];

  return (
    <>
      <PageHeader
        title={`Run ${loaded.run.id}`}
        description={loaded.run.description || "Training health of this run's current ledger entries, per step."}
        actions={
          <div className="flex flex-col items-end gap-2">
            <Link className="text-accent hover:underline" href={`/trajectories?run=${encodeURIComponent(runId)}`}>
              Browse its rollouts →
            </Link>
            <Link className="text-accent hover:underline" href={withRun("/clusters", runId)}>
              Its low-score clusters →
            </Link>
            {others.length > 0 && (
              <form method="get" className="flex items-center gap-1 text-[12px]" aria-label="Overlay another run">
                <label className="flex items-center gap-1">
                  <span className="text-fg-muted">Compare with</span>
                  <select
                    name="compare"
                    defaultValue={compareId ?? others[0]}
                    className="rounded border border-border bg-bg px-1 py-0.5 aria-[invalid=true]:border-bad"
                    aria-invalid={bad?.errors.fields.compare ? true : undefined}
                    aria-describedby={bad?.errors.fields.compare ? "compare-error" : undefined}
                  >
                    {others.map((id) => (
                      <option key={id} value={id}>
                        {id}
                      </option>
                    ))}
                  </select>
                </label>
                <button type="submit" className="rounded border border-border px-2 py-0.5 hover:bg-bg-muted">
                  Overlay
                </button>
                {compareId && (
                  <Link href={`/runs/${encodeURIComponent(runId)}`} className="text-accent hover:underline">
                    Stop comparing
                  </Link>
                )}
                <FieldError
                  id="compare-error"
                  errors={bad?.errors.fields.compare ? [`compare ${bad.errors.fields.compare}`] : undefined}
                />
              </form>
            )}
            {configs && <RescoreButton runId={runId} configs={configs} />}
          </div>
        }
      />
      {unplaced.length > 0 && (
        <p role="alert" className="mb-3 rounded border border-bad/40 bg-bad-bg px-3 py-2 text-[12px] text-bad">
          This address has a bad parameter: {unplaced.join("; ")}.
        </p>
      )}
      {loaded.state === "empty" ? (
        <EmptyState title="This run has no score records yet">
          Charts and alarms appear once rollouts or score records of the run are ingested.
        </EmptyState>
      ) : (
        <div className="flex flex-col gap-3">
          {latest && (
            <div className="grid grid-cols-2 gap-2 md:grid-cols-5">
              <Stat label="Latest step" value={fmtInt(latest.step)} hint={`${fmtInt(latest.rollouts)} rollouts`} />
              <Stat
                label="Guardrail hits"
                value={fmtPct(latest.guardrailHitRate)}
                hint={`healthy ${fmtPct(loaded.data.thresholds.hitRateLow, 0)}–${fmtPct(loaded.data.thresholds.hitRateHigh, 0)}`}
              />
              <Stat
                label="Hand-off"
                value={fmtPct(latest.handoffRate)}
                hint={`alarm above ${fmtPct(loaded.data.thresholds.handoffCeiling, 0)}`}
              />
              <Stat label="Success" value={fmtPct(latest.successRate)} hint="reward ≥ 0.9" />
              <Stat label="Mean reward" value={fmtScore(latest.meanReward)} />
            </div>
          )}
          {loaded.data.missingCompare && (
            <p role="alert" className="rounded border border-warn bg-warn-bg px-3 py-1.5 text-[12px] text-warn">
              There is no run {loaded.data.missingCompare} to compare with.
            </p>
          )}
          {loaded.data.thresholdsInvalid && (
            <p role="alert" className="rounded border border-warn bg-warn-bg px-3 py-1.5 text-[12px] text-warn">
              The stored thresholds of this run are not valid; the defaults are in force until they are saved again.
            </p>
          )}
          {gate.report && <GateCard report={gate.report} />}
          <Card title={compareId ? `Alarms: ${runId} and ${compareId}` : "Alarms"}>
            {alarms.length === 0 ? (
              <p className="p-3 text-[12px] text-fg-muted">
                Not evaluated yet: alarms are evaluated after each ingest, re-score and submitted review of the run.
              </p>
            ) : (
              <AlarmTable alarms={[...alarms, ...compareAlarms]} showRun={!!compareId} />
            )}
          </Card>
          {judgements.length > 0 && (
            <OrderingTable
              runId={runId}
              points={orderingPoints(judgements, loaded.data.thresholds.auditWindow)}
              floor={loaded.data.thresholds.orderingFloor}
              minN={MIN_ORDERED_JUDGEMENTS}
            />
          )}
          <RunMonitorsLazy
            data={loaded.data}
            alarms={Object.fromEntries(
              alarms.map((a) => [
                a.alarm,
                { state: a.state, sinceStep: a.sinceStep, atStep: a.atStep, message: a.message },
              ]),
            )}
            keep={compareId ? { compare: compareId } : {}}
            csvBase={`/api/runs/${encodeURIComponent(runId)}/charts`}
            errors={bad?.errors.fields}
            given={bad?.given}
          />
          {events.length > 0 && (
            <Card title="Alarm changes">
              <AlarmEvents events={events} showRun={false} />
            </Card>
          )}
          <Card title="Alarm thresholds">
            {mayEditThresholds ? (
              <ThresholdsForm runId={runId} thresholds={loaded.data.thresholds} />
            ) : (
              <p className="p-3 text-[12px] text-fg-muted">
                Hit rate healthy {fmtPct(loaded.data.thresholds.hitRateLow, 0)}–
                {fmtPct(loaded.data.thresholds.hitRateHigh, 0)}, hand-off alarm above{" "}
                {fmtPct(loaded.data.thresholds.handoffCeiling, 0)}, within-group std floor{" "}
                {loaded.data.thresholds.groupStdFloor}, extraction accuracy floor{" "}
                {loaded.data.thresholds.extractionFloor}. Leads and admins can change them.
              </p>
            )}
          </Card>
          <Card title="Steps">
            <StepsTable runId={runId} rows={loaded.data.runs[0].rows} bucket={loaded.data.bucket} />
          </Card>
        </div>
      )}
    </>
  );
}
