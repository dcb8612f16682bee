import type { Metadata } from "next";
import Link from "next/link";
import { DefectTable } from "@/components/defects/defect-table.tsx";
import { Card } from "@/components/ui/card.tsx";
import { EmptyState } from "@/components/ui/empty-state.tsx";
import { PageHeader } from "@/components/ui/page-header.tsx";
import { requirePageUser } from "@/lib/auth/guards.ts";
import { DEFECT_STATUSES } from "@/lib/defects/causes.ts";
import { countDefectsByStatus, listDefects } from "@/lib/defects/data.ts";
import { NO_GUARDRAIL, parseDefectsParams, type DefectsParams } from "@/lib/defects/schema.ts";
import { GUARDRAIL_CODES } from "@/lib/verifier/codes.ts";
import { Options } from "@/components/ui/field.tsx";

export const metadata: Metadata = { title: "Defects" };

const query = (p: Partial<DefectsParams>) => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(p)) if (v !== undefined && k !== "after") q.set(k, String(v));
  return q.toString();
};
const input = "h-7 rounded border border-border bg-bg px-1.5 text-[12px]";

// Spec and rule defects found by adjudication, filterable by status, guardrail, run and kind (the URL holds the
// view); a lead marks one fixed, and verification follows from the re-score.
export default async function DefectsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  await requirePageUser("adjudicate");
  const parsed = parseDefectsParams(await searchParams);
  const p = parsed.ok ? parsed.params : parsed.partial;
  const [page, counts] = parsed.ok
    ? await Promise.all([listDefects(p), countDefectsByStatus({ guardrail: p.guardrail, run: p.run, kind: p.kind })])
    : [null, null];
  return (
    <>
      <PageHeader
        title="Defects"
        description="Wrong specs and wrong verifier rules found by adjudication: open → fixed (a case version or a config) → verified (its items re-scored and agreeing)."
        actions={
          <Link href="/audit/adjudication" className="rounded border border-border px-2 py-1 text-[12px]">
            Adjudication
          </Link>
        }
      />
      <form
        method="get"
        action="/audit/defects"
        className="mb-4 flex flex-wrap items-end gap-2"
        aria-label="Defect filters"
      >
        <label className="flex flex-col gap-0.5 text-[11px] text-fg-muted">
          Status
          <select name="status" defaultValue={p.status ?? ""} className={input}>
            <option value="">all</option>
            {DEFECT_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
                {counts ? ` (${counts[s]})` : ""}
              </option>
            ))}
          </select>
        </label>
        <label className="flex flex-col gap-0.5 text-[11px] text-fg-muted">
          Guardrail
          <select name="guardrail" defaultValue={p.guardrail ?? ""} className={input}>
            <option value="">all</option>
            <option value={NO_GUARDRAIL}>none named</option>
            <Options values={GUARDRAIL_CODES} />
          </select>
        </label>
        <label className="flex flex-col gap-0.5 text-[11px] text-fg-muted">
          Kind
          <select name="kind" defaultValue={p.kind ?? ""} className={input}>
            <option value="">all</option>
            <option value="spec">spec</option>
            <option value="rule">rule</option>
          </select>
        </label>
        {p.run && <input type="hidden" name="run" value={p.run} />}
        <button type="submit" className="h-7 rounded bg-accent px-3 text-[12px] font-medium text-accent-fg">
          Apply
        </button>
        <Link href="/audit/defects" className="flex h-7 items-center rounded border border-border px-3 text-[12px]">
          Clear
        </Link>
      </form>
      {!parsed.ok ? (
        <EmptyState title="This link has a bad filter">
          {parsed.errors.join("; ")}.{" "}
          <Link className="text-accent" href={`/audit/defects?${query(parsed.partial)}`}>
            Keep the good filters
          </Link>{" "}
          or{" "}
          <Link className="text-accent" href="/audit/defects">
            clear them
          </Link>
          .
        </EmptyState>
      ) : page!.rows.length === 0 ? (
        <EmptyState title="No defects under these filters">
          A verdict of &ldquo;spec wrong&rdquo; or &ldquo;verifier rule wrong&rdquo; on the adjudication page opens one.
        </EmptyState>
      ) : (
        <Card title={`Defects (${counts!.open} open, ${counts!.fixed} fixed, ${counts!.verified} verified)`}>
          <DefectTable rows={page!.rows} canFix />
          {page!.nextAfter && (
            <p className="px-3 py-2">
              <Link className="text-accent" href={`/audit/defects?${query(p)}&after=${page!.nextAfter}`}>
                Next page →
              </Link>
            </p>
          )}
        </Card>
      )}
    </>
  );
}
