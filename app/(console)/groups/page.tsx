import type { Metadata } from "next";
import Link from "next/link";
import { rewardTone } from "@/components/ui/format.ts";
import { Badge } from "@/components/ui/badge.tsx";
import { Card, Stat } from "@/components/ui/card.tsx";
import { EmptyState } from "@/components/ui/empty-state.tsx";
import { fmtScore } from "@/components/ui/format.ts";
import { PageHeader } from "@/components/ui/page-header.tsx";
import { Table, Td, Th } from "@/components/ui/table.tsx";
import { requirePageUser } from "@/lib/auth/guards.ts";
import { codesOfMask } from "@/lib/ingest/rows.ts";
import { loadGroup } from "@/lib/ledger/detail.ts";
import { parseGroupAddress } from "@/lib/ledger/group-address.ts";
import { mean, populationStd } from "@/lib/stats/descriptive.ts";
import { groupAdvantage } from "@/lib/stats/trend.ts";

export const metadata: Metadata = { title: "Group" };

const DIMS = ["outcome", "policy", "evidence", "efficiency", "communication"] as const;

type Params = { run?: string | string[]; id?: string | string[]; step?: string | string[] };

export default async function GroupPage({ searchParams }: { searchParams: Promise<Params> }) {
  await requirePageUser("ledger.read");
  const parsed = parseGroupAddress(await searchParams);
  if (!parsed.ok) return <EmptyState title="Not a group address">{parsed.error}</EmptyState>;
  const { groupId, runId } = parsed.address;
  const members = await loadGroup(parsed.address);
  if (!members.length) return <EmptyState title={`No rollouts in group ${groupId} of run ${runId}`} />;
  const rewards = members.map((m) => m.reward);
  const present = rewards.filter((r): r is number => r !== null);
  const adv = { mean: mean(present), std: populationStd(present), advantages: groupAdvantage(rewards) };
  return (
    <>
      <PageHeader
        title={<span className="font-mono">{groupId}</span>}
        description={`The ${members.length} rollouts of one GRPO group side by side. Advantage = (reward − group mean) / group std.`}
      />
      <div className="mb-4 grid grid-cols-2 gap-2 md:grid-cols-4">
        <Stat label="Group mean" value={fmtScore(adv.mean)} />
        <Stat
          label="Group std"
          value={fmtScore(adv.std)}
          hint={adv.std === 0 ? "no gradient: every reward equal" : undefined}
        />
        <Stat label="Rollouts" value={members.length} />
        <Stat label="Step" value={members[0].step} />
      </div>
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
              <Th>Final reply</Th>
            </tr>
          </thead>
          <tbody>
            {members.map((m, i) => (
              <tr key={m.id.toString()}>
                <Td numeric>{m.rollout?.sampleIndex ?? "–"}</Td>
                <Td>
                  <Link
                    className="font-mono text-[12px] text-accent hover:underline"
                    href={`/trajectories/${encodeURIComponent(m.trajectoryId)}`}
                  >
                    {m.trajectoryId}
                  </Link>
                </Td>
                <Td numeric>
                  <Badge tone={rewardTone(m.reward)}>{fmtScore(m.reward)}</Badge>
                </Td>
                <Td numeric data-testid="advantage">
                  {m.reward === null ? (
                    <span className="text-fg-subtle">no reward</span>
                  ) : adv.advantages[i] === null ? (
                    <span className="text-fg-subtle">no gradient</span>
                  ) : (
                    adv.advantages[i]!.toFixed(2)
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
                <Td className="max-w-xs truncate">{m.rollout?.finalReply.slice(0, 500)}</Td>
              </tr>
            ))}
          </tbody>
        </Table>
      </Card>
    </>
  );
}
