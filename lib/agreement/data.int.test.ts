import { rawClient } from "@/lib/db/raw-client.ts";
import { beforeAll, describe, expect, it } from "vitest";
import { loadAgreementItems, type AgreementItem } from "@/lib/agreement/data.ts";
import { parseAgreementFilter, type AgreementFilter } from "@/lib/agreement/schema.ts";
import { recordAdjudication } from "@/lib/audit/adjudication-mutations.ts";
import { db } from "@/lib/db/client.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import { rescoreRun } from "@/lib/ledger/mutations.ts";
import { claimNextItem } from "@/lib/review/leases.ts";
import { createBatch } from "@/lib/audit/mutations.ts";
import { ingestValues } from "@/lib/ingest/ingest.ts";
import { submitReview } from "@/lib/review/mutations.ts";
import { seedAgreementAudit } from "@/lib/testing/agreement-data.ts";
import { loadAgreementItemsPrisma } from "@/lib/testing/agreement-items-prisma.ts";
import { makeUsers, uniqueName, variantRollout, fullMarksReview } from "@/lib/testing/audit-data.ts";
import { disputedRun, noEmptyPromise } from "@/lib/testing/defects-data.ts";
import { makeCase } from "@/lib/testing/verifier-fixtures.ts";

// The SQL loader against the Prisma relation queries it replaced (kept in lib/testing/agreement-items-prisma.ts): the same
// items, field for field and type for type (bigint ids, Dates, nulls, NaN caps), in the same order, under every
// filter field — over three runs and four batches with overlap reviews, corrected (superseded) and excluded reviews,
// revised adjudications and re-scored entries.
const url = process.env.DATABASE_URL!;

const filter = (over: Record<string, string>): AgreementFilter => {
  const p = parseAgreementFilter(over);
  if (!p.ok) throw new Error(p.errors.join("; "));
  return p.filter;
};

let a: Awaited<ReturnType<typeof seedAgreementAudit>>;
let b: Awaited<ReturnType<typeof seedAgreementAudit>>;
let rescored: Awaited<ReturnType<typeof disputedRun>>;
let other: string;
let firstDay: string;
let lastDay: string;
let category: string;

beforeAll(async () => {
  a = await seedAgreementAudit(url, "agree-sql-a");
  b = await seedAgreementAudit(url, "agree-sql-b");
  rescored = await disputedRun(url, 3, { honest: 2 });
  other = await otherCategoryRun();
  const c = rawClient({ connectionString: url });
  await c.connect();
  try {
    // Corrections: a later review of the same reviewer superseding the first, on a few items of each batch (the
    // first no longer counts, the correction does).
    await c.query(
      `insert into reviews (item_id, reviewer_id, outcome, policy, evidence, efficiency, communication, guardrails, reward,
                            claims, note, seconds_spent, created_at, supersedes_id)
       select r.item_id, r.reviewer_id, r.outcome, r.policy, r.evidence, r.efficiency, r.communication, '{policy_error}',
              greatest(0, r.reward - 0.5), r.claims, 'corrected', 12, r.created_at + interval '1 day', r.id
         from reviews r join audit_items i on i.id = r.item_id
        where i.batch_id = any($1::int[]) and r.id % 5 = 0`,
      [[a.batchId, b.batchId]],
    );
    // Reviews that do not count (their author could see the ledger), kept apart under `excluded`.
    await c.query(
      `insert into reviews (item_id, reviewer_id, outcome, policy, evidence, efficiency, communication, guardrails, reward,
                            claims, seconds_spent, created_at, excluded_reason)
       select r.item_id, r.reviewer_id, 1, 1, 1, 1, 1, '{}', 1, '{}'::jsonb, 5, r.created_at, 'author''s role (lead) can read the ledger'
         from reviews r join audit_items i on i.id = r.item_id
        where i.batch_id = $1 and r.id % 7 = 1`,
      [a.batchId],
    );
    // batch a's reviews are spread over three days
    [{ firstDay, lastDay }] = (
      await c.query<{ firstDay: string; lastDay: string }>(
        `select to_char(min(r.created_at) at time zone 'UTC', 'YYYY-MM-DD') as "firstDay",
                to_char(max(r.created_at) at time zone 'UTC', 'YYYY-MM-DD') as "lastDay"
           from reviews r join audit_items i on i.id = r.item_id where i.batch_id = $1 and r.supersedes_id is null`,
        [a.batchId],
      )
    ).rows;
    category = (
      await c.query<{ category: string }>(
        `select l.category from audit_items i join ledger l on l.run_id = i.run_id and l.id = i.ledger_id
          where i.batch_id = $1 and l.category is not null group by 1 order by count(*) desc limit 1`,
        [a.batchId],
      )
    ).rows[0].category;
  } finally {
    await c.end();
  }
  // Revised adjudications: the latest current one is the item's.
  const adjudicated = await db().adjudication.findMany({
    where: { item: { batchId: a.batchId } },
    orderBy: { id: "asc" },
    take: 2,
    select: { itemId: true },
  });
  const [lead] = await db().user.findMany({ where: { role: "lead" }, take: 1 });
  for (const x of adjudicated)
    await recordAdjudication(
      { itemId: x.itemId, cause: "ambiguous", note: "revised" },
      { userId: lead.id, email: lead.email },
    );
  // Re-scored entries: every entry of the disputed run gets a successor.
  for (const itemId of rescored.items)
    await recordAdjudication(
      { itemId, cause: "verifier_rule_wrong", guardrail: "empty_promise", note: "" },
      rescored.lead,
    );
  await rescoreRun(bulkPool(url), { runId: rescored.runId, config: noEmptyPromise() });
}, 240_000);

/** A run of 6 tickets of another category than the fixtures' (refund_damaged), every one reviewed. */
async function otherCategoryRun(): Promise<string> {
  const runId = uniqueName("agree-sql-cancel");
  const values: unknown[] = [];
  for (let i = 0; i < 6; i++) {
    const ticketId = `${runId}/T${i}`;
    const c = makeCase({}, undefined, ticketId);
    values.push({ ...c, ticket: { ...c.ticket, category: "cancel_order" } });
    values.push(variantRollout("honest", { runId, ticketId, trajectoryId: `${ticketId}/k0`, step: 10, sample: 0 }));
  }
  const s = await ingestValues(values, { pool: bulkPool(url) });
  if (!s.ok || s.rejected > 0) throw new Error(JSON.stringify(s).slice(0, 300));
  const batch = await createBatch(
    { runId, stepFrom: 0, stepTo: 100, rate: 1, salt: "c", pick: "one", overlapRate: 0, tolerance: 0.1 },
    { label: "test" },
  );
  if (!batch.ok) throw new Error(batch.error);
  const [annotator] = await makeUsers(db(), 1);
  for (let i = 0; i < 6; i++) {
    const lease = await claimNextItem(annotator.userId, { batchId: batch.batchId });
    const r = await submitReview(
      lease!.itemId,
      annotator,
      fullMarksReview({ claims: { claimed_writes: [], mentioned: [], forbidden_hits: [] } }),
      30,
    );
    if (!r.ok) throw new Error(r.error);
  }
  return runId;
}

async function same(f: AgreementFilter): Promise<AgreementItem[]> {
  const before = await loadAgreementItemsPrisma(f, db());
  const after = await loadAgreementItems(f, db());
  expect(after).toStrictEqual(before);
  return after;
}

describe("loadAgreementItems (SQL)", () => {
  it("gives every item of every run as the relation queries did, varied as the fixture means it", async () => {
    const all = await same(filter({}));
    const runs = new Set(all.map((i) => i.item.runId));
    // the database is shared with the other test files: their runs are there too
    expect([...runs]).toEqual(expect.arrayContaining([a.runId, b.runId, rescored.runId, other]));
    expect(new Set(all.map((i) => i.item.batchId)).size).toBeGreaterThanOrEqual(3);
    expect(all.some((i) => i.reviews.length > 1)).toBe(true);
    expect(all.some((i) => (i.excluded ?? []).length > 0)).toBe(true);
    expect(all.some((i) => i.reviews.some((r) => r.note === "corrected"))).toBe(true);
    expect(all.some((i) => i.adjudication?.cause === "ambiguous")).toBe(true);
    expect(all.filter((i) => i.bases?.rescored && i.item.runId === rescored.runId)).toHaveLength(5);
    expect(all.map((i) => i.item.itemId)).toEqual([...all.map((i) => i.item.itemId)].sort((x, y) => (x < y ? -1 : 1)));
    expect(typeof all[0].item.itemId).toBe("bigint");
    expect(all[0].reviews[0].createdAt).toBeInstanceOf(Date);
  });

  it("is the same under each filter field and their combinations", async () => {
    const [annotator] = a.annotators;
    // what each selects of all the items: none, some, or all of them
    const cases: [Record<string, string>, "none" | "some" | "all"][] = [
      [{ run: a.runId }, "some"],
      [{ batch: String(b.batchId) }, "some"],
      [{ run: a.runId, batch: String(b.batchId) }, "none"], // a batch of another run
      [{ batch: "999999" }, "none"],
      [{ run: rescored.runId, basis: "now" }, "some"],
      [{ basis: "now" }, "all"],
      [{ basis: "reviewed", run: rescored.runId }, "some"],
      [{ annotator }, "some"],
      [{ annotator: "nobody@example.org" }, "none"],
      [{ from: lastDay }, "some"],
      [{ to: firstDay }, "some"],
      [{ from: firstDay, to: firstDay }, "some"],
      [{ category }, "some"],
      [{ category: "cancel_order" }, "some"],
      [{ category: "cancel_order", run: a.runId }, "none"],
      [{ run: a.runId, category, annotator, from: firstDay }, "some"],
      [{ guardrail: "empty_promise", tolerance: "0.2" }, "all"], // not filters of the load
    ];
    const all = (await same(filter({}))).length;
    for (const [c, selects] of cases) {
      const items = await same(filter(c));
      const n = items.length;
      expect(selects === "none" ? n === 0 : selects === "all" ? n === all : n > 0 && n < all, JSON.stringify(c)).toBe(
        true,
      );
      if (c.annotator === annotator)
        expect(items.every((i) => i.reviews.every((r) => r.reviewerEmail === annotator))).toBe(true);
    }
  });

  it("reads the now basis from the re-scored entries", async () => {
    const now = await same(filter({ run: rescored.runId, basis: "now" }));
    const reviewed = await same(filter({ run: rescored.runId }));
    expect(now.map((i) => i.ledger.ledgerId)).not.toEqual(reviewed.map((i) => i.ledger.ledgerId));
    expect(now.map((i) => i.ledger.ledgerId)).toEqual(now.map((i) => i.bases!.now!.ledgerId));
  });
});
