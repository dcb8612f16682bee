import type { Metadata } from "next";
import { cookies } from "next/headers";
import Link from "next/link";
import { BlindSpotCard } from "@/components/clusters/blind-spot-card.tsx";
import { ClusterDetail } from "@/components/clusters/cluster-detail.tsx";
import { ClusterList } from "@/components/clusters/cluster-list.tsx";
import { ClusterTreemap } from "@/components/clusters/cluster-treemap.tsx";
import { CofiredTable, GuardrailPresence } from "@/components/clusters/guardrail-tables.tsx";
import { SavedSearchSteps } from "@/components/clusters/saved-search-steps.tsx";
import { WindowForm } from "@/components/clusters/window-form.tsx";
import { Card } from "@/components/ui/card.tsx";
import { EmptyState } from "@/components/ui/empty-state.tsx";
import { fmtInt, fmtPct } from "@/components/ui/format.ts";
import { PageHeader } from "@/components/ui/page-header.tsx";
import { requirePageUser } from "@/lib/auth/guards.ts";
import { can } from "@/lib/auth/policy.ts";
import { clustersHref } from "@/lib/clusters/keys.ts";
import { loadClustersPage, withPinsFirst } from "@/lib/clusters/loaders.ts";
import { unscoredLine } from "@/lib/clusters/report.ts";
import { LAST_RUN_COOKIE, runOfCookie } from "@/lib/runs/location.ts";
import { loadWindowSearch } from "@/lib/saved-searches/loaders.ts";

export const metadata: Metadata = { title: "Clusters" };

export default async function ClustersPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const user = await requirePageUser("ledger.read");
  const search = await searchParams;
  const lastRun = runOfCookie((await cookies()).get(LAST_RUN_COOKIE)?.value);
  const page = await loadClustersPage(search, { lastRun });
  const view = search.view === "treemap" ? "treemap" : "bars";
  const canEdit = can(user.role, "audit.manage");
  const canExport = can(user.role, "export");
  const canFix = can(user.role, "cases.revise");
  const { report, window: w } = page;
  const saved = w ? await loadWindowSearch(user.id, w.runId, { from: w.from, to: w.to }, search.saved) : null;
  return (
    <>
      <PageHeader
        title="Clusters"
        description="Low-scoring rollouts grouped by the guardrail that capped them (or their weakest sub-score), then by reason signature and ticket category; ranked by what to build data for first."
      />
      {page.errors.length > 0 && (
        <p role="alert" className="mb-3 rounded border border-bad/40 bg-bad-bg px-3 py-2 text-[12px] text-bad">
          {page.errors.join("; ")}
        </p>
      )}
      {!w || !report ? (
        <EmptyState title="No runs yet">Clusters appear once a run has score records.</EmptyState>
      ) : (
        <>
          <WindowForm runs={page.runs} window={w} view={view} />
          <p className="mb-3 text-[12px] text-fg-muted" data-testid="window-summary">
            Run {report.runId}, steps {report.from ?? "–"}–{report.to ?? "–"}: {fmtInt(report.rollouts)} rollouts,{" "}
            {fmtInt(report.population)} with a reward below {report.threshold} (
            {fmtPct(report.rollouts ? report.population / report.rollouts : null)}). The clusters and the guardrail
            counts below are of these low-scoring rollouts only: a guardrail&apos;s hits on rollouts that still score{" "}
            {report.threshold} or more are not in them (the run page&apos;s hit rate counts every rollout). Priority =
            share × (0.9 − mean reward) × (1 + growth over 1,000 steps).
          </p>
          {unscoredLine(report) && (
            <p
              className="mb-3 rounded border border-warn bg-warn-bg px-3 py-1.5 text-[12px] text-warn"
              data-testid="unscored"
            >
              {unscoredLine(report)}
            </p>
          )}
          {page.selected && <ClusterDetail page={page} canEdit={canEdit} canExport={canExport} canFix={canFix} />}
          {report.blindSpot.size > 0 && (
            <BlindSpotCard
              report={report}
              extras={page.blindSpot}
              window={w}
              state={page.states.get(report.blindSpot.key)}
              canEdit={canEdit}
              canExport={canExport}
              canFix={canFix}
            />
          )}
          <Card
            title="Clusters by priority"
            className="mb-4"
            actions={
              <nav aria-label="View" className="flex gap-2 text-[12px]">
                {(["bars", "treemap"] as const).map((v) =>
                  v === view ? (
                    <span key={v} className="font-semibold">
                      {v === "bars" ? "Bars" : "Treemap"}
                    </span>
                  ) : (
                    <Link
                      key={v}
                      href={clustersHref(w, { c: page.selected?.key, view: v })}
                      className="text-accent hover:underline"
                    >
                      {v === "bars" ? "Bars" : "Treemap"}
                    </Link>
                  ),
                )}
              </nav>
            }
          >
            {report.clusters.length === 0 ? (
              <div className="p-3">
                <EmptyState
                  title={
                    report.unscored > 0
                      ? "Nothing to cluster: no low-scoring rollout of this window has verifier detail"
                      : `No rollouts below ${report.threshold} in this window`
                  }
                />
              </div>
            ) : (
              <>
                {view === "treemap" && (
                  <div className="p-2">
                    <ClusterTreemap
                      items={report.clusters.map((c) => ({
                        key: c.key,
                        name: c.label,
                        size: c.size,
                        share: c.share,
                        href: clustersHref(w, { c: c.key, view }),
                      }))}
                    />
                  </div>
                )}
                <ClusterList
                  clusters={withPinsFirst(report.clusters, page.states)}
                  states={page.states}
                  window={w}
                  selected={page.selected?.key}
                  caption="Clusters by priority"
                />
              </>
            )}
          </Card>
          {saved && <SavedSearchSteps window={w} searches={saved.searches} count={saved.count} />}
          <CofiredTable report={report} window={w} />
          <GuardrailPresence report={report} />
        </>
      )}
    </>
  );
}
