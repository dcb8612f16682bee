import type { Metadata } from "next";
import Link from "next/link";
import { Badge } from "@/components/ui/badge.tsx";
import { Card } from "@/components/ui/card.tsx";
import { EmptyState } from "@/components/ui/empty-state.tsx";
import { fmtInt, fmtScore } from "@/components/ui/format.ts";
import { PageHeader } from "@/components/ui/page-header.tsx";
import { Table, Td, Th } from "@/components/ui/table.tsx";
import { clusterByDecidingGuardrail } from "@/lib/clusters/data.ts";
import { listRunSummaries } from "@/lib/runs/data.ts";

export const metadata: Metadata = { title: "Clusters" };

export default async function ClustersPage({ searchParams }: { searchParams: Promise<{ run?: string }> }) {
  const runs = await listRunSummaries();
  const requested = (await searchParams).run;
  const run = runs.find((r) => r.id === requested) ?? runs[0];
  const clusters = run ? await clusterByDecidingGuardrail(run.id) : [];
  return (
    <>
      <PageHeader title="Clusters" description="Low-scoring rollouts (reward below 0.5) grouped by the guardrail that capped them." />
      {runs.length > 1 && (
        <nav className="mb-3 flex flex-wrap gap-2" aria-label="Runs">
          {runs.map((r) => (
            <Link key={r.id} href={`/clusters?run=${encodeURIComponent(r.id)}`} className={r.id === run?.id ? "font-semibold" : "text-accent"}>
              {r.id}
            </Link>
          ))}
        </nav>
      )}
      {!run ? (
        <EmptyState title="No runs yet">Clusters appear once a run has score records.</EmptyState>
      ) : clusters.length === 0 ? (
        <EmptyState title={`No low-scoring rollouts in run ${run.id}`} />
      ) : (
        <Card title={`Run ${run.id}`}>
          <Table>
            <thead>
              <tr>
                <Th>Deciding guardrail</Th>
                <Th numeric>Rollouts</Th>
                <Th numeric>Tickets</Th>
                <Th numeric>Mean reward</Th>
              </tr>
            </thead>
            <tbody>
              {clusters.map((c) => (
                <tr key={c.key}>
                  <Td>{c.key === "none" ? <span className="text-fg-muted">no guardrail</span> : <Badge tone="bad">{c.key}</Badge>}</Td>
                  <Td numeric>{fmtInt(c.size)}</Td>
                  <Td numeric>{fmtInt(c.tickets)}</Td>
                  <Td numeric>{fmtScore(c.meanReward)}</Td>
                </tr>
              ))}
            </tbody>
          </Table>
        </Card>
      )}
    </>
  );
}
