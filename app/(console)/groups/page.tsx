import type { Metadata } from "next";
import Link from "next/link";
import { rewardTone } from "@/components/ui/format.ts";
import { Badge } from "@/components/ui/badge.tsx";
import { Card, Stat } from "@/components/ui/card.tsx";
import { EmptyState } from "@/components/ui/empty-state.tsx";
import { fmtInt, fmtScore } from "@/components/ui/format.ts";
import { TEXT_CHUNK } from "@/lib/ledger/page-window.ts";
import { PageHeader } from "@/components/ui/page-header.tsx";
import { Table, Td, Th } from "@/components/ui/table.tsx";
import { CasePanel } from "@/components/trajectory/case-panel.tsx";
import { StepLink, TicketLink, TrajectoryLink, trajectoryHref } from "@/components/ui/id-links.tsx";
import { requirePageUser } from "@/lib/auth/guards.ts";
import { can } from "@/lib/auth/policy.ts";
import { codesOfMask } from "@/lib/verifier/guardrail-mask.ts";
import { loadGroupPage } from "@/lib/ledger/loaders.ts";
import { parseGroupAddress } from "@/lib/ledger/group-address.ts";

export const metadata: Metadata = { title: "Group" };

const DIMS = ["outcome", "policy", "evidence", "efficiency", "communication"] as const;

type Params = { run?: string | string[]; id?: string | string[]; step?: string | string[]; from?: string | string[] };

// The K rollouts of one GRPO group compared: their figures in one table, then their replies side by side in full,
// under the ticket and case they all answer; "back" returns to the rollout the reader came from (when it is one of
// the group's), else to the run.
export default async function GroupPage({ searchParams }: { searchParams: Promise<Params> }) {
  const me = await requirePageUser("ledger.read");
  const params = await searchParams;
  const parsed = parseGroupAddress(params);
  if (!parsed.ok) return <EmptyState title="Not a group address">{parsed.error}</EmptyState>;
  const { groupId, runId } = parsed.address;
  const page = await loadGroupPage(parsed.address);
  if (!page) return <EmptyState title={`No rollouts in group ${groupId} of run ${runId}`} />;
  const { members, tickets, caseDoc, advantage: adv } = page;
  const from = members.find((m) => m.trajectoryId === params.from)?.trajectoryId;
  const canOpenCase = can(me.role, "cases.revise");
  return (
    <>
      <PageHeader
        title={<span className="font-mono">{groupId}</span>}
        description={
          <>
            The {members.length} rollouts of one GRPO group of run{" "}
            <Link className="text-accent" href={`/runs/${encodeURIComponent(runId)}`}>
              {runId}
            </Link>{" "}
            side by side, answering ticket{tickets.length > 1 ? "s" : ""}{" "}
            {tickets.map((t, i) => (
              <span key={t}>
                {i > 0 && ", "}
                <TicketLink id={t} canOpen={canOpenCase} className="text-[13px]" />
              </span>
            ))}
            . Advantage = (reward − group mean) / group std.
          </>
        }
        actions={
          <Link
            className="rounded border border-border px-2 py-1 text-[12px]"
            href={from ? trajectoryHref(from) : `/runs/${encodeURIComponent(runId)}`}
          >
            {from ? `Back to ${from}` : `Back to run ${runId}`}
          </Link>
        }
      />
      <div className="mb-4 grid grid-cols-2 gap-2 md:grid-cols-4">
        <Stat label="Group mean" value={fmtScore(adv.mean)} />
        <Stat
          label="Group std"
          value={fmtScore(adv.std)}
          hint={adv.std === 0 ? "no gradient: every reward equal" : undefined}
        />
        <Stat label="Rollouts" value={members.length} />
        <Stat label="Step" value={<StepLink runId={runId} step={members[0].step} />} />
      </div>
      <MemberTable members={members} advantages={adv.advantages} />
      <h2 className="mb-2 mt-4 text-[14px] font-semibold">Replies side by side</h2>
      <Replies members={members} advantages={adv.advantages} />
      {caseDoc && (
        <Card title="Case (every rollout of the group answers it)" className="mt-4">
          <CasePanel
            ticket={caseDoc.ticket}
            snapshot={caseDoc.envSnapshot}
            spec={caseDoc.verifierSpec}
            pointers={page.pointers}
          />
        </Card>
      )}
    </>
  );
}

type Member = NonNullable<Awaited<ReturnType<typeof loadGroupPage>>>["members"][number];
type Advantages = NonNullable<Awaited<ReturnType<typeof loadGroupPage>>>["advantage"]["advantages"];

/** The members' figures in one table: reward, advantage, raw reward, sub-scores, guardrails. */
function MemberTable({ members, advantages }: { members: Member[]; advantages: Advantages }) {
  return (
    <Card>
      <Table>
        <thead>
          <tr>
            <Th>Sample</Th>
            <Th>Trajectory</Th>
            <Th numeric>Reward</Th>
            <Th numeric>Advantage</Th>
            <Th numeric>Raw</Th>
            {DIMS.map((d) => (
              <Th key={d} numeric>
                {d}
              </Th>
            ))}
            <Th>Guardrails</Th>
          </tr>
        </thead>
        <tbody>
          {members.map((m, i) => (
            <tr key={m.id.toString()}>
              <Td numeric>{m.rollout?.sampleIndex ?? "–"}</Td>
              <Td>
                <TrajectoryLink id={m.trajectoryId} />
              </Td>
              <Td numeric>
                <Badge tone={rewardTone(m.reward)}>{fmtScore(m.reward)}</Badge>
              </Td>
              <Td numeric data-testid="advantage">
                {m.reward === null ? (
                  <span className="text-fg-subtle">no reward</span>
                ) : advantages[i] === null ? (
                  <span className="text-fg-subtle">no gradient</span>
                ) : (
                  advantages[i]!.toFixed(2)
                )}
              </Td>
              <Td numeric>{fmtScore(m.rawReward)}</Td>
              {DIMS.map((d) => (
                <Td key={d} numeric>
                  {fmtScore(m[d])}
                </Td>
              ))}
              <Td>
                <span className="flex flex-wrap gap-0.5">
                  {codesOfMask(m.guardrailMask).map((g) => (
                    <Badge key={g} tone={g === m.decidingGuardrail ? "bad" : "warn"}>
                      {g}
                    </Badge>
                  ))}
                </span>
              </Td>
            </tr>
          ))}
        </tbody>
      </Table>
    </Card>
  );
}

/** The members' final replies side by side, each clipped to its first chunk. */
function Replies({ members, advantages }: { members: Member[]; advantages: Advantages }) {
  return (
    <div
      className="grid gap-3"
      style={{ gridTemplateColumns: `repeat(auto-fit, minmax(min(100%, 18rem), 1fr))` }}
      data-testid="group-replies"
    >
      {members.map((m, i) => (
        <section key={m.id.toString()} className="min-w-0 rounded-md border border-border" data-testid="group-reply">
          <header className="flex flex-wrap items-center gap-2 border-b border-border px-3 py-1.5 text-[12px]">
            <span className="text-fg-muted">sample {m.rollout?.sampleIndex ?? "–"}</span>
            <TrajectoryLink id={m.trajectoryId} />
            <Badge tone={rewardTone(m.reward)}>{fmtScore(m.reward)}</Badge>
            <span className="text-fg-muted">
              advantage {advantages[i] === null || advantages[i] === undefined ? "–" : advantages[i]!.toFixed(2)}
            </span>
            {m.decidingGuardrail && <Badge tone="bad">{m.decidingGuardrail}</Badge>}
          </header>
          <p className="whitespace-pre-wrap px-3 py-2 text-[13px]">
            {m.rollout ? (
              m.rollout.finalReply.slice(0, TEXT_CHUNK)
            ) : (
              <span className="text-fg-muted">The rollout was not ingested.</span>
            )}
          </p>
          {m.rollout && m.rollout.finalReply.length > TEXT_CHUNK && (
            <p className="px-3 pb-2 text-[12px] text-fg-muted" data-testid="group-reply-clipped">
              The first {fmtInt(TEXT_CHUNK)} of {fmtInt(m.rollout.finalReply.length)} characters; the rest on{" "}
              <TrajectoryLink id={m.trajectoryId} />.
            </p>
          )}
        </section>
      ))}
    </div>
  );
}
