import { db } from "@/lib/db/client.ts";

export type BatchSummary = {
  id: number;
  name: string;
  runId: string;
  stepFrom: number;
  stepTo: number;
  rate: number;
  createdAt: Date;
  items: number;
  done: number;
  reviews: number;
};

/** Every shadow-audit batch with its progress, newest first. */
export async function listBatchSummaries(): Promise<BatchSummary[]> {
  const rows = await db().$queryRaw<
    { id: number; name: string; run_id: string; step_from: number; step_to: number; rate: number; created_at: Date; items: bigint; done: bigint; reviews: bigint }[]
  >`
    select b.id, b.name, b.run_id, b.step_from, b.step_to, b.rate, b.created_at,
           (select count(*) from audit_items i where i.batch_id = b.id) as items,
           (select count(*) from audit_items i where i.batch_id = b.id and i.status = 'done') as done,
           (select count(*) from reviews r join audit_items i on i.id = r.item_id where i.batch_id = b.id) as reviews
      from audit_batches b order by b.created_at desc, b.id desc`;
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    runId: r.run_id,
    stepFrom: r.step_from,
    stepTo: r.step_to,
    rate: r.rate,
    createdAt: r.created_at,
    items: Number(r.items),
    done: Number(r.done),
    reviews: Number(r.reviews),
  }));
}
