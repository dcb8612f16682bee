"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { createContext, useContext, type FormEvent, type ReactNode } from "react";
import type { BrowseParams } from "@/lib/ledger/browse-schema.ts";
import { Options } from "@/components/ui/field.tsx";
import { SearchBox } from "@/components/search/search-box.tsx";
import {
  DIMENSION_REASON_CODES,
  DIMENSIONS,
  ERROR_REASON_CODES,
  GUARDRAIL_CODES,
  WARNING_REASON_CODES,
} from "@/lib/verifier/codes.ts";

// Every code the verifier can write (lib/verifier/codes.ts), so a new one is offered as soon as it exists.
const GUARDRAILS: string[] = [...GUARDRAIL_CODES];
const DIMS = DIMENSIONS;
const REASONS = [...DIMENSION_REASON_CODES, ...ERROR_REASON_CODES, ...WARNING_REASON_CODES, ...GUARDRAIL_CODES];

// filters kept under "More filters", which opens by itself when one of them is set
const MORE = [
  ...DIMS.flatMap((d) => [`${d}_min`, `${d}_max`] as const),
  "reward_below",
  "weakest",
  "status",
  "reason",
  "sig",
  "sandbox_write",
  "sampled",
  "reviewed",
] as const satisfies readonly (keyof BrowseParams)[];
/** The filters that have a field of their own in the form (a refused one is shown there; others above Apply). */
const FIELD_NAMES = new Set<string>([
  "run",
  "step_from",
  "step_to",
  "category",
  "reward_min",
  "reward_max",
  "any",
  "all",
  "none",
  "deciding",
  "capped",
  "handoff",
  "trained_differs",
  "q",
  ...MORE,
]);

const input = "h-7 rounded border border-border bg-bg px-1.5 text-[12px]";

/** What was wrong with each filter of the address (field → message), shown at the field it belongs to. */
const Problems = createContext<Record<string, string>>({});

function Problem({ name }: { name?: string }) {
  const message = useContext(Problems)[name ?? ""];
  if (!message) return null;
  return (
    <span role="alert" data-problem={name} className="max-w-56 text-[11px] text-danger">
      {message}
    </span>
  );
}

function Field({ label, name, children }: { label: string; name?: string; children: ReactNode }) {
  return (
    <label className="flex flex-col gap-0.5 text-[11px] text-fg-muted">
      {label}
      {children}
      <Problem name={name} />
    </label>
  );
}

function Checks({
  name,
  legend,
  values,
  selected,
}: {
  name: string;
  legend: string;
  values: string[];
  selected?: string[];
}) {
  return (
    <details className="relative">
      <summary className={`${input} flex cursor-pointer select-none items-center`}>
        {legend}
        {selected?.length ? ` (${selected.length})` : ""}
      </summary>
      <fieldset className="absolute z-20 mt-1 w-60 rounded-md border border-border bg-bg p-2 shadow-lg">
        <legend className="sr-only">{legend}</legend>
        {values.map((v) => (
          <label key={v} className="flex items-center gap-2 py-0.5 text-[12px]">
            <input type="checkbox" name={name} value={v} defaultChecked={selected?.includes(v)} />
            {v}
          </label>
        ))}
      </fieldset>
      <Problem name={name} />
    </details>
  );
}

function YesNo({
  name,
  label,
  value,
  extra = [],
}: {
  name: string;
  label: string;
  value?: string;
  extra?: { value: string; label: string }[];
}) {
  return (
    <Field label={label} name={name}>
      <select name={name} defaultValue={value ?? ""} className={input}>
        <option value="">any</option>
        <option value="yes">yes</option>
        <option value="no">no</option>
        {extra.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </Field>
  );
}

/** A share in [0, 1] (a reward or a sub-score bound). */
function ShareInput({
  name,
  value,
  step = "0.01",
  width = "w-20",
  label,
}: {
  name: string;
  value: number | undefined;
  step?: string;
  width?: string;
  label?: string;
}) {
  return (
    <input
      name={name}
      type="number"
      step={step}
      min={0}
      max={1}
      defaultValue={value}
      className={`${input} ${width}`}
      aria-label={label}
    />
  );
}

/** A pick of one value, or none (`blank` names what none means). */
function Choice({ name, value, blank, options }: { name: string; value?: string; blank: string; options: string[] }) {
  return (
    <select name={name} defaultValue={value ?? ""} className={input}>
      <option value="">{blank}</option>
      <Options values={options} />
    </select>
  );
}

/** The view's address: every filled field (several values joined by commas) and the sort when it is not the default. */
function filterHref(form: HTMLFormElement, params: BrowseParams): string {
  const q = new URLSearchParams();
  const data = new FormData(form);
  for (const key of new Set(data.keys())) {
    const values = data
      .getAll(key)
      .map(String)
      .filter((v) => v.trim() !== "");
    if (values.length) q.set(key, values.join(","));
  }
  if (params.sort !== "id") q.set("sort", params.sort);
  if (params.dir !== "desc") q.set("dir", params.dir);
  return `/trajectories${q.size ? `?${q}` : ""}`;
}

/** The browser's filters. Submitting replaces the URL (empty fields dropped), which re-renders the page. */
export function FilterForm({
  params,
  runs,
  categories,
  problems = {},
}: {
  params: BrowseParams;
  runs: string[];
  categories: string[];
  /** Filters of the address that were refused (field → why); the others are applied and shown as usual. */
  problems?: Record<string, string>;
}) {
  const router = useRouter();
  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    router.push(filterHref(e.currentTarget, params));
  }
  const unplaced = Object.entries(problems).filter(([k]) => !FIELD_NAMES.has(k));
  return (
    <Problems.Provider value={problems}>
      <form
        onSubmit={submit}
        className="flex flex-wrap items-end gap-2 border-b border-border px-3 py-2"
        aria-label="Filters"
      >
        <MainFilters params={params} runs={runs} categories={categories} />
        <details className="basis-full" open={MORE.some((k) => params[k] !== undefined || k in problems)}>
          <summary className="cursor-pointer text-[12px] text-fg-muted">More filters</summary>
          <MoreFilters params={params} />
        </details>
        {unplaced.length > 0 && (
          <div role="alert" className="basis-full text-[12px] text-danger">
            {unplaced.map(([k, m]) => (
              <p key={k}>{m}</p>
            ))}
          </div>
        )}
        <div className="flex gap-2">
          <button type="submit" className="h-7 rounded bg-accent px-3 text-[12px] font-medium text-accent-fg">
            Apply
          </button>
          <Link href="/trajectories" className="flex h-7 items-center rounded border border-border px-3 text-[12px]">
            Clear
          </Link>
        </div>
      </form>
    </Problems.Provider>
  );
}

/** The filters always shown: the search (text, or a ticket or trajectory id), run, steps, category, reward,
 * guardrails and outcome flags. */
function MainFilters({ params, runs, categories }: { params: BrowseParams; runs: string[]; categories: string[] }) {
  return (
    <>
      <div className="flex flex-col">
        <SearchBox value={params.q} describedBy={useContext(Problems).q ? "search-problem" : undefined} />
        <span id="search-problem">
          <Problem name="q" />
        </span>
      </div>
      <Field label="Run" name="run">
        <Choice name="run" value={params.run} blank="all runs" options={runs} />
      </Field>
      <Field label="Steps from" name="step_from">
        <input name="step_from" type="number" min={0} defaultValue={params.step_from} className={`${input} w-20`} />
      </Field>
      <Field label="to" name="step_to">
        <input name="step_to" type="number" min={0} defaultValue={params.step_to} className={`${input} w-20`} />
      </Field>
      <Field label="Category" name="category">
        <Choice name="category" value={params.category?.[0]} blank="all" options={categories} />
      </Field>
      <Field label="Reward min" name="reward_min">
        <ShareInput name="reward_min" value={params.reward_min} />
      </Field>
      <Field label="Reward max" name="reward_max">
        <ShareInput name="reward_max" value={params.reward_max} />
      </Field>
      <Checks name="any" legend="Guardrail any of" values={GUARDRAILS} selected={params.any} />
      <Checks name="all" legend="All of" values={GUARDRAILS} selected={params.all} />
      <Checks name="none" legend="None of" values={GUARDRAILS} selected={params.none} />
      <Checks name="deciding" legend="Deciding" values={[...GUARDRAILS, "none"]} selected={params.deciding} />
      <YesNo name="capped" label="Capped" value={params.capped} />
      <YesNo
        name="handoff"
        label="Hand-off"
        value={params.handoff}
        extra={[{ value: "credited", label: "credited on its outcome" }]}
      />
      <YesNo name="trained_differs" label="Trained reward differs from ledger" value={params.trained_differs} />
    </>
  );
}

/** The filters under "More filters": sub-score bounds, weakest sub-score, status, reasons, review and sampling. */
function MoreFilters({ params }: { params: BrowseParams }) {
  return (
    <div className="mt-2 flex flex-wrap items-end gap-2">
      {DIMS.map((d) => (
        <Field key={d} label={`${d} min / max`}>
          <span className="flex gap-1">
            <ShareInput name={`${d}_min`} value={params[`${d}_min`]} width="w-16" label={`${d} min`} />
            <ShareInput name={`${d}_max`} value={params[`${d}_max`]} width="w-16" label={`${d} max`} />
          </span>
          <Problem name={`${d}_min`} />
          <Problem name={`${d}_max`} />
        </Field>
      ))}
      <Field label="Reward below" name="reward_below">
        <ShareInput name="reward_below" value={params.reward_below} step="any" />
      </Field>
      <Checks name="weakest" legend="Weakest sub-score" values={[...DIMS, "unknown"]} selected={params.weakest} />
      <Checks name="status" legend="Status" values={["scored", "spec_error", "input_error"]} selected={params.status} />
      <Field label="Reason code" name="reason">
        <Choice name="reason" value={params.reason} blank="any" options={REASONS} />
      </Field>
      <Field label="Reason signature (code@tool#field)" name="sig">
        <input
          name="sig"
          defaultValue={params.sig}
          className={`${input} w-72`}
          placeholder="required_read_missing@order.get#required_reads.0"
        />
      </Field>
      <YesNo name="sandbox_write" label="Sandbox write" value={params.sandbox_write} />
      <YesNo name="sampled" label="Sampled" value={params.sampled} />
      <YesNo name="reviewed" label="Reviewed" value={params.reviewed} />
    </div>
  );
}
