import Link from "next/link";
import { ITEM_SORTS, SORT_LABELS } from "@/lib/agreement/items-listing.ts";
import type { ItemsQuery } from "@/lib/agreement/items-schema.ts";
import { GUARDRAIL_CODES } from "@/lib/verifier/codes.ts";

const input = "h-7 rounded border border-border bg-bg px-1.5 text-[12px]";
const labelClass = "flex flex-col gap-0.5 text-[11px] text-fg-muted";

function Select({
  name,
  label,
  value,
  options,
  all = true,
}: {
  name: string;
  label: string;
  value: string | undefined;
  options: { value: string; label: string }[];
  all?: boolean;
}) {
  return (
    <label className={labelClass}>
      {label}
      <select name={name} defaultValue={value ?? ""} className={input}>
        {all && <option value="">all</option>}
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </label>
  );
}

/**
 * A plain GET form over the list: sort, order, disagreements first, page size, and the guardrail, annotator and
 * batch filters. The figure's cell and the other filters travel as hidden fields; applying starts at page one.
 */
export function ItemsListForm({
  q,
  batches,
  annotators,
}: {
  q: ItemsQuery | null;
  batches: { id: number; name: string }[];
  annotators: string[];
}) {
  const f = q?.filter;
  const l = q?.listing;
  const kept: [string, string | undefined][] = q
    ? [
        ...Object.entries(q.cell).map(([k, v]) => [k, v === undefined ? undefined : String(v)] as [string, string]),
        ["run", f?.run],
        ["category", f?.category],
        ["from", f?.from],
        ["to", f?.to],
        ["tolerance", f && f.tolerance !== 0.1 ? String(f.tolerance) : undefined],
      ]
    : [];
  return (
    <form method="get" action="/agreement/items" aria-label="Item list" className="mb-3 flex flex-wrap items-end gap-2">
      {kept.map(([k, v]) => v !== undefined && <input key={k} type="hidden" name={k} value={v} />)}
      <Select
        name="sort"
        label="Sort by"
        value={l?.sort ?? "item"}
        all={false}
        options={ITEM_SORTS.map((s) => ({ value: s, label: SORT_LABELS[s] }))}
      />
      <Select
        name="dir"
        label="Order"
        value={l?.dir ?? "asc"}
        all={false}
        options={[
          { value: "asc", label: "ascending" },
          { value: "desc", label: "descending" },
        ]}
      />
      <label className="flex h-7 items-center gap-1 self-end text-[12px]">
        <input type="checkbox" name="disagreementsFirst" value="1" defaultChecked={l?.disagreementsFirst ?? false} />
        Disagreements first
      </label>
      <Select
        name="guardrail"
        label="Guardrail"
        value={f?.guardrail}
        options={GUARDRAIL_CODES.map((g) => ({ value: g, label: g }))}
      />
      <Select
        name="annotator"
        label="Annotator"
        value={f?.annotator}
        options={annotators.map((a) => ({ value: a, label: a }))}
      />
      <Select
        name="batch"
        label="Batch"
        value={f?.batch?.toString()}
        options={batches.map((b) => ({ value: String(b.id), label: b.name }))}
      />
      <Select
        name="size"
        label="Per page"
        value={String(l?.size ?? 50)}
        all={false}
        options={[...new Set([10, 25, 50, 100, 200, l?.size ?? 50])]
          .sort((a, b) => a - b)
          .map((n) => ({ value: String(n), label: String(n) }))}
      />
      <button type="submit" className="h-7 rounded bg-accent px-3 text-[12px] font-medium text-accent-fg">
        Apply
      </button>
      <Link href="/agreement/items" className="flex h-7 items-center rounded border border-border px-3 text-[12px]">
        Clear
      </Link>
    </form>
  );
}
