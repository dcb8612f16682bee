import type { Metadata } from "next";
import Link from "next/link";
import { Badge } from "@/components/ui/badge.tsx";
import { Card } from "@/components/ui/card.tsx";
import { EmptyState } from "@/components/ui/empty-state.tsx";
import { fmtPct } from "@/components/ui/format.ts";
import { PageHeader } from "@/components/ui/page-header.tsx";
import { Table, Td, Th } from "@/components/ui/table.tsx";
import { listRunSummaries } from "@/lib/runs/data.ts";

export const metadata: Metadata = { title: "Monitors" };

// Thresholds from the domain brief: guardrail hit rate healthy between 10% and 30%; hand-off alarm above 10%.
function hitTone(r: number | null) {
  return r === null ? "neutral" : r < 0.1 || r > 0.3 ? "warn" : "good";
}
function handoffTone(r: number | null) {
  return r === null ? "neutral" : r > 0.1 ? "bad" : "good";
}

export default async function MonitorsPage() {
  const runs = await listRunSummaries();
  return (
    <>
      <PageHeader title="Monitors" description="Training health per run against the healthy bands: guardrail hits 10–30%, hand-off under 10%." />
      {runs.length === 0 ? (
        <EmptyState title="Nothing to monitor yet">Monitors evaluate as soon as a run has score records.</EmptyState>
      ) : (
        <Card>
          <Table>
            <thead>
              <tr>
                <Th>Run</Th>
                <Th numeric>Guardrail hits</Th>
                <Th numeric>Hand-off</Th>
                <Th numeric>Success</Th>
              </tr>
            </thead>
            <tbody>
              {runs.map((r) => (
                <tr key={r.id}>
                  <Td>
                    <Link className="text-accent hover:underline" href={`/runs/${encodeURIComponent(r.id)}`}>
                      {r.id}
                    </Link>
                  </Td>
                  <Td numeric>
                    <Badge tone={hitTone(r.guardrailHitRate)}>{fmtPct(r.guardrailHitRate)}</Badge>
                  </Td>
                  <Td numeric>
                    <Badge tone={handoffTone(r.handoffRate)}>{fmtPct(r.handoffRate)}</Badge>
                  </Td>
                  <Td numeric>{fmtPct(r.successRate)}</Td>
                </tr>
              ))}
            </tbody>
          </Table>
        </Card>
      )}
    </>
  );
}
