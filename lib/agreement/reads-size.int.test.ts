import { beforeAll, describe, expect, it } from "vitest";
import { loadAgreementItems } from "@/lib/agreement/data.ts";
import { agreementFilterSchema } from "@/lib/agreement/schema.ts";
import { claimNextItem } from "@/lib/review/leases.ts";
import { createBatch } from "@/lib/audit/mutations.ts";
import { makeUsers, seedRun, uniqueName, fullMarksReview } from "@/lib/testing/audit-data.ts";
import { db } from "@/lib/db/client.ts";
import type { Prisma } from "@/lib/generated/prisma/client.ts";
import { submitReview } from "@/lib/review/mutations.ts";
import type { ReviewBody } from "@/lib/review/schema.ts";

// The agreement report reads the reviewed items, not the ledger: what it reads of the run's ledger partition must
// follow the number of reviewed items, whatever the size of the run. Counted with the transaction's own table
// statistics (pg_stat_xact_user_tables: rows fetched by sequential and index scans), with sequential scans
// disabled so that a small table is read through an index whenever one fits the query — a lookup no index serves
// still reads every row of the partition.
const url = process.env.DATABASE_URL!;
const body: ReviewBody = fullMarksReview();

async function ledgerRowsRead(tx: Prisma.TransactionClient): Promise<number> {
  const [r] = await tx.$queryRaw<{ n: bigint }[]>`
    select coalesce(sum(coalesce(s.seq_tup_read, 0) + coalesce(s.idx_tup_fetch, 0)), 0)::bigint as n
      from pg_inherits i join pg_stat_xact_user_tables s on s.relid = i.inhrelid
     where i.inhparent = 'ledger'::regclass`;
  return Number(r.n);
}

describe("agreement report's reads at size", () => {
  let runId: string;
  let entries: number;

  beforeAll(async () => {
    runId = uniqueName("agree-size");
    await db()
      .run.create({ data: { id: runId } })
      .catch(() => undefined);
    // 20 tickets at step 10 are audited; 400 rollouts at step 50, outside the batch, make the ledger 21× the audit.
    await seedRun(url, { runId, tickets: 20, step: 10 });
    await seedRun(url, { runId, tickets: 100, perTicket: 4, step: 50 });
    entries = await db().ledgerEntry.count({ where: { runId } });
    const b = await createBatch(
      { runId, stepFrom: 0, stepTo: 20, rate: 1, salt: "size", pick: "one", overlapRate: 0, tolerance: 0.1 },
      { label: "test" },
    );
    if (!b.ok) throw new Error(b.error);
    const [ann] = await makeUsers(db(), 1);
    for (let n = 0; n < 5; n++) {
      const lease = await claimNextItem(ann.userId, { batchId: b.batchId });
      if (!lease) throw new Error("no item to review");
      const r = await submitReview(lease.itemId, ann, body, 30);
      if (!r.ok) throw new Error(r.error);
    }
  });

  it("reads a few ledger rows per reviewed item, not the run's partition", async () => {
    expect(entries).toBe(420);
    const f = agreementFilterSchema.parse({ run: runId });
    const { items, read } = await db().$transaction(async (tx) => {
      await tx.$executeRawUnsafe("set local enable_seqscan = off");
      const before = await ledgerRowsRead(tx);
      const items = await loadAgreementItems(f, tx);
      return { items, read: (await ledgerRowsRead(tx)) - before };
    });
    expect(items).toHaveLength(5);
    // Each item's recorded entry and its rollout's current one (the same row here): at most a few rows an item.
    expect(read).toBeGreaterThan(0);
    expect(read).toBeLessThanOrEqual(4 * items.length);
  });
});
