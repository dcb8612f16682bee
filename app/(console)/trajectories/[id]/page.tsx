import Link from "next/link";
import { notFound } from "next/navigation";
import { rewardTone } from "@/components/ui/format.ts";
import { CasePanel } from "@/components/trajectory/case-panel.tsx";
import { ClaimsPanel } from "@/components/trajectory/claims-panel.tsx";
import { GuardrailsPanel } from "@/components/trajectory/guardrails-panel.tsx";
import { ReasonList } from "@/components/trajectory/reason-list.tsx";
import { StepTimeline } from "@/components/trajectory/step-timeline.tsx";
import { SubscoresPanel } from "@/components/trajectory/subscores-panel.tsx";
import { RewardWaterfall } from "@/components/trajectory/waterfall.tsx";
import { Badge } from "@/components/ui/badge.tsx";
import { Card, Stat } from "@/components/ui/card.tsx";
import { StepLink, TicketLink } from "@/components/ui/id-links.tsx";
import { fmtScore } from "@/components/ui/format.ts";
import { PageHeader } from "@/components/ui/page-header.tsx";
import { Table, Td, Th } from "@/components/ui/table.tsx";
import { WindowNav } from "@/components/ui/window-nav.tsx";
import { requirePageUser } from "@/lib/auth/guards.ts";
import { can } from "@/lib/auth/policy.ts";
import { groupHref } from "@/lib/ledger/group-address.ts";
import { describeChanges } from "@/lib/ledger/history.ts";
import { loadTrajectoryPage, type TrajectoryPageData } from "@/lib/ledger/loaders.ts";
import { decodeSegment } from "@/lib/server/route-params.ts";
import { trainedRewardGap } from "@/lib/stats/trained-reward.ts";
import { parseSearch } from "@/lib/search/parse.ts";
import { fieldMarks } from "@/lib/search/snippet.ts";
import { MarkTerms } from "@/components/search/snippet-text.tsx";

export default async function TrajectoryPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<Record<string, string | string[]>>;
}) {
  const me = await requirePageUser("ledger.read");
  const trajectoryId = decodeSegment((await params).id);
  if (trajectoryId === null) notFound();
  const search = await searchParams;
  const page = await loadTrajectoryPage(trajectoryId, search);
  if (!page) notFound();
  const { entry, caseDoc, weights, reasons, hits, writes, windows } = page;

  return (
    <>
      <PageHeader
        title={<span className="font-mono">{entry.trajectoryId}</span>}
        description={<EntryPlace entry={entry} canOpenCase={can(me.role, "cases.revise")} />}
        actions={<FilterNav query={page.query} around={page.around} />}
      />
      <EntryStats entry={entry} />
      <div className="grid gap-4 xl:grid-cols-2">
        <Card title="Reward waterfall">
          <RewardWaterfall raw={entry.rawReward} reward={entry.reward} caps={hits} deciding={entry.decidingGuardrail} />
          {entry.status !== "scored" && (
            <div className="px-3 pb-2">
              <ReasonList reasons={reasons} />
            </div>
          )}
        </Card>
        <Card
          title={`Sub-scores against their weights${weights.known ? "" : " (default weights: config not stored here)"}`}
        >
          <SubscoresPanel scores={entry} weights={weights.weights} reasons={reasons} />
          <WindowNav window={windows.reasons} param="reasons_from" search={search} noun="reasons" />
        </Card>
        <Card title="Guardrails">
          <GuardrailsPanel hits={hits} deciding={entry.decidingGuardrail} reasons={reasons} />
          <WindowNav window={windows.guardrails} param="guardrails_from" search={search} noun="guardrail hits" />
        </Card>
        <Card title="Claims against the sandbox">
          <ClaimsPanel
            claims={page.claims.claims}
            executed={writes.map((w) => w.tool)}
            mustMention={page.mustMention}
            reasonsByKey={page.mentionProblems}
            source={entry.claimsSource}
          />
          <WindowNav window={page.claims.window} param="claims_from" search={search} noun="claims" />
        </Card>
        <StepsCard page={page} search={search} />
        {caseDoc && (
          <Card title="Case" className="xl:col-span-2">
            <CasePanel
              ticket={caseDoc.ticket}
              snapshot={caseDoc.envSnapshot}
              spec={caseDoc.verifierSpec}
              pointers={page.pointers}
            />
          </Card>
        )}
        <LedgerHistory history={page.history} />
      </div>
    </>
  );
}

type Entry = TrajectoryPageData["entry"];

/** Where the entry sits: its run, step, ticket, category and group. */
function EntryPlace({ entry, canOpenCase }: { entry: Entry; canOpenCase: boolean }) {
  return (
    <>
      Run{" "}
      <Link className="text-accent" href={`/runs/${encodeURIComponent(entry.runId)}`}>
        {entry.runId}
      </Link>{" "}
      · step <StepLink runId={entry.runId} step={entry.step} /> · ticket{" "}
      <TicketLink id={entry.ticketId} canOpen={canOpenCase} rollout={entry.rolloutId ?? undefined} />
      {entry.category ? ` · ${entry.category}` : ""}
      {entry.groupId && (
        <>
          {" · "}
          <Link
            className="text-accent"
            href={groupHref({ runId: entry.runId, groupId: entry.groupId, step: entry.step }, entry.trajectoryId)}
          >
            group {entry.groupId}
          </Link>
        </>
      )}
    </>
  );
}

/** Back to the list, and the previous and next entries under the list's filter. */
function FilterNav({ query, around }: { query: string; around: TrajectoryPageData["around"] }) {
  const link = (t: string) => `/trajectories/${encodeURIComponent(t)}${query ? `?${query}` : ""}`;
  return (
    <nav className="flex gap-2 text-[12px]" aria-label="Within the current filter">
      <Link className="rounded border border-border px-2 py-1" href={`/trajectories${query ? `?${query}` : ""}`}>
        Back to list
      </Link>
      {around.prev ? (
        <Link className="rounded border border-border px-2 py-1" href={link(around.prev)}>
          ← Previous
        </Link>
      ) : (
        <span className="px-2 py-1 text-fg-subtle">← Previous</span>
      )}
      {around.next ? (
        <Link className="rounded border border-border px-2 py-1" href={link(around.next)}>
          Next →
        </Link>
      ) : (
        <span className="px-2 py-1 text-fg-subtle">Next →</span>
      )}
    </nav>
  );
}

/** The entry's figures: reward, raw reward, the trainer's reward beside the ledger's, guardrail, hand-off, source. */
function EntryStats({ entry }: { entry: Entry }) {
  return (
    <div
      className={`mb-4 grid grid-cols-2 gap-2 ${entry.trainedReward !== null ? "md:grid-cols-6" : "md:grid-cols-5"}`}
    >
      <Stat
        label="Reward"
        value={<Badge tone={rewardTone(entry.reward)}>{fmtScore(entry.reward)}</Badge>}
        hint={entry.status}
      />
      <Stat label="Raw reward" value={fmtScore(entry.rawReward)} />
      {entry.trainedReward !== null && <TrainedRewardStat trained={entry.trainedReward} reward={entry.reward} />}
      <Stat
        label="Deciding guardrail"
        value={entry.decidingGuardrail ?? "none"}
        hint={entry.capped ? "capped" : "not capped"}
      />
      <Stat label="Hand-off" value={entry.handoff ? "yes" : "no"} hint={`${entry.toolSteps ?? "–"} tool steps`} />
      <Stat
        label="Source"
        value={entry.source === "external" ? "external" : `verifier v${entry.verifierVersion}`}
        hint={entry.source === "external" ? "not reproducible here" : `config ${entry.configHash?.slice(7, 19)}`}
      />
    </div>
  );
}

function TrainedRewardStat({ trained, reward }: { trained: number; reward: Entry["reward"] }) {
  const gap = trainedRewardGap(trained, reward);
  return (
    <Stat
      label="Trained reward"
      value={
        <span data-testid="trained-reward">
          {fmtScore(trained)}
          {gap && (
            <span className="ml-2">
              <Badge tone={gap.differs ? "bad" : "good"}>
                {gap.differs ? `${gap.difference > 0 ? "+" : "−"}${fmtGap(gap.difference)}` : "= ledger"}
              </Badge>
            </span>
          )}
        </span>
      }
      hint={
        gap === null
          ? "the trainer's reward; the ledger has none"
          : gap.differs
            ? `the trainer's reward, ${fmtGap(gap.difference)} ${gap.difference > 0 ? "above" : "below"} the ledger's`
            : "the trainer's reward, equal to the ledger's"
      }
    />
  );
}

/** The rollout's steps (a window of them) and its final reply; an external score record has neither. */
function StepsCard({ page, search }: { page: TrajectoryPageData; search: Record<string, string | string[]> }) {
  const { windows } = page;
  // the browser's search the page was opened from: its terms are marked in the steps and the reply
  const q = typeof search.q === "string" ? parseSearch(search.q) : null;
  const marks = fieldMarks(q?.ok ? q.query : null);
  return (
    <Card title={`Steps (${windows.steps.total})`} className="xl:col-span-2">
      {page.entry.rollout ? (
        <>
          <StepTimeline
            steps={page.steps}
            kinds={page.kinds}
            writes={page.writes}
            offset={windows.steps.from}
            total={windows.steps.total}
            marks={marks}
          />
          <WindowNav window={windows.steps} param="steps_from" search={search} noun="steps" />
          <div className="border-t border-border px-3 py-2">
            <div className="text-[11px] uppercase tracking-wide text-fg-subtle">Final reply</div>
            <p className="whitespace-pre-wrap" data-testid="final-reply">
              <MarkTerms text={page.reply.text} terms={marks?.reply} />
            </p>
            <WindowNav window={page.reply.window} param="reply_from" search={search} noun="characters" />
          </div>
        </>
      ) : (
        <p className="px-3 py-2 text-fg-muted">The rollout itself was not ingested (external score record).</p>
      )}
    </Card>
  );
}

/** Every ledger entry of the trajectory, oldest first, with what changed from the one before. */
function LedgerHistory({ history }: { history: TrajectoryPageData["history"] }) {
  return (
    <Card title="Ledger history" className="xl:col-span-2">
      <Table>
        <thead>
          <tr>
            <Th>Entry</Th>
            <Th>Recorded</Th>
            <Th>Config</Th>
            <Th numeric>Reward</Th>
            <Th>What changed</Th>
            <Th>State</Th>
          </tr>
        </thead>
        <tbody>
          {history.map((h, i) => (
            <tr key={h.id.toString()}>
              <Td numeric>{h.id.toString()}</Td>
              <Td className="whitespace-nowrap">{h.createdAt.toISOString().replace("T", " ").slice(0, 19)}</Td>
              <Td className="font-mono text-[12px]">{h.configHash?.slice(7, 19) ?? "–"}</Td>
              <Td numeric>{fmtScore(h.reward)}</Td>
              <Td>{i === 0 ? "first score" : describeChanges(history[i - 1], h).join(" · ")}</Td>
              <Td>{h.isCurrent ? <Badge tone="accent">current</Badge> : "superseded"}</Td>
            </tr>
          ))}
        </tbody>
      </Table>
    </Card>
  );
}

/** A difference between two rewards: three decimals, or two significant digits when smaller than 0.001. */
function fmtGap(d: number): string {
  const a = Math.abs(d);
  return a >= 0.001 ? a.toFixed(3) : a.toPrecision(2);
}
