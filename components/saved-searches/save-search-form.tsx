"use client";
// "Save this search" beside the trajectory browser's search box: names the box's search, optionally keeps it to the
// view's run and gives its per-step chart an alarm line. Folded until opened, so the browser stays one line high.
import { useActionState } from "react";
import { FieldError, FormMessage, inputClass } from "@/components/ui/field.tsx";
import { saveSearchAction } from "@/lib/actions/saved-searches.ts";
import type { SavedSearchFormState } from "@/lib/saved-searches/schema.ts";

export function SaveSearchForm({ query, run }: { query: string; run?: string }) {
  const [state, action, pending] = useActionState<SavedSearchFormState, FormData>(saveSearchAction, {});
  const errors = state.fieldErrors ?? {};
  return (
    <details className="relative">
      <summary className="cursor-pointer select-none rounded border border-border px-2 py-1 text-[12px] hover:bg-bg-muted">
        Save this search
      </summary>
      <form
        action={action}
        aria-label="Save this search"
        className="absolute right-0 z-20 mt-1 flex w-80 flex-col gap-2 rounded-md border border-border bg-bg p-3 shadow-lg"
      >
        <input type="hidden" name="query" value={query} />
        <p className="text-[12px] text-fg-muted">
          Search: <span className="font-mono">{query}</span>
        </p>
        <FieldError id="save-search-query-error" errors={errors.query} />
        <label className="flex flex-col gap-0.5 text-[12px] font-medium">
          Name
          <input name="name" required maxLength={80} className={inputClass} defaultValue={query.slice(0, 80)} />
        </label>
        <FieldError id="save-search-name-error" errors={errors.name} />
        {run && (
          <label className="flex items-center gap-2 text-[12px]">
            <input type="checkbox" name="runId" value={run} />
            Only in run <span className="font-mono">{run}</span>
          </label>
        )}
        <label className="flex flex-col gap-0.5 text-[12px] font-medium">
          Alarm line (optional)
          <input name="alarmShare" inputMode="decimal" placeholder="0.05 = 5% of a step" className={inputClass} />
        </label>
        <FieldError id="save-search-alarm-error" errors={errors.alarmShare} />
        <button
          type="submit"
          disabled={pending}
          className="self-start rounded bg-accent px-3 py-1 text-[12px] font-medium text-accent-fg disabled:opacity-60"
        >
          Save
        </button>
        <FormMessage state={state} className="text-[12px]" block />
      </form>
    </details>
  );
}
