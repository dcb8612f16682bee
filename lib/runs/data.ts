import { db } from "@/lib/db/client.ts";

export type RunSummary = {
  id: string;
  description: string;
  createdAt: Date;
  rollouts: number;
  firstStep: number | null;
  lastStep: number | null;
  scored: number;
  meanReward: number | null;
  successRate: number | null;
  guardrailHitRate: number | null;
  handoffRate: number | null;
};

/** Every run with its ledger totals over current entries (success = reward >= 0.9). */
export async function listRunSummaries(): Promise<RunSummary[]> {
  const rows = await db().$queryRaw<
    {
      id: string;
      description: string;
      created_at: Date;
      rollouts: bigint;
      first_step: number | null;
      last_step: number | null;
      scored: bigint;
      mean_reward: number | null;
      success: bigint;
      hit: bigint;
      handoff: bigint;
    }[]
  >`
    select r.id, r.description, r.created_at,
           coalesce(l.n, 0) as rollouts, l.first_step, l.last_step, coalesce(l.scored, 0) as scored,
           l.mean_reward, coalesce(l.success, 0) as success, coalesce(l.hit, 0) as hit, coalesce(l.handoff, 0) as handoff
      from runs r
      left join lateral (
        select count(*) as n, min(step) as first_step, max(step) as last_step,
               count(*) filter (where status = 'scored' or source = 'external') as scored,
               avg(reward) as mean_reward,
               count(*) filter (where reward >= 0.9) as success,
               count(*) filter (where guardrail_mask <> 0) as hit,
               count(*) filter (where handoff) as handoff
          from ledger where run_id = r.id and is_current
      ) l on true
     order by r.created_at desc, r.id`;
  return rows.map((r) => {
    const scored = Number(r.scored);
    const share = (n: bigint) => (scored ? Number(n) / scored : null);
    return {
      id: r.id,
      description: r.description,
      createdAt: r.created_at,
      rollouts: Number(r.rollouts),
      firstStep: r.first_step,
      lastStep: r.last_step,
      scored,
      meanReward: r.mean_reward,
      successRate: share(r.success),
      guardrailHitRate: share(r.hit),
      handoffRate: share(r.handoff),
    };
  });
}

export type StepSummary = {
  step: number;
  n: number;
  meanReward: number | null;
  successRate: number;
  guardrailHitRate: number;
  handoffRate: number;
};

/** Per-step totals of one run's current ledger entries, in step order. */
export async function listRunSteps(runId: string): Promise<StepSummary[]> {
  const rows = await db().$queryRaw<
    { step: number; n: bigint; mean_reward: number | null; success: bigint; hit: bigint; handoff: bigint }[]
  >`
    select step, count(*) as n, avg(reward) as mean_reward,
           count(*) filter (where reward >= 0.9) as success,
           count(*) filter (where guardrail_mask <> 0) as hit,
           count(*) filter (where handoff) as handoff
      from ledger where run_id = ${runId} and is_current
     group by step order by step`;
  return rows.map((r) => {
    const n = Number(r.n);
    return {
      step: r.step,
      n,
      meanReward: r.mean_reward,
      successRate: Number(r.success) / n,
      guardrailHitRate: Number(r.hit) / n,
      handoffRate: Number(r.handoff) / n,
    };
  });
}

export async function getRun(runId: string) {
  return db().run.findUnique({ where: { id: runId } });
}
