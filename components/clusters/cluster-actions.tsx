import Link from "next/link";
import { StatusBadge } from "@/components/clusters/cluster-format.tsx";
import { ClusterStateForm } from "@/components/clusters/state-form.tsx";
import { DateTime } from "@/components/ui/datetime.tsx";
import type { ClusterStateView } from "@/lib/clusters/detail-data.ts";
import { browserHref, bulkFixHref, exportHref, parseKey, type LinkWindow } from "@/lib/clusters/keys.ts";

/** Links that act on a cluster: its rollouts in the trajectory browser, and its backlog download. */
export function ClusterLinks({
  window,
  clusterKey,
  canExport,
  canFix = false,
}: {
  window: LinkWindow;
  clusterKey: string;
  canExport: boolean;
  /** Leads and admins (policy cases.revise): the bulk fix of the cluster's cases. */
  canFix?: boolean;
}) {
  const k = parseKey(clusterKey);
  if (!k) return null;
  return (
    <div className="flex flex-wrap items-center gap-3 text-[12px]">
      <Link href={browserHref(window, k)} className="text-accent hover:underline">
        Open its rollouts in the trajectory browser →
      </Link>
      {canFix && (
        <Link href={bulkFixHref(window, clusterKey)} className="text-accent hover:underline">
          Fix its cases (bulk spec change) →
        </Link>
      )}
      {canExport && (
        <a href={exportHref(window, clusterKey)} className="text-accent hover:underline" download>
          Export as data backlog (NDJSON)
        </a>
      )}
      {canExport && (
        <a href={exportHref(window, clusterKey, "parquet")} className="text-accent hover:underline" download>
          Export its rollouts as Parquet
        </a>
      )}
    </div>
  );
}

/** The triage of a cluster: the form for leads and admins, the saved state for everyone else. */
export function ClusterTriage({
  runId,
  clusterKey,
  state,
  canEdit,
}: {
  runId: string;
  clusterKey: string;
  state: ClusterStateView | undefined;
  canEdit: boolean;
}) {
  const saved = state && (
    <p className="text-[11px] text-fg-muted">
      Last changed by {state.updatedBy ?? "someone"} at <DateTime value={state.updatedAt} />
    </p>
  );
  if (canEdit) {
    return (
      <div className="space-y-1">
        <ClusterStateForm
          key={clusterKey}
          runId={runId}
          clusterKey={clusterKey}
          status={state?.status ?? "open"}
          pinned={state?.pinned ?? false}
          note={state?.note ?? ""}
        />
        {saved}
      </div>
    );
  }
  return (
    <div className="space-y-1 text-[12px]" data-testid="cluster-state">
      <div className="flex items-center gap-2">
        <span className="text-fg-muted">Status</span>
        <StatusBadge status={state?.status ?? "open"} />
        {state?.pinned && <span className="text-accent">★ pinned</span>}
      </div>
      {state?.note && <p className="whitespace-pre-wrap">{state.note}</p>}
      {saved}
    </div>
  );
}
