import type { Metadata } from "next";
import Link from "next/link";
import { HeadToHeadPanel } from "@/components/rewards/head-to-head.tsx";
import { LeaderboardBreakdowns, LeaderboardTable } from "@/components/rewards/leaderboard-table.tsx";
import { Card } from "@/components/ui/card.tsx";
import { EmptyState } from "@/components/ui/empty-state.tsx";
import { PageHeader } from "@/components/ui/page-header.tsx";
import { requirePageUser } from "@/lib/auth/guards.ts";
import { can } from "@/lib/auth/policy.ts";
import { loadLeaderboard } from "@/lib/leaderboard/loaders.ts";
import { leaderboardQueryString, parseLeaderboardQuery, type LeaderboardQuery } from "@/lib/leaderboard/schema.ts";
import type { LeaderboardView } from "@/lib/leaderboard/view.ts";

export const metadata: Metadata = { title: "Reward leaderboard" };
export const dynamic = "force-dynamic";

// Which reward agrees with the humans: the ledger's own and every reward-function version with results on a run's (or
// a batch's) audited items, scored against the blind reviews (docs/leaderboard.md). Everything is in the URL.
export default async function RewardComparePage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const me = await requirePageUser("ledger.read");
  const parsed = parseLeaderboardQuery(await searchParams);
  if (!parsed.ok) return <BadLink errors={parsed.errors} />;
  const q = parsed.query;
  const loaded = await loadLeaderboard(q);
  if (!loaded.ok) return <BadLink errors={[loaded.error]} />;
  const v = loaded.view;
  const qs = leaderboardQueryString(q);
  return (
    <>
      <PageHeader
        title="Reward leaderboard"
        description={`${scopeText(v)}: ${v.items} audited items with a blind review, ${v.pairwiseJudgements} pairwise judgements. A row's verdict passes at its threshold; the human's at 0.9. Intervals are 95%; below ${v.minItems} items a figure reads "too few to say".`}
        actions={
          <span className="flex gap-2">
            <a
              className="rounded border border-border px-2 py-1 text-[12px]"
              href={`/api/reward-leaderboard?${qs}&format=csv`}
              data-testid="csv"
            >
              CSV
            </a>
            <a className="rounded border border-border px-2 py-1 text-[12px]" href={`/api/reward-leaderboard?${qs}`}>
              JSON
            </a>
          </span>
        }
      />
      <ThresholdForm q={q} />
      {v.items === 0 ? (
        <EmptyState title="No audited items here">
          The leaderboard appears once annotators have reviewed items of a shadow-audit batch of this run.
        </EmptyState>
      ) : (
        <div className="space-y-4">
          <Card title="Every reward on the same audited items">
            <LeaderboardTable v={v} q={q} canOpenFunctions={can(me.role, "rewards.manage")} />
          </Card>
          {v.headToHead ? (
            <Card title="Head to head">
              <HeadToHeadPanel h={v.headToHead} q={q} />
            </Card>
          ) : (
            <p className="text-[12px] text-fg-muted" data-testid="pick-hint">
              Pick two rows (as A, as B) to compare them head to head on the items both scored.
            </p>
          )}
          <Card title="Per guardrail and per category">
            <LeaderboardBreakdowns v={v} />
          </Card>
        </div>
      )}
    </>
  );
}

function scopeText(v: LeaderboardView): string {
  const s = v.scope;
  const steps = s.from !== null || s.to !== null ? `, steps ${s.from ?? 0}–${s.to ?? "end"}` : "";
  return `Run ${s.run}${s.batch ? `, batch #${s.batch.id} ${s.batch.name}` : ""}${steps}`;
}

function BadLink({ errors }: { errors: string[] }) {
  return (
    <>
      <PageHeader title="Reward leaderboard" />
      <EmptyState title="This link has a bad parameter">
        <span data-testid="bad-params">{errors.join("; ")}.</span>{" "}
        <Link className="text-accent" href="/runs">
          Pick a run
        </Link>
      </EmptyState>
    </>
  );
}

/** The step window and the per-row thresholds as a GET form: the other parameters ride along hidden. */
function ThresholdForm({ q }: { q: LeaderboardQuery }) {
  const hidden = Object.entries({ run: q.run, batch: q.batch, sort: q.sort, dir: q.dir, a: q.a, b: q.b, side: q.side });
  const thresholds = Object.entries(q.threshold ?? {})
    .map(([id, t]) => `${id}:${t}`)
    .join(",");
  return (
    <form className="mb-3 flex flex-wrap items-end gap-3 text-[12px]" action="/rewards/compare" method="get">
      {hidden.map(([k, val]) =>
        val === undefined ? null : <input key={k} type="hidden" name={k} value={String(val)} />,
      )}
      <StepField name="from" label="From step" value={q.from} />
      <StepField name="to" label="To step" value={q.to} />
      <label className="flex flex-col">
        Pass thresholds by row (row:T, e.g. ledger:0.8,12:0.5; others 0.9)
        <input className="w-80 rounded border border-border px-1" name="threshold" defaultValue={thresholds} />
      </label>
      <button className="rounded border border-border px-2 py-1" type="submit">
        Apply
      </button>
    </form>
  );
}

function StepField({ name, label, value }: { name: string; label: string; value: number | undefined }) {
  return (
    <label className="flex flex-col">
      {label}
      <input
        className="w-24 rounded border border-border px-1"
        name={name}
        defaultValue={value ?? ""}
        inputMode="numeric"
      />
    </label>
  );
}
