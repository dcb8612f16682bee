import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { HoldsUpCard } from "@/components/rewards/holds-up.tsx";
import { RewardEditor } from "@/components/rewards/reward-editor.tsx";
import { RunPanel } from "@/components/rewards/run-panel.tsx";
import { Card } from "@/components/ui/card.tsx";
import { DateTime } from "@/components/ui/datetime.tsx";
import { PageHeader } from "@/components/ui/page-header.tsx";
import { requirePageUser } from "@/lib/auth/guards.ts";
import { loadHoldsUpCard } from "@/lib/leaderboard/rerun-loaders.ts";
import { loadRewardFunctionPage } from "@/lib/rewards/loaders.ts";

export const metadata: Metadata = { title: "Reward function" };
export const dynamic = "force-dynamic";

export default async function RewardFunctionPage({ params }: { params: Promise<{ name: string }> }) {
  await requirePageUser("rewards.manage");
  const { name } = await params;
  const [page, holdsUp] = await Promise.all([
    loadRewardFunctionPage(decodeURIComponent(name)),
    loadHoldsUpCard(decodeURIComponent(name)),
  ]);
  if (!page) notFound();
  const latest = page.versions[0];
  return (
    <>
      <PageHeader title={`${latest.name} v${latest.version}`} description={latest.doc.description || undefined} />
      <Card title="Edit (saved as the next version)" className="mb-4">
        <RewardEditor
          name={latest.name}
          initialText={JSON.stringify(latest.doc, null, 2)}
          templates={[]}
          exampleRollout={page.exampleRollout}
        />
      </Card>
      <Card title={`Run v${latest.version}`} className="mb-4">
        <RunPanel versionId={latest.id} runs={page.runIds} history={page.runs} />
      </Card>
      <Card title="How it holds up" className="mb-4">
        <HoldsUpCard runs={holdsUp} />
      </Card>
      <Card title="Versions">
        <ul className="grid gap-1 p-3 text-[13px]">
          {page.versions.map((v) => (
            <li key={v.id}>
              v{v.version} <code className="text-[12px]">{v.hash.slice(0, 12)}</code> · <DateTime value={v.createdAt} />
              {v.author && <> by {v.author}</>}
              {v.reason && <> — {v.reason}</>}
            </li>
          ))}
        </ul>
      </Card>
    </>
  );
}
