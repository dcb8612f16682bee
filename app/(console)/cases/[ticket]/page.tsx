import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { SpecWorkbench } from "@/components/cases/spec-workbench.tsx";
import { Card } from "@/components/ui/card.tsx";
import { DateTime } from "@/components/ui/datetime.tsx";
import { TrajectoryLink } from "@/components/ui/id-links.tsx";
import { PageHeader } from "@/components/ui/page-header.tsx";
import { Head, Table, Td } from "@/components/ui/table.tsx";
import { requirePageUser } from "@/lib/auth/guards.ts";
import { loadWorkbench } from "@/lib/cases/loaders.ts";
import { decodeSegment } from "@/lib/server/route-params.ts";

export const metadata: Metadata = { title: "Spec workbench" };

export default async function CaseWorkbenchPage({
  params,
  searchParams,
}: {
  params: Promise<{ ticket: string }>;
  searchParams: Promise<Record<string, string | string[]>>;
}) {
  await requirePageUser("cases.revise");
  const ticketId = decodeSegment((await params).ticket);
  if (ticketId === null) notFound();
  const w = await loadWorkbench(ticketId, await searchParams);
  if (!w) notFound();
  const { stored, versions, runs, selected, answers } = w;
  return (
    <>
      <PageHeader
        title={<span className="font-mono">{stored.ticketId}</span>}
        description={
          <>
            Spec workbench · {stored.category} · version {stored.version}
            {selected && (
              <>
                {" "}
                · selected rollout <TrajectoryLink id={selected.trajectoryId} className="text-[13px]" /> (
                {selected.runId})
              </>
            )}
            {answers && "adjudicationId" in answers && <> · answers adjudication #{answers.adjudicationId}</>}
          </>
        }
      />
      {answers && "error" in answers && (
        <p role="alert" className="mb-3 text-[13px] text-bad">
          {answers.error} Apply will not record it as answered.
        </p>
      )}
      <SpecWorkbench
        ticketId={stored.ticketId}
        ticket={stored.doc.ticket}
        snapshot={stored.doc.env_snapshot}
        spec={stored.doc.verifier_spec}
        runs={runs}
        selectedRollout={selected?.rolloutId ?? null}
        adjudication={answers && "adjudicationId" in answers ? answers.adjudicationId : null}
      />
      <Card title="Versions" className="mt-4">
        <Table>
          <Head cols={["Version", "Saved", "Author", "Reason", "Answers", "Hash"]} />
          <tbody>
            {versions.map((v) => (
              <tr key={v.version}>
                <Td>v{v.version}</Td>
                <Td>
                  <DateTime value={v.createdAt} />
                </Td>
                <Td>{v.author ?? "—"}</Td>
                <Td>{v.reason || "first version"}</Td>
                <Td className="text-[12px]">
                  {[
                    v.answersAdjudicationIds.length ? `adjudications ${v.answersAdjudicationIds.join(", ")}` : "",
                    v.answersCluster ? `cluster ${v.answersCluster}` : "",
                  ]
                    .filter(Boolean)
                    .join(" · ") || "—"}
                </Td>
                <Td className="font-mono text-[12px]">{v.contentHash.slice(0, 12)}</Td>
              </tr>
            ))}
          </tbody>
        </Table>
      </Card>
    </>
  );
}
