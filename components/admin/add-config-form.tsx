"use client";

import { useActionState } from "react";
import type { FormState } from "@/lib/admin/schema.ts";
import { addConfigAction } from "@/lib/actions/verifier-configs.ts";
import { FormMessage, inputClass, Labeled, TextField } from "@/components/ui/field.tsx";

const EXAMPLE = '{"guardrails": {"tool_missing": {"on": true, "cap": 0.55}}}';

/** Upload or paste a verifier config (JSON merged onto the default config); errors name the field and its path. */
export function AddConfigForm() {
  const [state, action, pending] = useActionState<FormState, FormData>(addConfigAction, {});
  const err = state.fieldErrors ?? {};
  const v = state.values ?? {};
  return (
    // The key remounts the fields with what was typed when a submission is refused (React resets forms after actions).
    <form
      key={JSON.stringify(v)}
      action={action}
      className="grid gap-2 p-3 md:grid-cols-2"
      aria-label="Add a verifier config"
      noValidate
    >
      <TextField
        id="config-name"
        label="Name"
        name="name"
        defaultValue={v.name}
        placeholder="the file name when left empty"
        className={inputClass}
        errors={err.name}
      />
      <TextField
        id="config-file"
        label="JSON file"
        name="file"
        type="file"
        accept=".json,application/json"
        className="text-[13px]"
        errors={err.file}
      />
      <Labeled id="config-json" label="Or paste the config" errors={err.config} className="md:col-span-2">
        <textarea
          id="config-json"
          name="config"
          rows={6}
          defaultValue={v.config}
          placeholder={EXAMPLE}
          spellCheck={false}
          className={`${inputClass} font-mono text-[12px]`}
          aria-invalid={!!err.config}
          aria-describedby="config-json-help config-json-error"
        />
        <p id="config-json-help" className="mt-1 text-[12px] text-fg-subtle">
          Merged onto the default config: weights (five sub-scores summing to 1), guardrails (per code on and cap),
          handoff_outcome, claims.
        </p>
      </Labeled>
      <div className="flex items-center gap-3 md:col-span-2">
        <label className="inline-flex items-center gap-1 text-[13px]">
          <input type="checkbox" name="makeDefault" /> Make it the default
        </label>
        <button
          type="submit"
          disabled={pending}
          className="rounded bg-accent px-3 py-1 font-medium text-accent-fg disabled:opacity-60"
        >
          Add config
        </button>
        <FormMessage state={state} />
      </div>
    </form>
  );
}
