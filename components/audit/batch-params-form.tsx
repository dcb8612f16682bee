import type { ReactNode } from "react";
import { FieldError, inputClass } from "@/components/ui/field.tsx";
import type { RunWindow } from "@/lib/audit/data.ts";

export type ParamValues = Record<string, string>;

function Field({
  name,
  label,
  hint,
  errors,
  children,
}: {
  name: string;
  label: string;
  hint?: string;
  errors?: string[];
  children: ReactNode;
}) {
  return (
    <div className="flex flex-col gap-0.5">
      <label htmlFor={`bp-${name}`} className="text-[12px] font-medium">
        {label}
      </label>
      {children}
      {hint && <span className="text-[11px] text-fg-muted">{hint}</span>}
      <FieldError id={`bp-${name}-error`} errors={errors} />
    </div>
  );
}

/** The sample's tuning fields, each a number with what it means. */
const TUNING = [
  {
    name: "minPerStratum",
    label: "Minimum per stratum",
    hint: "stratify by deciding guardrail; blank = no",
    mode: "numeric",
  },
  { name: "overlapRate", label: "Overlap", hint: "fraction of items for two reviewers", mode: "decimal" },
  {
    name: "tolerance",
    label: "Tolerance",
    hint: "reward difference that sends an item to adjudication",
    mode: "decimal",
  },
  { name: "delta", label: "δ (pairwise)", hint: "rewards differing by more: a clear pair", mode: "decimal" },
  {
    name: "nearTieRate",
    label: "Near-ties (pairwise)",
    hint: "fraction of groups offering a near-tie",
    mode: "decimal",
  },
] as const;

/**
 * The batch parameters as a GET form: "Preview" puts them in the URL, the page draws the sample from them (the
 * same schema as the create action and the CLI), and the URL reproduces the preview.
 */
export function BatchParamsForm({
  runs,
  values,
  errors,
}: {
  runs: RunWindow[];
  values: ParamValues;
  errors: Record<string, string[] | undefined>;
}) {
  const input = (name: string, extra: Record<string, unknown> = {}) => (
    <input
      id={`bp-${name}`}
      name={name}
      defaultValue={values[name] ?? ""}
      aria-invalid={errors[name] ? true : undefined}
      aria-describedby={errors[name] ? `bp-${name}-error` : undefined}
      className={inputClass}
      {...extra}
    />
  );
  return (
    <form method="get" action="/audit/new" aria-label="Batch parameters" className="grid gap-3 p-3 md:grid-cols-3">
      {/* the browser's filters of "Audit these": kept through every preview, shown above the preview */}
      {values.filter && (
        <div className="md:col-span-3">
          <input type="hidden" name="filter" value={values.filter} />
          <FieldError id="bp-filter-error" errors={errors.filter} />
        </div>
      )}
      <Field name="runId" label="Run" errors={errors.runId}>
        <select id="bp-runId" name="runId" defaultValue={values.runId ?? ""} className={inputClass}>
          {runs.map((r) => (
            <option key={r.id} value={r.id}>
              {r.id}
              {r.firstStep !== null ? ` (steps ${r.firstStep}–${r.lastStep})` : " (no ledger entries)"}
            </option>
          ))}
        </select>
      </Field>
      <Field name="kind" label="Kind" errors={errors.kind}>
        <select id="bp-kind" name="kind" defaultValue={values.kind || "tickets"} className={inputClass}>
          <option value="tickets">tickets (shadow scoring)</option>
          <option value="pairwise">pairwise (two rollouts of a GRPO group)</option>
        </select>
      </Field>
      <Field name="stepFrom" label="From step" errors={errors.stepFrom}>
        {input("stepFrom", { inputMode: "numeric" })}
      </Field>
      <Field name="stepTo" label="To step" errors={errors.stepTo}>
        {input("stepTo", { inputMode: "numeric" })}
      </Field>
      <Field name="rate" label="Rate" hint="fraction of tickets (pairwise: of groups): 0.01 = 1%" errors={errors.rate}>
        {input("rate", { inputMode: "decimal" })}
      </Field>
      <Field name="salt" label="Salt" hint="the same salt draws the same sample" errors={errors.salt}>
        {input("salt")}
      </Field>
      <Field name="pick" label="Pick" errors={errors.pick}>
        <select id="bp-pick" name="pick" defaultValue={values.pick ?? "one"} className={inputClass}>
          <option value="one">one rollout per ticket (by hash)</option>
          <option value="all">all rollouts of the ticket</option>
        </select>
      </Field>
      {TUNING.map((t) => (
        <Field key={t.name} name={t.name} label={t.label} hint={t.hint} errors={errors[t.name]}>
          {input(t.name, { inputMode: t.mode })}
        </Field>
      ))}
      <Field name="name" label="Name" hint="blank = run, window and rate" errors={errors.name}>
        {input("name")}
      </Field>
      <div className="flex items-end md:col-span-2">
        <button
          type="submit"
          className="rounded border border-border px-3 py-1 text-[13px] font-medium hover:bg-bg-muted"
        >
          Preview
        </button>
      </div>
    </form>
  );
}
