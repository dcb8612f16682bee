// Reads of runs for the runs list, the run page and pickers. Everything comes from the per-step rollups (O(steps)
// per run), never from the ledger.
import { db, type Db } from "@/lib/db/client.ts";
import { Prisma } from "@/lib/generated/prisma/client.ts";
import { readDb } from "@/lib/db/read-client.ts";
import { SUCCESS_THRESHOLD } from "@/lib/stats/agreement.ts";

/** Health of one step: the latest step of a run on the runs list. */
export type StepHealthSummary = {
  step: number;
  rollouts: number;
  meanReward: number | null;
  /** reward ≥ 0.9 among rollouts with a reward. */
  successRate: number | null;
  /** Among all current rollouts of the step. */
  guardrailHitRate: number | null;
  handoffRate: number | null;
};

export type RunSummary = {
  id: string;
  description: string;
  createdAt: Date;
  /** Current ledger entries over all steps. */
  rollouts: number;
  firstStep: number | null;
  lastStep: number | null;
  /** Entries with a reward (scored or external). */
  scored: number;
  /** Over the whole run. */
  meanReward: number | null;
  successRate: number | null;
  guardrailHitRate: number | null;
  handoffRate: number | null;
  /** The latest step with rollouts: what "current health" means on the runs list. */
  latest: StepHealthSummary | null;
};

type Row = {
  id: string;
  description: string;
  created_at: Date;
  rollouts: number | null;
  rewarded: number | null;
  reward_sum: number | null;
  success: number | null;
  handoffs: number | null;
  hits: number | null;
  first_step: number | null;
  last_step: number | null;
  l_step: number | null;
  l_rollouts: number | null;
  l_rewarded: number | null;
  l_reward_sum: number | null;
  l_success: number | null;
  l_handoffs: number | null;
  l_hits: number | null;
};

const share = (k: number | null, n: number | null) => (n ? (k ?? 0) / n : null);

/**
 * Every run, newest first, with totals over its rollups and the figures of its latest step (success = reward ≥
 * SUCCESS_THRESHOLD, counted by the rollups). Totals sum O(steps) rows per run; the latest step is one index probe.
 */
/** listRunSummaries on the read replica (the primary when there is none): the runs page. */
export async function listRunSummariesForPage(): Promise<RunSummary[]> {
  return listRunSummaries(readDb());
}

export async function listRunSummaries(client: Db = db(), only?: string): Promise<RunSummary[]> {
  const rows = await client.$queryRaw<Row[]>`
    select r.id, r.description, r.created_at,
           t.rollouts, t.rewarded, t.reward_sum, t.success, t.handoffs, t.hits, t.first_step, t.last_step,
           t.l_step, t.l_rollouts, t.l_rewarded, t.l_reward_sum, t.l_success, t.l_handoffs, t.l_hits
      from runs r
      -- each run's totals over its rollups, grouped by run and joined (with its latest step's row, by key) rather than
      -- a lateral per run: on Citus (docs/scale.md) the rollups are on the workers and runs is a reference table,
      -- beside which Citus plans no lateral; for one run, its rollups alone (one worker's)
      left join (
        select t.*, s.step as l_step, s.rollouts as l_rollouts, s.rewarded as l_rewarded, s.reward_sum as l_reward_sum,
               s.success as l_success, s.handoffs as l_handoffs, s.guardrail_hits as l_hits
          from (select run_id, sum(rollouts)::int as rollouts, sum(rewarded)::int as rewarded, sum(reward_sum) as reward_sum,
                       sum(success)::int as success, sum(handoffs)::int as handoffs, sum(guardrail_hits)::int as hits,
                       min(step) filter (where rollouts > 0) as first_step, max(step) filter (where rollouts > 0) as last_step
                  from step_rollups ${only === undefined ? Prisma.empty : Prisma.sql`where run_id = ${only}`}
                 group by run_id) t
          left join step_rollups s on s.run_id = t.run_id and s.step = t.last_step
      ) t on t.run_id = r.id
     where ${only ?? null}::text is null or r.id = ${only ?? null}
     order by r.created_at desc, r.id`;
  return rows.map((r) => ({
    id: r.id,
    description: r.description,
    createdAt: r.created_at,
    rollouts: r.rollouts ?? 0,
    firstStep: r.first_step,
    lastStep: r.last_step,
    scored: r.rewarded ?? 0,
    meanReward: share(r.reward_sum, r.rewarded),
    successRate: share(r.success, r.rewarded),
    guardrailHitRate: share(r.hits, r.rollouts),
    handoffRate: share(r.handoffs, r.rollouts),
    latest:
      r.l_step === null
        ? null
        : {
            step: r.l_step,
            rollouts: r.l_rollouts ?? 0,
            meanReward: share(r.l_reward_sum, r.l_rewarded),
            successRate: share(r.l_success, r.l_rewarded),
            guardrailHitRate: share(r.l_hits, r.l_rollouts),
            handoffRate: share(r.l_handoffs, r.l_rollouts),
          },
  }));
}

/** One run's summary (null for an unknown run). */
export async function getRunSummary(runId: string, client: Db = db()): Promise<RunSummary | null> {
  return (await listRunSummaries(client, runId))[0] ?? null;
}

/** The success threshold the rollups count with (for page hints). */
export const RUN_SUCCESS_THRESHOLD = SUCCESS_THRESHOLD;

export async function getRun(runId: string, client: Db = db()) {
  return client.run.findUnique({ where: { id: runId } });
}

/** Run ids, for pickers (compare with…). */
export async function listRunIds(client: Db = db()): Promise<string[]> {
  const rows = await client.run.findMany({ select: { id: true }, orderBy: { id: "asc" } });
  return rows.map((r) => r.id);
}
