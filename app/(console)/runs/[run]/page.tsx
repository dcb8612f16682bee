import Link from "next/link";
import { notFound } from "next/navigation";
import { Card, Stat } from "@/components/ui/card.tsx";
import { EmptyState } from "@/components/ui/empty-state.tsx";
import { fmtInt, fmtPct, fmtScore } from "@/components/ui/format.ts";
import { PageHeader } from "@/components/ui/page-header.tsx";
import { Table, Td, Th } from "@/components/ui/table.tsx";
import { getRun, listRunSteps } from "@/lib/runs/data.ts";

export default async function RunPage({ params }: { params: Promise<{ run: string }> }) {
  const runId = decodeURIComponent((await params).run);
  const run = await getRun(runId);
  if (!run) notFound();
  const steps = await listRunSteps(runId);
  const last = steps[steps.length - 1];
  return (
    <>
      <PageHeader
        title={`Run ${run.id}`}
        description={run.description || "Per-step health of this run's current ledger entries."}
        actions={
          <Link className="text-accent hover:underline" href={`/trajectories?run=${encodeURIComponent(run.id)}`}>
            Browse its rollouts →
          </Link>
        }
      />
      {steps.length === 0 ? (
        <EmptyState title="This run has no score records yet" />
      ) : (
        <>
          <div className="mb-4 grid grid-cols-2 gap-2 md:grid-cols-5">
            <Stat label="Latest step" value={last.step} />
            <Stat label="Rollouts there" value={fmtInt(last.n)} />
            <Stat label="Success" value={fmtPct(last.successRate)} hint="reward ≥ 0.9" />
            <Stat label="Guardrail hits" value={fmtPct(last.guardrailHitRate)} hint="healthy 10–30%" />
            <Stat label="Hand-off" value={fmtPct(last.handoffRate)} hint="alarm above 10%" />
          </div>
          <Card title="Steps">
            <Table>
              <thead>
                <tr>
                  <Th numeric>Step</Th>
                  <Th numeric>Rollouts</Th>
                  <Th numeric>Mean reward</Th>
                  <Th numeric>Success</Th>
                  <Th numeric>Guardrail hits</Th>
                  <Th numeric>Hand-off</Th>
                </tr>
              </thead>
              <tbody>
                {steps.map((s) => (
                  <tr key={s.step}>
                    <Td numeric>{s.step}</Td>
                    <Td numeric>{fmtInt(s.n)}</Td>
                    <Td numeric>{fmtScore(s.meanReward)}</Td>
                    <Td numeric>{fmtPct(s.successRate)}</Td>
                    <Td numeric>{fmtPct(s.guardrailHitRate)}</Td>
                    <Td numeric>{fmtPct(s.handoffRate)}</Td>
                  </tr>
                ))}
              </tbody>
            </Table>
          </Card>
        </>
      )}
    </>
  );
}
