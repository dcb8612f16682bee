"use client";

import { useActionState } from "react";
import { inputClass } from "@/components/ui/field.tsx";
import { markDefectFixedAction, type FixFormState } from "@/lib/actions/defects.ts";

/** "Mark fixed": the case version (spec defect) or stored config id (rule defect) that fixes it. */
export function DefectFixForm({ runId, defectId, spec }: { runId: string; defectId: string; spec: boolean }) {
  const [state, action, pending] = useActionState<FixFormState, FormData>(markDefectFixedAction, {});
  const err = state.fieldErrors?.fixRef?.[0];
  return (
    <form action={action} className="flex flex-wrap items-center gap-1" aria-label={`Mark defect ${defectId} fixed`}>
      <input type="hidden" name="runId" value={runId} />
      <input type="hidden" name="defectId" value={defectId} />
      <input
        name="fixRef"
        aria-label={spec ? "Case version" : "Config id"}
        placeholder={spec ? "case version" : "config id"}
        className={`${inputClass} h-6 w-28`}
        aria-invalid={!!err}
      />
      <button type="submit" disabled={pending} className="h-6 rounded border border-border px-2 text-[12px]">
        Mark fixed
      </button>
      {(err || state.message) && (
        <span role={state.ok ? "status" : "alert"} className={state.ok ? "text-good" : "text-bad"}>
          {err ?? state.message}
        </span>
      )}
    </form>
  );
}
