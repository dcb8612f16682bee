"use client";

import { useActionState } from "react";
import { rescoreRunAction, type RescoreState } from "@/lib/actions/rescore.ts";
import { FormMessage } from "@/components/ui/field.tsx";

export type RescoreConfigOption = { id: number; label: string };

/**
 * Admin-only (the page renders it only for roles that may manage verifier configs): re-scores every rollout of the
 * run under the chosen config and shows what changed.
 */
export function RescoreButton({
  runId,
  configs,
  initialConfig = "default",
}: {
  runId: string;
  configs: RescoreConfigOption[];
  /** The config first selected ("default" or a stored config's id): the one just dry-run. */
  initialConfig?: string;
}) {
  const [state, action, pending] = useActionState<RescoreState, FormData>(rescoreRunAction, {});
  return (
    <form action={action} className="flex flex-col items-end gap-1" aria-label="Re-score this run" aria-busy={pending}>
      <input type="hidden" name="runId" value={runId} />
      <div className="flex items-center gap-1">
        <label className="text-[12px] text-fg-muted" htmlFor="rescore-config">
          Config
        </label>
        <select
          id="rescore-config"
          name="config"
          className="rounded border border-border bg-bg px-1 py-0.5 text-[12px]"
          defaultValue={initialConfig}
        >
          <option value="default">default</option>
          {configs.map((c) => (
            <option key={c.id} value={c.id}>
              {c.label}
            </option>
          ))}
        </select>
        <button
          type="submit"
          disabled={pending}
          className="rounded border border-border px-2 py-0.5 text-[12px] hover:bg-bg-muted disabled:opacity-50"
        >
          {pending ? "Re-scoring…" : "Re-score run"}
        </button>
      </div>
      <FormMessage state={state} className="text-[12px]" block />
      {state.report && (
        <pre className="max-w-[40rem] overflow-x-auto rounded border border-border bg-bg-muted p-2 text-left text-[11px]">
          {state.report.join("\n")}
        </pre>
      )}
    </form>
  );
}
