import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { GateCard } from "@/components/gate/gate-card.tsx";
import { LedgerStandingCard } from "@/components/rewards/ledger-standing.tsx";
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
import { requirePageUser } from "@/lib/auth/guards.ts";
import { MIN_ORDERED_JUDGEMENTS } from "@/lib/stats/alarm-presets.ts";
import type { ChartData } from "@/lib/monitors/loaders.ts";
import { chartQueryMessages, parseChartQuery, type ChartQueryErrors } from "@/lib/monitors/schema.ts";
import { loadRunPage, type RunPageData } from "@/lib/runs/loaders.ts";
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
  const page = await loadRunPage(runId, parsed.query, user.role);
  if (!page) notFound();
  const { charts, others } = page;
  // Errors with no field on the page: unknown parameters, and all of them while there are no charts.
  const unplaced = bad
    ? charts.state === "empty"
      ? chartQueryMessages(bad.errors)
      : [
          ...bad.errors.other,
          ...(bad.errors.fields.compare && !others.length ? [`compare ${bad.errors.fields.compare}`] : []),
        ]
    : [];

  return (
    <>
      <PageHeader
        title={`Run ${charts.run.id}`}
        description={charts.run.description || "Training health of this run's current ledger entries, per step."}
        actions={<RunActions runId={runId} page={page} compareError={bad?.errors.fields.compare} />}
      />
      {unplaced.length > 0 && (
        <p role="alert" className="mb-3 rounded border border-bad/40 bg-bad-bg px-3 py-2 text-[12px] text-bad">
          This address has a bad parameter: {unplaced.join("; ")}.
        </p>
      )}
      {charts.state === "empty" ? (
        <EmptyState title="This run has no score records yet">
          Charts and alarms appear once rollouts or score records of the run are ingested.
        </EmptyState>
      ) : (
        <RunHealth runId={runId} page={page} data={charts.data} bad={bad} />
      )}
    </>
  );
}

/** The header's links, the form that overlays another run, and (for admins) the re-score button. */
function RunActions({ runId, page, compareError }: { runId: string; page: RunPageData; compareError?: string }) {
  const { others, compareId, configs } = page;
  return (
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
              aria-invalid={compareError ? true : undefined}
              aria-describedby={compareError ? "compare-error" : undefined}
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
          <FieldError id="compare-error" errors={compareError ? [`compare ${compareError}`] : undefined} />
        </form>
      )}
      {configs && <RescoreButton runId={runId} configs={configs} />}
    </div>
  );
}

/** The run's health: latest figures, notices, the gate, alarms, ordering, charts, alarm changes, thresholds, steps. */
function RunHealth({
  runId,
  page,
  data,
  bad,
}: {
  runId: string;
  page: RunPageData;
  data: ChartData;
  bad: { errors: ChartQueryErrors; given: Record<string, string> } | null;
}) {
  const { compareId, alarms, compareAlarms, latest, events } = page;
  return (
    <div className="flex flex-col gap-3">
      {latest && <LatestStats latest={latest} thresholds={data.thresholds} />}
      {data.missingCompare && (
        <p role="alert" className="rounded border border-warn bg-warn-bg px-3 py-1.5 text-[12px] text-warn">
          There is no run {data.missingCompare} to compare with.
        </p>
      )}
      {data.thresholdsInvalid && (
        <p role="alert" className="rounded border border-warn bg-warn-bg px-3 py-1.5 text-[12px] text-warn">
          The stored thresholds of this run are not valid; the defaults are in force until they are saved again.
        </p>
      )}
      {page.gate && <GateCard report={page.gate} />}
      {page.standing && <LedgerStandingCard runId={runId} standing={page.standing} />}
      <Card title={compareId ? `Alarms: ${runId} and ${compareId}` : "Alarms"}>
        {alarms.length === 0 ? (
          <p className="p-3 text-[12px] text-fg-muted">
            Not evaluated yet: alarms are evaluated after each ingest, re-score and submitted review of the run.
          </p>
        ) : (
          <AlarmTable alarms={[...alarms, ...compareAlarms]} showRun={!!compareId} />
        )}
      </Card>
      {page.ordering && (
        <OrderingTable
          runId={runId}
          points={page.ordering}
          floor={data.thresholds.orderingFloor}
          minN={MIN_ORDERED_JUDGEMENTS}
        />
      )}
      <RunMonitorsLazy
        data={data}
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
      <ThresholdsCard runId={runId} thresholds={data.thresholds} mayEdit={page.mayEditThresholds} />
      <Card title="Steps">
        <StepsTable runId={runId} rows={data.runs[0].rows} bucket={data.bucket} />
      </Card>
    </div>
  );
}

function LatestStats({
  latest,
  thresholds,
}: {
  latest: NonNullable<RunPageData["latest"]>;
  thresholds: ChartData["thresholds"];
}) {
  return (
    <div className="grid grid-cols-2 gap-2 md:grid-cols-5">
      <Stat label="Latest step" value={fmtInt(latest.step)} hint={`${fmtInt(latest.rollouts)} rollouts`} />
      <Stat
        label="Guardrail hits"
        value={fmtPct(latest.guardrailHitRate)}
        hint={`healthy ${fmtPct(thresholds.hitRateLow, 0)}–${fmtPct(thresholds.hitRateHigh, 0)}`}
      />
      <Stat
        label="Hand-off"
        value={fmtPct(latest.handoffRate)}
        hint={`alarm above ${fmtPct(thresholds.handoffCeiling, 0)}`}
      />
      <Stat label="Success" value={fmtPct(latest.successRate)} hint="reward ≥ 0.9" />
      <Stat label="Mean reward" value={fmtScore(latest.meanReward)} />
    </div>
  );
}

/** The run's alarm thresholds: the form for leads and admins, the values in a sentence for the others. */
function ThresholdsCard({
  runId,
  thresholds,
  mayEdit,
}: {
  runId: string;
  thresholds: ChartData["thresholds"];
  mayEdit: boolean;
}) {
  return (
    <Card title="Alarm thresholds">
      {mayEdit ? (
        <ThresholdsForm runId={runId} thresholds={thresholds} />
      ) : (
        <p className="p-3 text-[12px] text-fg-muted">
          Hit rate healthy {fmtPct(thresholds.hitRateLow, 0)}–{fmtPct(thresholds.hitRateHigh, 0)}, hand-off alarm above{" "}
          {fmtPct(thresholds.handoffCeiling, 0)}, within-group std floor {thresholds.groupStdFloor}, extraction accuracy
          floor {thresholds.extractionFloor}. Leads and admins can change them.
        </p>
      )}
    </Card>
  );
}
