"use client";

import { useActionState } from "react";
import { DryRunTable } from "@/components/cases/dry-run-table.tsx";
import { RescoreButton, type RescoreConfigOption } from "@/components/runs/rescore-button.tsx";
import { FormMessage, inputClass, Labeled, Options, TextField } from "@/components/ui/field.tsx";
import { dryRunConfigAction, type ConfigDryRunState } from "@/lib/actions/verifier-configs.ts";

/**
 * Before re-scoring a run under a config: the dry run over the run or a reproducible sample of it (the diff per
 * rollout, as the workbench's Try it shows), then the re-score of that run under that config.
 */
export function ConfigDryRunForm({ runs, configs }: { runs: string[]; configs: RescoreConfigOption[] }) {
  const [state, action, pending] = useActionState<ConfigDryRunState, FormData>(dryRunConfigAction, {});
  const err = state.fieldErrors ?? {};
  const select = "rounded border border-border bg-bg px-2 py-1 text-[13px] aria-[invalid=true]:border-bad";
  return (
    <div className="p-3">
      <form action={action} className="flex flex-wrap items-end gap-3" aria-label="Dry-run a config" noValidate>
        <Labeled id="dry-run-run" label="Run" errors={err.runId}>
          <select id="dry-run-run" name="runId" className={select} aria-invalid={!!err.runId}>
            <Options values={runs} />
          </select>
        </Labeled>
        <Labeled id="dry-run-config" label="Config" errors={err.config}>
          <select id="dry-run-config" name="config" className={select} aria-invalid={!!err.config}>
            <option value="default">default</option>
            {configs.map((c) => (
              <option key={c.id} value={c.id}>
                {c.label}
              </option>
            ))}
          </select>
        </Labeled>
        <TextField
          id="dry-run-sample"
          label="Sample size"
          name="sample"
          inputMode="numeric"
          placeholder="the whole run"
          className={`${inputClass} w-32`}
          errors={err.sample}
        />
        <Labeled id="dry-run-seed" label="Seed" errors={err.seed}>
          <input id="dry-run-seed" name="seed" placeholder="1" className={`${inputClass} w-24`} />
        </Labeled>
        <button
          type="submit"
          disabled={pending}
          className="rounded border border-border px-3 py-1 font-medium disabled:opacity-60"
        >
          {pending ? "Scoring…" : "Dry run"}
        </button>
      </form>
      <div className="mt-2">
        <FormMessage state={state} block />
      </div>
      {state.ok && state.view && state.runId && (
        <>
          <div className="mt-3">
            <DryRunTable rows={state.view.rows} />
            {state.view.truncated && (
              <p className="p-2 text-[12px] text-fg-subtle">
                Showing {state.view.rows.length} of {state.view.totals.rollouts.toLocaleString("en-US")} rollouts, those
                with another reward, guardrail or a review first.
              </p>
            )}
          </div>
          <div className="mt-3 flex justify-end">
            <RescoreButton
              key={`${state.runId}/${state.config}`}
              runId={state.runId}
              configs={configs}
              initialConfig={state.config}
            />
          </div>
        </>
      )}
    </div>
  );
}
