"use client";
import { useActionState } from "react";
import { cn } from "@/components/ui/cn.ts";
import { FormMessage, inputClass } from "@/components/ui/field.tsx";
import { saveClusterStateAction } from "@/lib/actions/clusters.ts";
import { CLUSTER_STATUSES, STATUS_LABELS, type ClusterStatus } from "@/lib/clusters/schema.ts";

/** A lead's triage of one cluster: pin it, set its status, keep a note. Saved (and logged in the activity log) by a server action. */
export function ClusterStateForm({
  runId,
  clusterKey,
  status,
  pinned,
  note,
}: {
  runId: string;
  clusterKey: string;
  status: ClusterStatus;
  pinned: boolean;
  note: string;
}) {
  const [state, action, pending] = useActionState(saveClusterStateAction, {});
  return (
    <form action={action} aria-label="Cluster triage" aria-busy={pending} className="flex flex-col gap-2 text-[12px]">
      <input type="hidden" name="run" value={runId} />
      <input type="hidden" name="key" value={clusterKey} />
      <div className="flex flex-wrap items-center gap-3">
        <label className="flex items-center gap-1.5">
          <span className="text-fg-muted">Status</span>
          <select name="status" defaultValue={status} className={cn(inputClass, "w-auto")}>
            {CLUSTER_STATUSES.map((s) => (
              <option key={s} value={s}>
                {STATUS_LABELS[s]}
              </option>
            ))}
          </select>
        </label>
        <label className="flex items-center gap-1.5">
          <input type="checkbox" name="pinned" defaultChecked={pinned} />
          <span>Pin to the top</span>
        </label>
      </div>
      <label className="flex flex-col gap-1">
        <span className="text-fg-muted">Note</span>
        <textarea
          name="note"
          defaultValue={note}
          rows={3}
          maxLength={4000}
          className={inputClass}
          placeholder="What data to build, who is on it…"
        />
      </label>
      {state.fieldErrors?.note && <p className="text-bad">{state.fieldErrors.note.join(" ")}</p>}
      <div className="flex items-center gap-2">
        <button type="submit" disabled={pending} className="rounded border border-border px-2 py-0.5 hover:bg-bg-muted">
          Save
        </button>
        <FormMessage state={state} />
      </div>
    </form>
  );
}
