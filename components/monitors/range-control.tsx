"use client";
import { useState } from "react";
import { FieldError } from "@/components/ui/field.tsx";
import { parseChartQuery } from "@/lib/monitors/schema.ts";

type RangeErrors = { from?: string; to?: string };

/**
 * The shared step range as two numbers: what the brush sets, typed instead. Typed values follow the address's rules
 * (lib/monitors/schema.ts): a bad one is shown at its field and nothing is applied; `onApply` gets a range within
 * the run (a blank end is the run's). `given` and `errors` are the address's own bad values, shown the same way.
 */
export function RangeControl({
  range,
  extent,
  pending,
  onApply,
  given = {},
  errors: addressErrors = {},
}: {
  range: { from: number; to: number };
  extent: { first: number; last: number };
  pending: boolean;
  onApply: (from: number, to: number) => void;
  given?: { from?: string; to?: string };
  errors?: RangeErrors;
}) {
  const [from, setFrom] = useState(addressErrors.from || addressErrors.to ? (given.from ?? "") : String(range.from));
  const [to, setTo] = useState(addressErrors.from || addressErrors.to ? (given.to ?? "") : String(range.to));
  const [errors, setErrors] = useState<RangeErrors>(addressErrors);
  const zoomed = range.from !== extent.first || range.to !== extent.last;
  const clamp = (v: number) => Math.min(extent.last, Math.max(extent.first, v));
  return (
    <form
      className="flex flex-wrap items-start gap-2 text-[12px]"
      aria-label="Step range"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        const parsed = parseChartQuery({ from, to });
        if (!parsed.ok) return setErrors({ from: parsed.errors.fields.from, to: parsed.errors.fields.to });
        setErrors({});
        onApply(clamp(parsed.query.from ?? extent.first), clamp(parsed.query.to ?? extent.last));
      }}
    >
      <StepField name="from" label="From step" value={from} onChange={setFrom} error={errors.from} />
      <StepField name="to" label="To step" value={to} onChange={setTo} error={errors.to} />
      <button
        type="submit"
        className="mt-4 rounded border border-border px-2 py-0.5 hover:bg-bg-muted"
        disabled={pending}
      >
        Zoom
      </button>
      {zoomed && (
        <button
          type="button"
          className="mt-4 rounded border border-border px-2 py-0.5 hover:bg-bg-muted"
          disabled={pending}
          onClick={() => {
            setFrom(String(extent.first));
            setTo(String(extent.last));
            setErrors({});
            onApply(extent.first, extent.last);
          }}
        >
          Whole run
        </button>
      )}
      <span className="mt-4 text-fg-muted" aria-live="polite">
        {pending
          ? "Loading…"
          : zoomed
            ? `Showing steps ${range.from.toLocaleString("en-US")}–${range.to.toLocaleString("en-US")} of ${extent.first.toLocaleString("en-US")}–${extent.last.toLocaleString("en-US")}`
            : "Whole run"}
      </span>
    </form>
  );
}

function StepField({
  name,
  label,
  value,
  onChange,
  error,
}: {
  name: "from" | "to";
  label: string;
  value: string;
  onChange: (v: string) => void;
  error?: string;
}) {
  const id = `range-${name}-error`;
  return (
    <label className="flex max-w-56 flex-col">
      <span className="text-fg-muted">{label}</span>
      <input
        name={name}
        className="w-24 rounded border border-border bg-bg px-1.5 py-0.5 aria-[invalid=true]:border-bad"
        inputMode="numeric"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? id : undefined}
      />
      <FieldError id={id} errors={error ? [`${name} ${error}`] : undefined} />
    </label>
  );
}
