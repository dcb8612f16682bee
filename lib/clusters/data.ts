import { db } from "@/lib/db/client.ts";

export type GuardrailCluster = { key: string; size: number; meanReward: number | null; tickets: number };

/**
 * Level one of the low-score clusters: current entries of a run below the threshold, grouped by their deciding
 * guardrail ("none" when no guardrail fired).
 */
export async function clusterByDecidingGuardrail(runId: string, threshold = 0.5): Promise<GuardrailCluster[]> {
  const rows = await db().$queryRaw<{ key: string; size: bigint; mean_reward: number | null; tickets: bigint }[]>`
    select coalesce(deciding_guardrail, 'none') as key, count(*) as size, avg(reward) as mean_reward,
           count(distinct ticket_id) as tickets
      from ledger
     where run_id = ${runId} and is_current and reward < ${threshold}
     group by 1 order by 2 desc, 1`;
  return rows.map((r) => ({ key: r.key, size: Number(r.size), meanReward: r.mean_reward, tickets: Number(r.tickets) }));
}
