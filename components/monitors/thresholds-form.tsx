"use client";
import { useActionState } from "react";
import { inputClass, FieldError, FormMessage } from "@/components/ui/field.tsx";
import { saveThresholdsAction } from "@/lib/actions/monitors.ts";
import { DEFAULT_THRESHOLDS, type Thresholds, type ThresholdsFormState } from "@/lib/monitors/schema.ts";

type Field = { name: keyof Thresholds; label: string; unit: "%" | "" | "steps" | "/1k steps"; hint: string };

const FIELDS: Field[] = [
  {
    name: "hitRateLow",
    label: "Hit rate band, low",
    unit: "%",
    hint: "guardrail hit rate below: guardrails not working",
  },
  { name: "hitRateHigh", label: "Hit rate band, high", unit: "%", hint: "above: caps flatten the group" },
  { name: "handoffCeiling", label: "Hand-off alarm", unit: "%", hint: "hand-off rate above" },
  { name: "groupStdFloor", label: "Within-group std floor", unit: "", hint: "no gradient below" },
  { name: "extractionFloor", label: "Extraction accuracy floor", unit: "%", hint: "extraction accuracy below" },
  { name: "auditWindow", label: "Shadow-audit window", unit: "steps", hint: "steps per audit point" },
  { name: "hackingWindow", label: "Reward-hacking window", unit: "steps", hint: "trend fitted over" },
  { name: "hackingRise", label: "Ledger reward rise", unit: "/1k steps", hint: "mean reward rising faster than" },
  {
    name: "hackingFall",
    label: "Human measure fall",
    unit: "/1k steps",
    hint: "while agreement or human success falls faster than",
  },
  {
    name: "trainedMismatchCeiling",
    label: "Trained-reward mismatch alarm",
    unit: "%",
    hint: "share of a step's rollouts whose trained reward differs from the ledger's above",
  },
  {
    name: "orderingFloor",
    label: "Ordering agreement floor",
    unit: "%",
    hint: "pairwise ordering agreement's 95% lower bound, per audit window, below",
  },
];

const shown = (f: Field, v: number) => (f.unit === "%" ? String(Math.round(v * 1e6) / 1e4) : String(v));

/** Leads and admins edit a run's alarm thresholds here; blank fields take the default. Rates are in percent. */
export function ThresholdsForm({ runId, thresholds }: { runId: string; thresholds: Thresholds }) {
  const [state, action, pending] = useActionState<ThresholdsFormState, FormData>(saveThresholdsAction, {});
  const current = state.thresholds ?? thresholds;
  return (
    <form action={action} aria-label="Alarm thresholds" className="flex flex-col gap-3 p-3" aria-busy={pending}>
      <input type="hidden" name="runId" value={runId} />
      {/* Remounted with the saved values, so "Reset to defaults" shows the defaults in the fields. */}
      <div
        key={JSON.stringify(state.values ?? current)}
        className="grid grid-cols-1 gap-x-4 gap-y-2 sm:grid-cols-2 lg:grid-cols-3"
      >
        {FIELDS.map((f) => {
          const err = state.fieldErrors?.[f.name];
          return (
            <label key={f.name} className="flex flex-col text-[12px]">
              <span>
                {f.label} {f.unit && <span className="text-fg-muted">({f.unit})</span>}
              </span>
              <input
                name={f.name}
                className={inputClass}
                inputMode="decimal"
                defaultValue={state.values?.[f.name] ?? shown(f, current[f.name])}
                placeholder={shown(f, DEFAULT_THRESHOLDS[f.name])}
                aria-invalid={err ? true : undefined}
                aria-describedby={err ? `${f.name}-error` : undefined}
              />
              <span className="text-[11px] text-fg-muted">
                {f.hint}; default {shown(f, DEFAULT_THRESHOLDS[f.name])}
              </span>
              <FieldError id={`${f.name}-error`} errors={err} />
            </label>
          );
        })}
      </div>
      <div className="flex items-center gap-2">
        <button
          type="submit"
          disabled={pending}
          className="rounded bg-accent px-3 py-1 text-[12px] text-accent-fg disabled:opacity-50"
        >
          {pending ? "Saving…" : "Save thresholds"}
        </button>
        {/* Not name="reset": a control named "reset" shadows form.reset(), which React calls after an action. */}
        <button
          type="submit"
          name="intent"
          value="reset"
          disabled={pending}
          className="rounded border border-border px-3 py-1 text-[12px] hover:bg-bg-muted"
        >
          Reset to defaults
        </button>
        <FormMessage state={state} className="text-[12px]" block />
      </div>
    </form>
  );
}
