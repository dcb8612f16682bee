import type { Metadata } from "next";
import Link from "next/link";
import { BulkFixForm } from "@/components/clusters/bulk-fix-form.tsx";
import { EmptyState } from "@/components/ui/empty-state.tsx";
import { fmtInt } from "@/components/ui/format.ts";
import { PageHeader } from "@/components/ui/page-header.tsx";
import { requirePageUser } from "@/lib/auth/guards.ts";
import { clustersHref } from "@/lib/clusters/keys.ts";
import { loadBulkFixPage } from "@/lib/clusters/loaders.ts";

export const metadata: Metadata = { title: "Bulk fix" };

/** The bulk fix of a cluster's cases (leads and admins: policy cases.revise): dry run over every rollout, then Apply. */
export default async function BulkFixPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  await requirePageUser("cases.revise");
  const page = await loadBulkFixPage(await searchParams);
  const w = page.window;
  return (
    <>
      <PageHeader
        title={page.label ? `Bulk fix: ${page.label}` : "Bulk fix"}
        description="One spec change for the cases of a cluster's tickets: see what it does to every affected rollout first, then save each case's next version and re-score."
      />
      {page.errors.length > 0 && (
        <p role="alert" className="mb-3 rounded border border-bad/40 bg-bg-subtle px-3 py-2 text-[12px] text-bad">
          {page.errors.join("; ")}
        </p>
      )}
      {w && page.clusterKey && (
        <p className="mb-3 text-[12px] text-fg-muted" data-testid="bulk-fix-summary">
          Run {w.runId},{" "}
          {w.from === undefined && w.to === undefined ? "all steps" : `steps ${w.from ?? "–"}–${w.to ?? "–"}`}:{" "}
          {fmtInt(page.members)} rollouts of {fmtInt(page.tickets.length)} tickets in the cluster now.{" "}
          <Link href={clustersHref(w, { c: page.clusterKey })} className="text-accent hover:underline">
            Back to the cluster
          </Link>
        </p>
      )}
      {w && page.clusterKey && page.tickets.length === 0 && (
        <EmptyState title="No tickets in this cluster now">
          Nothing is left to fix in this window: its rollouts have left the cluster.
        </EmptyState>
      )}
      {w && page.clusterKey && page.tickets.length > 0 && (
        <BulkFixForm
          window={{ run: w.runId, stepFrom: w.from, stepTo: w.to, threshold: w.threshold }}
          clusterKey={page.clusterKey}
          tickets={page.tickets}
          backHref={clustersHref(w, { c: page.clusterKey })}
        />
      )}
    </>
  );
}
