import Link from "next/link";
import { ClusterLinks, ClusterTriage } from "@/components/clusters/cluster-actions.tsx";
import { Examples, Phrasings } from "@/components/clusters/cluster-extras.tsx";
import { EarlyLate, fmtPriority, fmtSlope } from "@/components/clusters/cluster-format.tsx";
import { ClusterList } from "@/components/clusters/cluster-list.tsx";
import { Sparkline } from "@/components/clusters/sparkline.tsx";
import { Card, Stat } from "@/components/ui/card.tsx";
import { EmptyState } from "@/components/ui/empty-state.tsx";
import { fmtInt, fmtPct, fmtScore } from "@/components/ui/format.ts";
import { Head, Table, Td, numeric } from "@/components/ui/table.tsx";
import type { ClusterStateView } from "@/lib/clusters/detail-data.ts";
import {
  clusterLabel,
  clustersHref,
  levelOneLabel,
  parseKey,
  signatureLabel,
  type LinkWindow,
} from "@/lib/clusters/keys.ts";
import type { ClustersPage } from "@/lib/clusters/loaders.ts";
import type { CategoryPart, ClusterStats } from "@/lib/clusters/report.ts";

/** Level-2 rows shown before "more": the long tail of a big cluster is one click away. */
const SHOWN = 15;

function Breadcrumbs({ window, clusterKey }: { window: LinkWindow; clusterKey: string }) {
  const k = parseKey(clusterKey)!;
  const crumbs: { label: string; href?: string }[] = [{ label: "All clusters", href: clustersHref(window) }];
  if (k.kind === "level1" || k.kind === "level2" || k.kind === "level3") {
    crumbs.push({ label: levelOneLabel(k.l1), href: clustersHref(window, { c: k.l1 }) });
    if (k.kind !== "level1")
      crumbs.push({
        label: signatureLabel(k.sig),
        href: clustersHref(window, { c: clusterKey.split("|").slice(0, 2).join("|") }),
      });
    if (k.kind === "level3") crumbs.push({ label: k.category });
  } else crumbs.push({ label: clusterLabel(k) });
  return (
    <nav aria-label="Drill-down" className="flex flex-wrap items-center gap-1 text-[12px]">
      {crumbs.map((c, i) => (
        <span key={i} className="flex items-center gap-1">
          {i > 0 && <span className="text-fg-subtle">›</span>}
          {c.href && i < crumbs.length - 1 ? (
            <Link href={c.href} className="text-accent hover:underline">
              {c.label}
            </Link>
          ) : (
            <span className="font-medium">{c.label}</span>
          )}
        </span>
      ))}
    </nav>
  );
}

function Stats({ s }: { s: ClusterStats }) {
  return (
    <div className="space-y-2">
      <div className="grid grid-cols-2 gap-2 md:grid-cols-5">
        <Stat
          label={s.estimated ? "Rollouts (estimated)" : "Rollouts"}
          value={<span data-testid="cluster-size">{`${s.estimated ? "≈" : ""}${fmtInt(s.size)}`}</span>}
          hint={`${fmtPct(s.share)} of the window`}
        />
        <Stat label="Tickets" value={s.tickets === null ? "–" : fmtInt(s.tickets)} />
        <Stat label="Mean reward" value={fmtScore(s.meanReward)} />
        <Stat label="Removed by cap" value={fmtScore(s.removedByCap)} hint="mean raw − final" />
        <Stat
          label="Priority"
          value={fmtPriority(s.priority?.score)}
          hint={s.priority ? `gap ${s.priority.gap.toFixed(2)}, growth ${s.priority.growth.toFixed(2)}` : undefined}
        />
      </div>
      <div className="flex flex-wrap items-center gap-3 text-[12px]">
        <Sparkline shares={s.trend.shares} label={`share per step bin of ${s.label}`} width={160} height={28} />
        <span>
          share <EarlyLate trend={s.trend} />
        </span>
        <span className="text-fg-muted">slope {fmtSlope(s.trend.slope)}</span>
      </div>
    </div>
  );
}

function Categories({ parts, window, title }: { parts: CategoryPart[]; window: LinkWindow; title: string }) {
  if (!parts.length) return null;
  return (
    <div>
      <h3 className="mb-1 text-[12px] font-medium text-fg-muted">{title}</h3>
      <Table>
        <Head cols={["Category", ...numeric("Rollouts", "Of the cluster", "Mean reward")]} />
        <tbody>
          {parts.map((p) => (
            <tr key={p.category ?? "(none)"} data-cluster={p.key ?? undefined}>
              <Td>
                {p.key ? (
                  <Link href={clustersHref(window, { c: p.key })} className="text-accent hover:underline">
                    {p.category}
                  </Link>
                ) : (
                  (p.category ?? <span className="text-fg-subtle">(no category)</span>)
                )}
              </Td>
              <Td numeric>
                {p.estimated ? "≈" : ""}
                {fmtInt(p.size)}
              </Td>
              <Td numeric>{fmtPct(p.ofParent)}</Td>
              <Td numeric>{fmtScore(p.meanReward)}</Td>
            </tr>
          ))}
        </tbody>
      </Table>
    </div>
  );
}

/** The drilled-into cluster: its numbers, the level below it, examples, reply phrasings, links and triage. */
export function ClusterDetail({
  page,
  canEdit,
  canExport,
  canFix = false,
}: {
  page: ClustersPage;
  canEdit: boolean;
  canExport: boolean;
  canFix?: boolean;
}) {
  const sel = page.selected!;
  const w = page.window!;
  const f = sel.found;
  const state: ClusterStateView | undefined = page.states.get(sel.key);
  const empty = !f || (!f.stats && !f.part);
  return (
    <div data-testid="cluster-detail">
      <Card
        title={<Breadcrumbs window={w} clusterKey={sel.key} />}
        className="mb-4"
        actions={<ClusterLinks window={w} clusterKey={sel.key} canExport={canExport} canFix={canFix} />}
      >
        <div className="space-y-4 p-3">
          {empty ? (
            <EmptyState title="No rollouts of this cluster in this window">
              Widen the step window or raise the threshold.
            </EmptyState>
          ) : f.stats ? (
            <Stats s={f.stats} />
          ) : (
            <div className="grid grid-cols-2 gap-2 md:grid-cols-4">
              <Stat
                label={f.part!.estimated ? "Rollouts (estimated)" : "Rollouts"}
                value={`${f.part!.estimated ? "≈" : ""}${fmtInt(f.part!.size)}`}
                hint={`${fmtPct(f.part!.share)} of the window`}
              />
              <Stat label="Of the signature" value={fmtPct(f.part!.ofParent)} />
              <Stat label="Mean reward" value={fmtScore(f.part!.meanReward)} />
            </div>
          )}
          {f?.key.kind === "level1" && f.levelOne && (
            <>
              <div>
                <h3 className="mb-1 text-[12px] font-medium text-fg-muted">
                  Reason signatures (level 2)
                  {f.levelOne.sampleRate < 1
                    ? ` — estimated from ${fmtPct(f.levelOne.sampleRate)} of the cluster; a rollout carries several`
                    : " — a rollout carries several"}
                </h3>
                <ClusterList
                  clusters={f.levelOne.signatures.slice(0, SHOWN)}
                  states={page.states}
                  window={w}
                  caption="Reason signatures"
                />
                {f.levelOne.signatures.length > SHOWN && (
                  <details className="mt-1 text-[12px]">
                    <summary className="cursor-pointer text-fg-muted">
                      {f.levelOne.signatures.length - SHOWN} more signatures
                    </summary>
                    <ClusterList
                      clusters={f.levelOne.signatures.slice(SHOWN)}
                      states={page.states}
                      window={w}
                      caption="More reason signatures"
                      start={SHOWN}
                    />
                  </details>
                )}
              </div>
              <Categories parts={f.levelOne.categories} window={w} title="Ticket categories of the cluster" />
            </>
          )}
          {f?.key.kind === "level2" && f.levelTwo && (
            <Categories parts={f.levelTwo.categories} window={w} title="Ticket categories (level 3)" />
          )}
          {!empty && (
            <div className="grid gap-4 lg:grid-cols-2">
              <div className="space-y-3">
                <Examples extras={sel.extras} />
                <Phrasings extras={sel.extras} />
              </div>
              <ClusterTriage runId={w.runId} clusterKey={sel.key} state={state} canEdit={canEdit} />
            </div>
          )}
        </div>
      </Card>
    </div>
  );
}
