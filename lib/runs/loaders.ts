// Page data of /runs/[run]: the charts (and a compared run), the run's summary, its stored alarm states and changes,
// its gate, the pairwise audit's ordering per window, the ledger's standing among the reward functions run on its
// audited items, and what the viewer may do there. Reads only: the alarms are
// the states the last write recorded, and the gate is concluded here without being stored (the writes and the API
// store it, lib/gate/refresh.ts).
import { listStoredConfigs } from "@/lib/verifier-configs/data.ts";
import { can, type Role } from "@/lib/auth/policy.ts";
import { loadRunGateReport } from "@/lib/gate/refresh.ts";
import { listAlarmEvents, listOrderingJudgements, listPersistedAlarms } from "@/lib/monitors/data.ts";
import { loadRunCharts } from "@/lib/monitors/loaders.ts";
import { orderingPoints } from "@/lib/monitors/ordering.ts";
import type { ChartQuery } from "@/lib/monitors/schema.ts";
import { getRunSummary, listRunIds } from "@/lib/runs/data.ts";
import { loadRunStanding } from "@/lib/leaderboard/loaders.ts";

/** The run page's data, or null when there is no such run. */
export async function loadRunPage(runId: string, query: ChartQuery, role: Role) {
  const charts = await loadRunCharts(runId, query);
  if (charts.state === "not_found") return null;
  const compareId = charts.state === "ok" ? (charts.data.runs[1]?.id ?? null) : null;
  const [summary, stored, events, runIds, gate, judgements, configs, standing] = await Promise.all([
    getRunSummary(runId),
    // The states the last write recorded: reading the page never evaluates (or changes) an alarm.
    listPersistedAlarms(compareId ? [runId, compareId] : [runId]),
    listAlarmEvents({ runId, limit: 10 }),
    listRunIds(),
    // The run's own gate, reused while its inputs are unchanged; the page does not store the verdict.
    loadRunGateReport(runId),
    // The pairwise audit's judgements (O(pair reviews of the run)), shown per audit window when there are any.
    charts.state === "ok" ? listOrderingJudgements(runId) : [],
    // Re-scoring a run is an admin's verifier-configuration task.
    can(role, "configs.manage") ? listStoredConfigs() : null,
    // Where the ledger's reward stands among the reward functions run on the run's audited items.
    can(role, "ledger.read") ? loadRunStanding(runId) : null,
  ]);
  return {
    charts,
    compareId,
    latest: summary?.latest ?? null,
    alarms: stored.filter((a) => a.runId === runId),
    compareAlarms: stored.filter((a) => a.runId === compareId),
    events,
    others: runIds.filter((id) => id !== runId),
    gate: gate.report,
    ordering:
      charts.state === "ok" && judgements.length > 0
        ? orderingPoints(judgements, charts.data.thresholds.auditWindow)
        : null,
    configs:
      configs?.map((c) => ({ id: c.id, label: `${c.name} v${c.version}${c.isDefault ? " (default)" : ""}` })) ?? null,
    mayEditThresholds: can(role, "audit.manage"),
    standing,
  };
}

export type RunPageData = NonNullable<Awaited<ReturnType<typeof loadRunPage>>>;
