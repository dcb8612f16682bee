import { notFound } from "next/navigation";
import { JsonBlock } from "@/components/ledger/json-block.tsx";
import { rewardTone } from "@/components/ledger/ledger-table.tsx";
import { Badge } from "@/components/ui/badge.tsx";
import { Card, Stat } from "@/components/ui/card.tsx";
import { fmtScore } from "@/components/ui/format.ts";
import { PageHeader } from "@/components/ui/page-header.tsx";
import { Table, Td, Th } from "@/components/ui/table.tsx";
import { getTrajectoryDetail } from "@/lib/ledger/data.ts";

type Reason = { dimension?: string; guardrail?: string; code: string; tool?: string; field?: string; message?: string };
type Guardrail = { code: string; cap: number; evidence?: unknown };
type Step = { type: string; name: string; input?: unknown; output?: unknown; status?: string };

export default async function TrajectoryPage({ params }: { params: Promise<{ id: string }> }) {
  const id = decodeURIComponent((await params).id);
  const detail = await getTrajectoryDetail(id);
  if (!detail) notFound();
  const { entry, caseDoc, history } = detail;
  const reasons = (entry.reasons ?? []) as Reason[];
  const guardrails = (entry.guardrails ?? []) as Guardrail[];
  const steps = (entry.rollout?.steps ?? []) as Step[];
  const dims = ["outcome", "policy", "evidence", "efficiency", "communication"] as const;
  return (
    <>
      <PageHeader
        title={<span className="font-mono">{entry.trajectoryId}</span>}
        description={`Run ${entry.runId} · step ${entry.step} · ticket ${entry.ticketId}${entry.category ? ` · ${entry.category}` : ""}`}
      />
      <div className="mb-4 grid grid-cols-2 gap-2 md:grid-cols-4">
        <Stat label="Reward" value={<Badge tone={rewardTone(entry.reward)}>{fmtScore(entry.reward)}</Badge>} hint={entry.status} />
        <Stat label="Raw reward" value={fmtScore(entry.rawReward)} />
        <Stat label="Deciding guardrail" value={entry.decidingGuardrail ?? "none"} hint={entry.capped ? "capped" : "not capped"} />
        <Stat label="Source" value={entry.source} hint={entry.source === "external" ? "not reproducible" : `verifier v${entry.verifierVersion}`} />
      </div>
      <div className="grid gap-4 lg:grid-cols-2">
        <Card title="Sub-scores">
          <Table>
            <tbody>
              {dims.map((d) => (
                <tr key={d}>
                  <Td>{d}</Td>
                  <Td numeric>{fmtScore(entry[d])}</Td>
                </tr>
              ))}
            </tbody>
          </Table>
        </Card>
        <Card title="Guardrails">
          {guardrails.length === 0 ? (
            <p className="px-3 py-2 text-fg-muted">No guardrail triggered.</p>
          ) : (
            <Table>
              <tbody>
                {guardrails.map((g) => (
                  <tr key={g.code}>
                    <Td>
                      <Badge tone="bad">{g.code}</Badge>
                    </Td>
                    <Td numeric>cap {fmtScore(g.cap)}</Td>
                    <Td>{g.evidence !== undefined && <JsonBlock value={g.evidence} />}</Td>
                  </tr>
                ))}
              </tbody>
            </Table>
          )}
        </Card>
        <Card title="Reasons" className="lg:col-span-2">
          {reasons.length === 0 ? (
            <p className="px-3 py-2 text-fg-muted">No reasons: every check passed.</p>
          ) : (
            <Table>
              <thead>
                <tr>
                  <Th>Where</Th>
                  <Th>Code</Th>
                  <Th>Tool / field</Th>
                  <Th>Message</Th>
                </tr>
              </thead>
              <tbody>
                {reasons.map((r, i) => (
                  <tr key={i}>
                    <Td>{r.dimension ?? r.guardrail}</Td>
                    <Td className="font-mono text-[12px]">{r.code}</Td>
                    <Td className="font-mono text-[12px]">{[r.tool, r.field].filter(Boolean).join(" · ")}</Td>
                    <Td>{r.message}</Td>
                  </tr>
                ))}
              </tbody>
            </Table>
          )}
        </Card>
        <Card title={`Steps (${steps.length})`} className="lg:col-span-2">
          <ol className="divide-y divide-border">
            {steps.map((s, i) => (
              <li key={i} className="px-3 py-2">
                <div className="flex items-center gap-2">
                  <span className="num text-fg-subtle">#{i}</span>
                  <Badge tone={s.type === "tool" ? "accent" : "neutral"}>{s.type}</Badge>
                  <span className="font-mono text-[12px]">{s.name}</span>
                  {s.status && <Badge tone={s.status === "success" ? "good" : "bad"}>{s.status}</Badge>}
                </div>
                {s.input !== undefined && <JsonBlock className="mt-1" value={s.input} />}
                {s.output !== undefined && <JsonBlock className="mt-1" value={s.output} />}
              </li>
            ))}
          </ol>
          {entry.rollout && (
            <div className="border-t border-border px-3 py-2">
              <div className="text-[11px] uppercase tracking-wide text-fg-subtle">Final reply</div>
              <p className="whitespace-pre-wrap">{entry.rollout.finalReply}</p>
            </div>
          )}
        </Card>
        <Card title="Claims">
          <JsonBlock value={entry.claims} />
        </Card>
        <Card title="Sandbox writes">
          <JsonBlock value={(entry.rollout?.sandbox as { writes?: unknown } | undefined)?.writes ?? []} />
        </Card>
        {caseDoc && (
          <Card title="Case" className="lg:col-span-2">
            <div className="grid gap-2 p-2 md:grid-cols-3">
              <JsonBlock value={caseDoc.ticket} />
              <JsonBlock value={caseDoc.envSnapshot} />
              <JsonBlock value={caseDoc.verifierSpec} />
            </div>
          </Card>
        )}
        <Card title="Ledger history" className="lg:col-span-2">
          <Table>
            <thead>
              <tr>
                <Th>Entry</Th>
                <Th>Recorded</Th>
                <Th>Config</Th>
                <Th numeric>Reward</Th>
                <Th>Deciding</Th>
                <Th>State</Th>
              </tr>
            </thead>
            <tbody>
              {history.map((h) => (
                <tr key={h.id.toString()}>
                  <Td numeric>{h.id.toString()}</Td>
                  <Td>{h.createdAt.toISOString()}</Td>
                  <Td className="font-mono text-[12px]">{h.configHash?.slice(0, 19) ?? "–"}</Td>
                  <Td numeric>{fmtScore(h.reward)}</Td>
                  <Td>{h.decidingGuardrail ?? "none"}</Td>
                  <Td>{h.isCurrent ? <Badge tone="accent">current</Badge> : "superseded"}</Td>
                </tr>
              ))}
            </tbody>
          </Table>
        </Card>
      </div>
    </>
  );
}
