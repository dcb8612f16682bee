import { PrismaPg } from "@prisma/adapter-pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimNextItem } from "@/lib/review/leases.ts";
import { previewPairBatch } from "@/lib/audit/pair-data.ts";
import { createPairBatch } from "@/lib/audit/pair-mutations.ts";
import type { ResolvedBatchParams } from "@/lib/audit/schema.ts";
import { db } from "@/lib/db/client.ts";
import { PrismaClient } from "@/lib/generated/prisma/client.ts";
import { makeUsers, seedRun, uniqueName } from "@/lib/testing/audit-data.ts";

const url = process.env.DATABASE_URL!;
const ACTOR = { label: "test" };

/** A run of `tickets` GRPO groups of two: k0 honest (reward 1), k1 an empty promise (capped): every pair is clear. */
async function pairRun(tickets: number): Promise<ResolvedBatchParams> {
  const runId = uniqueName("pair-run");
  await seedRun(url, { runId, tickets, perTicket: 2, variant: (_t, k) => (k === 0 ? "honest" : "empty_promise") });
  return {
    runId,
    stepFrom: 0,
    stepTo: 100,
    rate: 1,
    salt: "pair-salt",
    pick: "one",
    overlapRate: 0.2,
    tolerance: 0.1,
    kind: "pairwise",
    delta: 0.1,
    nearTieRate: 0.2,
  };
}

describe("pairwise batches", () => {
  let wide: PrismaClient;
  beforeAll(() => {
    wide = new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 50 }) });
  });
  afterAll(async () => wide?.$disconnect());

  it("stores the previewed pairs: both rollouts of one group, their entries, the side and the probability", async () => {
    const params = await pairRun(40);
    const preview = await previewPairBatch(params);
    expect(preview.population).toMatchObject({ groups: 40, tickets: 40, rollouts: 80, excluded: 0 });
    const r = await createPairBatch(params, ACTOR);
    if (!r.ok) throw new Error(r.error);
    expect(r.items).toBe(40);
    expect(r.manifest).toMatchObject({ kind: "pairwise", items: 40, items_hash: preview.sample.itemsHash });
    const batch = await db().auditBatch.findUniqueOrThrow({ where: { id: r.batchId } });
    expect(batch).toMatchObject({ kind: "pairwise", delta: 0.1, nearTieRate: 0.2, pick: "pair" });
    const items = await db().auditItem.findMany({
      where: { batchId: r.batchId },
      include: { ledger: true, ledgerB: true },
      orderBy: { id: "asc" },
    });
    expect(items).toHaveLength(40);
    const sides = new Set<boolean>();
    for (const i of items) {
      expect(i.trajectoryBId).not.toBeNull();
      expect(i.ledger.trajectoryId).toBe(i.trajectoryId);
      expect(i.ledgerB!.trajectoryId).toBe(i.trajectoryBId);
      expect(i.ledgerB!.groupId).toBe(i.ledger.groupId);
      expect(i.ledgerB!.step).toBe(i.ledger.step);
      expect(i.trajectoryId < i.trajectoryBId!).toBe(true);
      // One clear pair per group of two: P(pair | group) = 1, so the probability is the rate.
      expect(i.inclusionProb).toBe(1);
      expect(i.stratum).toBe("empty_promise+none");
      sides.add(i.bOnLeft!);
    }
    expect(sides).toEqual(new Set([true, false]));
    const byTrajectory = new Map(preview.sample.pairs.map((p) => [p.a.trajectoryId, p]));
    for (const i of items) expect(i.bOnLeft).toBe(byTrajectory.get(i.trajectoryId)!.bOnLeft);
  });

  it("hands 50 concurrent claims by 50 annotators 50 different pairs", async () => {
    const r = await createPairBatch(await pairRun(60), ACTOR);
    if (!r.ok) throw new Error(r.error);
    const users = await makeUsers(db(), 50);
    const leases = await Promise.all(users.map((u) => claimNextItem(u.userId, { batchId: r.batchId }, wide)));
    const ids = leases.map((l) => l?.itemId.toString());
    expect(ids.every(Boolean)).toBe(true);
    expect(new Set(ids).size).toBe(50);
    expect(leases.every((l) => l!.pairwise)).toBe(true);
    const rows = await db().auditItem.findMany({
      where: { batchId: r.batchId, leaseUserId: { not: null } },
      select: { id: true, leaseUserId: true },
    });
    expect(rows).toHaveLength(50);
    const byItem = new Map(rows.map((x) => [x.id.toString(), x.leaseUserId]));
    leases.forEach((l, i) => expect(byItem.get(l!.itemId.toString())).toBe(users[i].userId));
  });

  it("never hands out one pair twice when 50 claims race for 20 pairs", async () => {
    const r = await createPairBatch({ ...(await pairRun(20)), overlapRate: 0 }, ACTOR);
    if (!r.ok) throw new Error(r.error);
    const users = await makeUsers(db(), 50);
    const leases = await Promise.all(users.map((u) => claimNextItem(u.userId, { batchId: r.batchId }, wide)));
    const got = leases.filter(Boolean).map((l) => l!.itemId.toString());
    expect(got).toHaveLength(20);
    expect(new Set(got).size).toBe(20);
  });

  it("refuses an empty sample and says why", async () => {
    const runId = uniqueName("pair-single");
    await seedRun(url, { runId, tickets: 3, perTicket: 1 });
    const r = await createPairBatch({ ...(await pairRun(1)), runId }, ACTOR);
    expect(r).toMatchObject({ ok: false, field: "stepTo" });
    expect(!r.ok && r.error).toMatch(/no GRPO group with two scored rollouts/);
  });
});
