"use client";

import { useActionState } from "react";
import { createBatchAction } from "@/lib/actions/audit.ts";
import type { FormState } from "@/lib/audit/schema.ts";

/** Creates the batch just previewed: the parameters (salt included) travel as hidden fields. */
export function CreateBatchForm({ values, items }: { values: Record<string, string>; items: number }) {
  const [state, action, pending] = useActionState<FormState, FormData>(createBatchAction, {});
  return (
    <form action={action} aria-label="Create batch" className="flex flex-wrap items-center gap-2 px-3 py-2">
      {Object.entries(values).map(([k, v]) => (
        <input key={k} type="hidden" name={k} value={v} />
      ))}
      <button
        type="submit"
        disabled={pending || items === 0}
        className="rounded bg-accent px-3 py-1 text-[13px] font-medium text-accent-fg disabled:opacity-60"
      >
        Create batch ({items} items)
      </button>
      {state.message && (
        <span role="alert" className="text-[12px] text-bad">
          {state.message}
          {state.fieldErrors ? ` ${Object.values(state.fieldErrors).flat().filter(Boolean).join(" ")}` : ""}
        </span>
      )}
    </form>
  );
}
