import Link from "next/link";
import type { AgreementFilter } from "@/lib/agreement/schema.ts";
import { GUARDRAIL_CODES } from "@/lib/verifier/codes.ts";

const input = "h-7 rounded border border-border bg-bg px-1.5 text-[12px]";

/** A plain GET form: the URL holds the filters, so every view of the report can be linked. */
export function AgreementFilterBar({
  f,
  runs,
  batches,
  categories,
  annotators,
}: {
  f: AgreementFilter;
  runs: string[];
  batches: { id: number; name: string }[];
  categories: string[];
  annotators: string[];
}) {
  const sel = (name: string, label: string, value: string | undefined, options: { value: string; label: string }[]) => (
    <label className="flex flex-col gap-0.5 text-[11px] text-fg-muted">
      {label}
      <select name={name} defaultValue={value ?? ""} className={input}>
        <option value="">all</option>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <form
      method="get"
      action="/agreement"
      className="mb-4 flex flex-wrap items-end gap-2"
      aria-label="Agreement filters"
    >
      {sel(
        "run",
        "Run",
        f.run,
        runs.map((r) => ({ value: r, label: r })),
      )}
      {sel(
        "batch",
        "Batch",
        f.batch?.toString(),
        batches.map((b) => ({ value: String(b.id), label: b.name })),
      )}
      {sel(
        "category",
        "Category",
        f.category,
        categories.map((c) => ({ value: c, label: c })),
      )}
      {sel(
        "annotator",
        "Annotator",
        f.annotator,
        annotators.map((a) => ({ value: a, label: a })),
      )}
      {sel(
        "guardrail",
        "Guardrail",
        f.guardrail,
        GUARDRAIL_CODES.map((g) => ({ value: g, label: g })),
      )}
      <label className="flex flex-col gap-0.5 text-[11px] text-fg-muted">
        Ledger
        <select name="basis" defaultValue={f.basis ?? ""} className={input}>
          <option value="">as reviewed</option>
          <option value="now">now (after fixes)</option>
        </select>
      </label>
      <label className="flex flex-col gap-0.5 text-[11px] text-fg-muted">
        Reviewed from
        <input type="date" name="from" defaultValue={f.from} className={input} />
      </label>
      <label className="flex flex-col gap-0.5 text-[11px] text-fg-muted">
        to
        <input type="date" name="to" defaultValue={f.to} className={input} />
      </label>
      <button type="submit" className="h-7 rounded bg-accent px-3 text-[12px] font-medium text-accent-fg">
        Apply
      </button>
      <Link href="/agreement" className="flex h-7 items-center rounded border border-border px-3 text-[12px]">
        Clear
      </Link>
    </form>
  );
}
