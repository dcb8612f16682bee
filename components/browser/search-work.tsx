// What the trajectory browser's matches can be turned into: downloads (CSV, NDJSON, Parquet), a shadow-audit batch
// sampled from them ("Audit these", leads and admins, one run at a time) and a saved search (when the box holds one).
import Link from "next/link";
import { SaveSearchForm } from "@/components/saved-searches/save-search-form.tsx";
import { browseQuery, type BrowseParams } from "@/lib/ledger/browse-schema.ts";

const button = "rounded border border-border px-2 py-1 text-[12px] hover:bg-bg-muted";

/** The New batch page, told the run and the browser's filters: it previews the sample before anything is stored. */
export function auditHref(p: BrowseParams): string {
  const q = new URLSearchParams({ runId: p.run ?? "", kind: "tickets", filter: browseQuery(p) });
  return `/audit/new?${q}`;
}

export function SearchWork({
  params: p,
  may,
}: {
  params: BrowseParams;
  may: { export: boolean; audit: boolean; save: boolean };
}) {
  const exportHref = (format: string) => `/api/ledger/export?${browseQuery(p, { format })}`;
  return (
    <>
      {may.export &&
        (["csv", "ndjson", "parquet"] as const).map((f) => (
          <a key={f} className={button} href={exportHref(f)} download>
            Export {f === "ndjson" ? "NDJSON" : f === "csv" ? "CSV" : "Parquet"}
          </a>
        ))}
      {may.audit &&
        (p.run ? (
          <Link className={button} href={auditHref(p)}>
            Audit these
          </Link>
        ) : (
          <span className={`${button} cursor-not-allowed opacity-60`} title="Pick a run: a batch samples one run">
            Audit these
          </span>
        ))}
      {may.save && p.q && <SaveSearchForm query={p.q} run={p.run} />}
    </>
  );
}
