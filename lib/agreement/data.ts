import { db } from "@/lib/db/client.ts";

export type AgreementCounts = { reviewed: number; agreeing: number; tolerance: number };

/**
 * Reviewed items and how many of their latest reviews land within the tolerance of the ledger reward they were
 * compared with. The statistics (intervals, kappa, alpha) live in lib/stats.
 */
export async function countAgreement(tolerance = 0.1): Promise<AgreementCounts> {
  const rows = await db().$queryRaw<{ reviewed: bigint; agreeing: bigint }[]>`
    select count(*) as reviewed,
           count(*) filter (where abs(r.reward - l.reward) <= ${tolerance} + 1e-9) as agreeing
      from reviews r
      join audit_items i on i.id = r.item_id
      join ledger l on l.id = i.ledger_id
     where not exists (select 1 from reviews s where s.supersedes_id = r.id)
       and l.reward is not null`;
  return { reviewed: Number(rows[0].reviewed), agreeing: Number(rows[0].agreeing), tolerance };
}
