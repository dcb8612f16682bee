import { describe, expect, it } from "vitest";
import {
  listAnnotatorProgress,
  listBatchSummaries,
  listRunWindows,
  loadPopulation,
  previewBatch,
} from "@/lib/audit/data.ts";
import { claimNextItem } from "@/lib/review/leases.ts";
import { createBatch } from "@/lib/audit/mutations.ts";
import { makeUsers, seedRun, uniqueName, fullMarksReview } from "@/lib/testing/audit-data.ts";
import { db } from "@/lib/db/client.ts";
import { submitReview } from "@/lib/review/mutations.ts";

const url = process.env.DATABASE_URL!;
const ACTOR = { label: "test" };

describe("creating a batch", () => {
  it("stores the previewed sample with its manifest, stratified inclusion probabilities and overlap, and logs it", async () => {
    const runId = uniqueName("batch-run");
    // 120 tickets × 2 rollouts: every 10th ticket's rollouts are empty promises, the rest honest.
    await seedRun(url, {
      runId,
      tickets: 120,
      perTicket: 2,
      variant: (i) => (i % 10 === 0 ? "empty_promise" : "honest"),
    });
    const pop = await loadPopulation(runId, 0, 100);
    expect(pop.rows).toHaveLength(240);
    expect(pop.excluded).toBe(0);
    expect(await loadPopulation(runId, 11, 100)).toEqual({ rows: [], excluded: 0 });

    const params = {
      runId,
      stepFrom: 0,
      stepTo: 100,
      rate: 0.05,
      salt: "fixed-salt",
      pick: "one" as const,
      minPerStratum: 6,
      overlapRate: 0.5,
      tolerance: 0.1,
    };
    const preview = await previewBatch(params);
    expect(preview.population).toEqual({ tickets: 120, rollouts: 240, excluded: 0 });
    const ep = preview.sample.strata.find((s) => s.stratum === "empty_promise")!;
    expect(ep).toMatchObject({ tickets: 12, sampledTickets: 6, toppedUp: true, ticketInclusionProb: 0.5 });

    const r = await createBatch(params, ACTOR);
    if (!r.ok) throw new Error(r.error);
    expect(r.items).toBe(preview.sample.items.length);
    const batch = await db().auditBatch.findUniqueOrThrow({
      where: { id: r.batchId },
      include: { items: { orderBy: { id: "asc" } } },
    });
    expect(batch).toMatchObject({
      runId,
      rate: 0.05,
      salt: "fixed-salt",
      pick: "one",
      minPerStratum: 6,
      overlapRate: 0.5,
      tolerance: 0.1,
    });
    expect(batch.items.map((i) => i.trajectoryId)).toEqual(preview.sample.items.map((i) => i.row.trajectoryId));
    const epItems = batch.items.filter((i) => i.stratum === "empty_promise");
    expect(epItems).toHaveLength(6);
    // one of two rollouts of a ticket drawn with probability 1/2: 0.5 / 2
    for (const i of epItems) expect(i.inclusionProb).toBe(0.25);
    expect(batch.items.filter((i) => i.reviewsNeeded === 2)).toHaveLength(r.overlapItems);
    // the item's ledger entry is the current one of its trajectory
    for (const i of batch.items.slice(0, 5)) {
      const l = await db().ledgerEntry.findUniqueOrThrow({ where: { runId_id: { runId: i.runId, id: i.ledgerId } } });
      expect(l).toMatchObject({ trajectoryId: i.trajectoryId, isCurrent: true });
    }
    const m = batch.manifest as Record<string, unknown>;
    expect(m).toMatchObject({
      sampler_version: "1",
      params: { run_id: runId, rate: 0.05, salt: "fixed-salt", pick: "one", min_per_stratum: 6, overlap_rate: 0.5 },
      population: { tickets: 120, rollouts: 240, excluded: 0 },
      items: r.items,
      items_hash: preview.sample.itemsHash,
    });
    expect(await db().activityLog.count({ where: { action: "audit.batch_create", targetId: String(r.batchId) } })).toBe(
      1,
    );

    // the same parameters draw the same sample again
    const again = await createBatch(params, ACTOR);
    if (!again.ok) throw new Error(again.error);
    expect((again.manifest as { items_hash: string }).items_hash).toBe(preview.sample.itemsHash);
  });

  it("refuses an unknown run, an empty window and an empty sample", async () => {
    const runId = uniqueName("batch-run");
    await seedRun(url, { runId, tickets: 3 });
    const base = {
      runId,
      stepFrom: 0,
      stepTo: 100,
      rate: 0.01,
      salt: "s",
      pick: "one" as const,
      overlapRate: 0,
      tolerance: 0.1,
    };
    expect(await createBatch({ ...base, runId: "no-such-run" }, ACTOR)).toMatchObject({ ok: false, field: "runId" });
    expect(await createBatch({ ...base, stepFrom: 500, stepTo: 600 }, ACTOR)).toMatchObject({
      ok: false,
      field: "stepTo",
    });
    // 3 tickets at 1%: the ticket ids hold the run's (random) name, so a salt under which none falls under the rate
    // is looked for (each salt gives an empty sample with probability ~0.97)
    let salt = "";
    for (let i = 0; salt === "" && i < 50; i++)
      if ((await previewBatch({ ...base, salt: `s${i}` })).sample.items.length === 0) salt = `s${i}`;
    expect(salt).not.toBe("");
    expect(await createBatch({ ...base, salt }, ACTOR)).toMatchObject({ ok: false, field: "rate" });
    expect(await db().auditBatch.count({ where: { runId } })).toBe(0);
  });

  it("reports progress per batch and per annotator", async () => {
    const runId = uniqueName("batch-run");
    await seedRun(url, { runId, tickets: 4, variant: (i) => (i === 0 ? "empty_promise" : "honest") });
    const r = await createBatch(
      { runId, stepFrom: 0, stepTo: 100, rate: 1, salt: "p", pick: "one", overlapRate: 0, tolerance: 0.1 },
      ACTOR,
    );
    if (!r.ok) throw new Error(r.error);
    const [a, b] = await makeUsers(db(), 2);
    const reviewed: bigint[] = [];
    for (let i = 0; i < 3; i++) {
      const l = await claimNextItem(a.userId, { batchId: r.batchId });
      const res = await submitReview(
        l!.itemId,
        a,
        fullMarksReview({ claims: { claimed_writes: [], mentioned: [], forbidden_hits: [] } }),
        20 + i,
      );
      expect(res.ok).toBe(true);
      reviewed.push(l!.itemId);
    }
    await claimNextItem(b.userId, { batchId: r.batchId });
    const summary = (await listBatchSummaries()).find((s) => s.id === r.batchId)!;
    expect(summary).toMatchObject({ items: 4, done: 3, reviews: 3, reviewsNeeded: 4, leasedNow: 1, overlapItems: 0 });
    // a perfect score on the empty-promise rollout (if it was among the three) disputes it
    const capped = await db().auditItem.count({
      where: { id: { in: reviewed }, ledger: { decidingGuardrail: "empty_promise" } },
    });
    expect(summary.disputed).toBe(capped);
    const progress = (await listAnnotatorProgress())
      .filter((p) => p.batchId === r.batchId)
      .sort((x, y) => x.userId - y.userId);
    expect(progress).toEqual([
      expect.objectContaining({ userId: a.userId, reviews: 3, leasedNow: 0, medianSeconds: 21 }),
      expect.objectContaining({ userId: b.userId, reviews: 0, leasedNow: 1, medianSeconds: null }),
    ]);
    const windows = await listRunWindows();
    expect(windows.find((w) => w.id === runId)).toEqual({ id: runId, firstStep: 10, lastStep: 10 });
    // read a run per statement, the same windows in the same order
    expect(windows.length).toBeGreaterThan(1);
    expect(await listRunWindows(db(), 1)).toEqual(windows);
  });
});
