import { PrismaPg } from "@prisma/adapter-pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimNextItem, LEASE_MS, listQueueBatches, releaseLease, renewLease } from "@/lib/review/leases.ts";
import { createBatch } from "@/lib/audit/mutations.ts";
import { makeUsers, seedRun, uniqueName, fullMarksReview } from "@/lib/testing/audit-data.ts";
import { db } from "@/lib/db/client.ts";
import { PrismaClient } from "@/lib/generated/prisma/client.ts";
import { submitReview } from "@/lib/review/mutations.ts";
import type { ReviewBody } from "@/lib/review/schema.ts";

const url = process.env.DATABASE_URL!;
const ACTOR = { label: "test" };
const perfect: ReviewBody = fullMarksReview();

async function batchOf(tickets: number, overlapRate = 0): Promise<number> {
  const runId = uniqueName("lease-run");
  await db()
    .run.create({ data: { id: runId } })
    .catch(() => undefined);
  await seedRun(url, { runId, tickets });
  const r = await createBatch(
    { runId, stepFrom: 0, stepTo: 100, rate: 1, salt: "s", pick: "one", overlapRate, tolerance: 0.1 },
    ACTOR,
  );
  if (!r.ok) throw new Error(r.error);
  expect(r.items).toBe(tickets);
  return r.batchId;
}

describe("the review queue", () => {
  // 50 claims at once need 50 connections: a client of its own with a pool that large.
  let wide: PrismaClient;
  beforeAll(() => {
    wide = new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 50 }) });
  });
  afterAll(async () => wide?.$disconnect());

  it("hands 50 concurrent claims by 50 annotators 50 different items", async () => {
    const batchId = await batchOf(60);
    const users = await makeUsers(db(), 50);
    const leases = await Promise.all(users.map((u) => claimNextItem(u.userId, { batchId }, wide)));
    const ids = leases.map((l) => l?.itemId.toString());
    expect(ids.every(Boolean)).toBe(true);
    expect(new Set(ids).size).toBe(50);
    // the database agrees: 50 items leased, each to the user the claim returned
    const rows = await db().auditItem.findMany({
      where: { batchId, leaseUserId: { not: null } },
      select: { id: true, leaseUserId: true },
    });
    expect(rows).toHaveLength(50);
    const byItem = new Map(rows.map((r) => [r.id.toString(), r.leaseUserId]));
    leases.forEach((l, i) => expect(byItem.get(l!.itemId.toString())).toBe(users[i].userId));
  });

  it("never hands out one item twice when there are fewer items than claims", async () => {
    const batchId = await batchOf(20);
    const users = await makeUsers(db(), 50);
    const leases = await Promise.all(users.map((u) => claimNextItem(u.userId, { batchId }, wide)));
    const got = leases.filter((l) => l !== null).map((l) => l!.itemId.toString());
    expect(got).toHaveLength(20);
    expect(new Set(got).size).toBe(20);
  });

  it("holds one lease per annotator and batch when one annotator claims many times at once", async () => {
    for (const tickets of [10, 20, 60]) {
      const batchId = await batchOf(tickets);
      const [u] = await makeUsers(db(), 1);
      const leases = await Promise.all(Array.from({ length: 10 }, () => claimNextItem(u.userId, { batchId }, wide)));
      const ids = new Set(leases.map((l) => l?.itemId.toString()));
      expect(ids.size).toBe(1);
      expect([...ids][0]).toBeDefined();
      expect(await db().auditItem.count({ where: { batchId, leaseUserId: u.userId } })).toBe(1);
    }
  });

  it("refuses, in the database, a second open lease of one annotator in one batch", async () => {
    const batchId = await batchOf(3);
    const [u] = await makeUsers(db(), 1);
    const first = await claimNextItem(u.userId, { batchId });
    const other = await db().auditItem.findFirstOrThrow({ where: { batchId, id: { not: first!.itemId } } });
    await expect(
      db()
        .$executeRaw`update audit_items set lease_user_id = ${u.userId}, lease_expires_at = now() + interval '1 minute'
                        where id = ${other.id}`,
    ).rejects.toThrow(/audit_items_one_lease_idx/);
  });

  it("resumes the user's own live lease instead of taking a second item", async () => {
    const batchId = await batchOf(3);
    const [u] = await makeUsers(db(), 1);
    const a = await claimNextItem(u.userId, { batchId });
    const b = await claimNextItem(u.userId, { batchId });
    expect(b?.itemId).toBe(a?.itemId);
  });

  it("returns an expired lease to the queue; the late holder can no longer renew or submit", async () => {
    const batchId = await batchOf(1);
    const [a, b] = await makeUsers(db(), 2);
    const t0 = new Date();
    const first = await claimNextItem(a.userId, { batchId, now: t0 });
    expect(first).not.toBeNull();
    expect(first!.leaseExpiresAt.getTime()).toBe(t0.getTime() + LEASE_MS);
    // 5 minutes later the lease is live: nothing for b
    expect(await claimNextItem(b.userId, { batchId, now: new Date(t0.getTime() + 5 * 60_000) })).toBeNull();
    // a's activity renews it: at minute 12 it is still a's
    expect(await renewLease(first!.itemId, a.userId, new Date(t0.getTime() + 6 * 60_000))).not.toBeNull();
    expect(await claimNextItem(b.userId, { batchId, now: new Date(t0.getTime() + 12 * 60_000) })).toBeNull();
    // no activity for more than 10 minutes after the renewal: the item goes to b
    const later = await claimNextItem(b.userId, { batchId, now: new Date(t0.getTime() + 17 * 60_000) });
    expect(later?.itemId).toBe(first!.itemId);
    expect(await renewLease(first!.itemId, a.userId, new Date(t0.getTime() + 18 * 60_000))).toBeNull();
    const late = await submitReview(first!.itemId, a, perfect, 30);
    expect(late).toMatchObject({ ok: false, code: "lease_lost" });
    expect(await submitReview(first!.itemId, b, perfect, 30)).toMatchObject({ ok: true });
  });

  it("re-takes the user's own expired lease when nobody claimed the item meanwhile", async () => {
    const batchId = await batchOf(1);
    const [a] = await makeUsers(db(), 1);
    const t0 = new Date();
    const l = await claimNextItem(a.userId, { batchId, now: t0 });
    expect(await renewLease(l!.itemId, a.userId, new Date(t0.getTime() + 30 * 60_000))).not.toBeNull();
  });

  it("skip releases the item at once and offers it to the same person only when nothing else is left", async () => {
    const batchId = await batchOf(2);
    const [a, b] = await makeUsers(db(), 2);
    const first = await claimNextItem(a.userId, { batchId });
    expect(await releaseLease(first!.itemId, a.userId, { skip: true })).toBe(true);
    const second = await claimNextItem(a.userId, { batchId });
    expect(second?.itemId).not.toBe(first!.itemId);
    // the skipped item is free for someone else right away
    expect((await claimNextItem(b.userId, { batchId }))?.itemId).toBe(first!.itemId);
    await releaseLease(first!.itemId, b.userId);
    await submitReview(second!.itemId, a, perfect, 10);
    // nothing else left for a: the skipped item comes back
    expect((await claimNextItem(a.userId, { batchId }))?.itemId).toBe(first!.itemId);
  });

  it("sends an overlap item to two different annotators and never twice to the same one", async () => {
    const batchId = await batchOf(1, 1);
    const item = await db().auditItem.findFirstOrThrow({ where: { batchId } });
    expect(item.reviewsNeeded).toBe(2);
    const [a, b, c] = await makeUsers(db(), 3);
    const la = await claimNextItem(a.userId, { batchId });
    expect(la?.itemId).toBe(item.id);
    // while a holds it, b gets nothing
    expect(await claimNextItem(b.userId, { batchId })).toBeNull();
    expect(await submitReview(item.id, a, perfect, 12)).toMatchObject({ ok: true });
    // open again (1 of 2 reviews), but not for a
    expect(await claimNextItem(a.userId, { batchId })).toBeNull();
    expect((await listQueueBatches(a.userId)).find((q) => q.batchId === batchId)).toBeUndefined();
    expect((await listQueueBatches(b.userId)).find((q) => q.batchId === batchId)).toMatchObject({
      available: 1,
      mine: null,
    });
    const lb = await claimNextItem(b.userId, { batchId });
    expect(lb?.itemId).toBe(item.id);
    // a second submission by a is refused even with the item open
    expect(await submitReview(item.id, a, perfect, 12)).toMatchObject({ ok: false, code: "reviewed" });
    expect(await submitReview(item.id, b, perfect, 12)).toMatchObject({ ok: true });
    const done = await db().auditItem.findUniqueOrThrow({ where: { id: item.id } });
    expect(done).toMatchObject({ status: "done", reviewsDone: 2, leaseUserId: null });
    expect(await claimNextItem(c.userId, { batchId })).toBeNull();
    const reviewers = await db().review.findMany({ where: { itemId: item.id }, select: { reviewerId: true } });
    expect(reviewers.map((r) => r.reviewerId).sort()).toEqual([a.userId, b.userId].sort());
  });
});
