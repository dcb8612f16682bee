import type { Metadata } from "next";
import { CompareForm } from "@/components/runs/compare-form.tsx";
import { RunsTable } from "@/components/runs/runs-table.tsx";
import { Card } from "@/components/ui/card.tsx";
import { EmptyState } from "@/components/ui/empty-state.tsx";
import { PageHeader } from "@/components/ui/page-header.tsx";
import { requirePageUser } from "@/lib/auth/guards.ts";
import { listPersistedAlarms, listRunThresholds } from "@/lib/monitors/data.ts";
import type { PersistedAlarm } from "@/lib/monitors/alarm-state.ts";
import { listRunSummariesForPage } from "@/lib/runs/data.ts";

export const metadata: Metadata = { title: "Runs" };

export default async function RunsPage() {
  await requirePageUser("runs.read");
  const [runs, thresholds, alarms] = await Promise.all([
    listRunSummariesForPage(),
    listRunThresholds(),
    // The states the last write recorded: reading a page never evaluates (or changes) an alarm.
    listPersistedAlarms(),
  ]);
  const byRun = new Map<string, PersistedAlarm[]>();
  for (const a of alarms) byRun.set(a.runId, [...(byRun.get(a.runId) ?? []), a]);
  return (
    <>
      <PageHeader
        title="Runs"
        description="Training runs in the reward ledger with the health of their latest step and their raised alarms."
        actions={<CompareForm runIds={runs.map((r) => r.id)} />}
      />
      {runs.length === 0 ? (
        <EmptyState title="No runs yet">
          Push rollouts or score records to <code>POST /api/v1/ingest</code>, or load a file with{" "}
          <code>npm run -s verity -- ingest FILE</code>.
        </EmptyState>
      ) : (
        <Card>
          <RunsTable runs={runs} alarms={byRun} thresholds={thresholds} />
        </Card>
      )}
    </>
  );
}
