import Link from "next/link";
import { EarlyLate, fmtPriority, StatusBadge } from "@/components/clusters/cluster-format.tsx";
import { Sparkline } from "@/components/clusters/sparkline.tsx";
import { cn } from "@/components/ui/cn.ts";
import { fmtInt, fmtPct, fmtScore } from "@/components/ui/format.ts";
import { Head, Table, Td, numeric } from "@/components/ui/table.tsx";
import type { ClusterStateView } from "@/lib/clusters/detail-data.ts";
import { clustersHref, type LinkWindow } from "@/lib/clusters/keys.ts";
import type { ClusterStats } from "@/lib/clusters/report.ts";

/**
 * Clusters ranked by priority (pinned first), each row a link one level down. The share column doubles as the bar
 * view: bars are scaled to the largest cluster of the list.
 */
export function ClusterList({
  clusters,
  states,
  window,
  selected,
  caption,
  start = 0,
}: {
  clusters: readonly ClusterStats[];
  states: ReadonlyMap<string, ClusterStateView>;
  window: LinkWindow;
  selected?: string | null;
  caption: string;
  /** Rank of the first row minus one (a continued list). */
  start?: number;
}) {
  const max = Math.max(1e-9, ...clusters.map((c) => c.share));
  return (
    <Table>
      <caption className="sr-only">{caption}</caption>
      <Head
        cols={[
          ...numeric("#"),
          "Cluster",
          ...numeric("Low-scoring rollouts"),
          "Share of all rollouts in window",
          ...numeric("Tickets", "Mean reward", "Removed by cap"),
          "Trend (early → late)",
          ...numeric("Priority"),
        ]}
      />
      <tbody>
        {clusters.map((c, i) => {
          const s = states.get(c.key);
          return (
            <tr key={c.key} data-cluster={c.key} className={cn(selected === c.key && "bg-accent/10")}>
              <Td numeric>{start + i + 1}</Td>
              <Td>
                <div className="flex flex-wrap items-center gap-1.5">
                  {s?.pinned && (
                    <span title="pinned" aria-label="pinned" className="text-accent">
                      ★
                    </span>
                  )}
                  <Link href={clustersHref(window, { c: c.key })} className="font-medium text-accent hover:underline">
                    {c.label}
                  </Link>
                  {s && s.status !== "open" && <StatusBadge status={s.status} />}
                </div>
              </Td>
              <Td numeric>
                {c.estimated ? "≈" : ""}
                {fmtInt(c.size)}
              </Td>
              <Td>
                <div className="flex items-center gap-2">
                  <div className="h-2 w-28 rounded-sm bg-bg-muted" aria-hidden>
                    <div
                      className="h-2 rounded-sm bg-accent/70"
                      style={{ width: `${Math.max(1, (c.share / max) * 100)}%` }}
                    />
                  </div>
                  <span className="num">{fmtPct(c.share)}</span>
                </div>
              </Td>
              <Td numeric>{c.tickets === null ? "–" : fmtInt(c.tickets)}</Td>
              <Td numeric>{fmtScore(c.meanReward)}</Td>
              <Td numeric>{fmtScore(c.removedByCap)}</Td>
              <Td>
                <div className="flex items-center gap-2 whitespace-nowrap">
                  <Sparkline shares={c.trend.shares} label={`share per step bin of ${c.label}`} />
                  <EarlyLate trend={c.trend} />
                </div>
              </Td>
              <Td numeric>{fmtPriority(c.priority?.score)}</Td>
            </tr>
          );
        })}
      </tbody>
    </Table>
  );
}
