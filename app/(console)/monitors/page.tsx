import type { Metadata } from "next";
import { AlarmEvents } from "@/components/monitors/alarm-events.tsx";
import { AlarmTable, sortAlarms } from "@/components/monitors/alarm-table.tsx";
import { Card, Stat } from "@/components/ui/card.tsx";
import { EmptyState } from "@/components/ui/empty-state.tsx";
import { PageHeader } from "@/components/ui/page-header.tsx";
import { requirePageUser } from "@/lib/auth/guards.ts";
import { can, type Role } from "@/lib/auth/policy.ts";
import { env } from "@/lib/env.ts";
import { listAlarmEvents, listPersistedAlarms } from "@/lib/monitors/data.ts";
import { SavedSearchCharts } from "@/components/monitors/saved-search-charts.tsx";
import { listRunIds } from "@/lib/runs/data.ts";
import { listSavedSearches } from "@/lib/saved-searches/data.ts";
import { loadSearchCounts } from "@/lib/saved-searches/loaders.ts";

export const metadata: Metadata = { title: "Monitors" };

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

export default async function MonitorsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const user = await requirePageUser("runs.read");
  // The states the last write recorded (ingest, re-score, review, thresholds): reading this page changes none.
  const [stored, events] = await Promise.all([listPersistedAlarms(), listAlarmEvents({ limit: 25 })]);
  const searches = await savedSearchSection(user, first((await searchParams).run));
  const alarms = sortAlarms(stored);
  const count = (s: string) => alarms.filter((a) => a.atStep !== null && a.state === s).length;
  const webhook = !!env().VERITY_ALARM_WEBHOOK_URL;
  return (
    <>
      <PageHeader
        title="Monitors"
        description="Every training alarm of every run, worst first: guardrail hit rate, hand-off rate, within-group reward std, extraction accuracy and reward hacking."
      />
      {searches}
      {alarms.length === 0 ? (
        <EmptyState title="Nothing to monitor yet">
          Alarms are evaluated after each ingest, re-score and submitted review of a run.
        </EmptyState>
      ) : (
        <div className="flex flex-col gap-3">
          <div className="grid grid-cols-2 gap-2 md:grid-cols-4">
            <Stat label="Red" value={count("red")} hint="past the alarm line for several steps" />
            <Stat label="Amber" value={count("amber")} hint="near the line, or past it briefly" />
            <Stat label="Green" value={count("green")} />
            <Stat
              label="Webhook"
              value={webhook ? "on" : "off"}
              hint={webhook ? "state changes are posted" : "set VERITY_ALARM_WEBHOOK_URL"}
            />
          </div>
          <Card title="Alarms">
            <AlarmTable alarms={alarms} />
          </Card>
          <Card title="Recent changes">
            {events.length === 0 ? (
              <p className="p-3 text-[12px] text-fg-muted">No alarm has changed state yet.</p>
            ) : (
              <AlarmEvents events={events} />
            )}
          </Card>
        </div>
      )}
    </>
  );
}

/**
 * The user's saved searches and, for the picked run (`?run=`, else the first), each one's share per step. Saved
 * searches count ledger text, so they are shown to those who read the ledger.
 */
async function savedSearchSection(user: { id: number; role: Role }, asked: string | undefined) {
  if (!can(user.role, "ledger.read")) return null;
  const [runs, searches] = await Promise.all([listRunIds(), listSavedSearches(user.id)]);
  const run = asked && runs.includes(asked) ? asked : (runs[0] ?? null);
  const counts = run ? await loadSearchCounts(user.id, run) : [];
  return (
    <div className="mb-3">
      <SavedSearchCharts runs={runs} run={run} searches={searches} counts={counts} />
    </div>
  );
}
