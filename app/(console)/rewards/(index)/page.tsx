import type { Metadata } from "next";
import Link from "next/link";
import { RewardEditor } from "@/components/rewards/reward-editor.tsx";
import { Card } from "@/components/ui/card.tsx";
import { DateTime } from "@/components/ui/datetime.tsx";
import { EmptyState } from "@/components/ui/empty-state.tsx";
import { PageHeader } from "@/components/ui/page-header.tsx";
import { Table, Td, Th } from "@/components/ui/table.tsx";
import { requirePageUser } from "@/lib/auth/guards.ts";
import { listRewardFunctions } from "@/lib/rewards/data.ts";
import { templateOptions } from "@/lib/rewards/loaders.ts";

export const metadata: Metadata = { title: "Reward functions" };
export const dynamic = "force-dynamic";

export default async function RewardsPage() {
  await requirePageUser("rewards.manage");
  const fns = await listRewardFunctions();
  const templates = templateOptions();
  return (
    <>
      <PageHeader
        title="Reward functions"
        description="Rule, LLM-judge and code rewards beside the ledger's verifier: versioned, tried on one rollout, run over a run. The ledger stays what the trainer trained on."
      />
      {fns.length === 0 ? (
        <EmptyState title="No reward functions yet">Start from a template below.</EmptyState>
      ) : (
        <Card className="mb-4">
          <Table>
            <thead>
              <tr>
                <Th>Function</Th>
                <Th>Components</Th>
                <Th>Versions</Th>
                <Th>Runs of the latest</Th>
                <Th>Latest</Th>
              </tr>
            </thead>
            <tbody>
              {fns.map((f) => (
                <tr key={f.id}>
                  <Td>
                    <Link className="text-accent underline" href={`/rewards/${encodeURIComponent(f.name)}`}>
                      {f.name}
                    </Link>{" "}
                    v{f.latest.version}
                  </Td>
                  <Td>{f.latest.kinds.join(" + ")}</Td>
                  <Td>{f.versions}</Td>
                  <Td>{f.runs}</Td>
                  <Td>
                    <DateTime value={f.latest.createdAt} />{" "}
                    {f.latest.author && <span className="text-fg-subtle">by {f.latest.author}</span>}
                  </Td>
                </tr>
              ))}
            </tbody>
          </Table>
        </Card>
      )}
      <Card title="New reward function">
        <RewardEditor name={null} initialText={templates[0].text} templates={templates} exampleRollout={null} />
      </Card>
    </>
  );
}
