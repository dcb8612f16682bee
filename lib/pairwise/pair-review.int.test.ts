import { describe, expect, it } from "vitest";
import { claimNextItem } from "@/lib/review/leases.ts";
import { createBatch } from "@/lib/audit/mutations.ts";
import { createPairBatch } from "@/lib/audit/pair-mutations.ts";
import { db } from "@/lib/db/client.ts";
import { loadPairReveal } from "@/lib/pairwise/data.ts";
import { loadPairAnnotation } from "@/lib/pairwise/loaders.ts";
import { submitPairReview } from "@/lib/pairwise/mutations.ts";
import { submitReview } from "@/lib/review/mutations.ts";
import { makeUsers, seedRun, uniqueName, fullMarksReview } from "@/lib/testing/audit-data.ts";

const url = process.env.DATABASE_URL!;
const ACTOR = { label: "test" };

/** A pairwise batch over groups of two: k0 honest (reward 1), k1 an empty promise (capped low). */
async function pairBatch(tickets: number) {
  const runId = uniqueName("pair-review");
  await seedRun(url, { runId, tickets, perTicket: 2, variant: (_t, k) => (k === 0 ? "honest" : "empty_promise") });
  const r = await createPairBatch(
    {
      runId,
      stepFrom: 0,
      stepTo: 100,
      rate: 1,
      salt: "pr",
      pick: "one",
      overlapRate: 0,
      tolerance: 0.1,
      kind: "pairwise",
    },
    ACTOR,
  );
  if (!r.ok) throw new Error(r.error);
  return { runId, batchId: r.batchId };
}

async function leased(batchId: number, userId: number) {
  const lease = await claimNextItem(userId, { batchId });
  if (!lease) throw new Error("nothing to judge");
  const item = await db().auditItem.findUniqueOrThrow({
    where: { id: lease.itemId },
    include: { ledger: true, ledgerB: true },
  });
  const honestLeft = item.bOnLeft
    ? item.ledgerB!.reward! > item.ledger.reward!
    : item.ledger.reward! > item.ledgerB!.reward!;
  return { item, itemId: lease.itemId, honestSide: honestLeft ? ("left" as const) : ("right" as const) };
}

describe("pairwise judgements", () => {
  it("gives the annotator both rollouts and the case, in the recorded order, and nothing of the ledger", async () => {
    const { batchId } = await pairBatch(2);
    const [a, b] = await makeUsers(db(), 2);
    const { item, itemId } = await leased(batchId, a.userId);
    const page = await loadPairAnnotation(itemId, a.userId);
    if (page.state !== "annotate") throw new Error(page.state);
    const [left, right] = item.bOnLeft
      ? [item.trajectoryBId, item.trajectoryId]
      : [item.trajectoryId, item.trajectoryBId];
    expect([page.view.left.trajectoryId, page.view.right.trajectoryId]).toEqual([left, right]);
    expect(page.view.context.spec).toBeTruthy();
    const text = JSON.stringify(page);
    for (const marker of [
      "reward",
      "advantage",
      "stratum",
      "inclusion",
      "guardrail",
      "claims_source",
      "reasons",
      "empty_promise",
    ])
      expect(text).not.toContain(marker);
    for (const l of [item.ledger, item.ledgerB!])
      for (const reason of l.reasons as { message: string }[]) expect(text).not.toContain(reason.message);
    expect((item.ledgerB!.reasons as unknown[]).length + (item.ledger.reasons as unknown[]).length).toBeGreaterThan(0);
    // someone who does not hold the pair gets no view, and no reveal before judging
    expect(await loadPairAnnotation(itemId, b.userId)).toEqual({ state: "not_leased" });
    expect(await loadPairReveal(itemId, a.userId)).toBeNull();
  });

  it("maps the side to its rollout, marks an inversion disputed, and reveals both rewards and advantages", async () => {
    const { batchId } = await pairBatch(3);
    const [a] = await makeUsers(db(), 1);

    const agree = await leased(batchId, a.userId);
    const r1 = await submitPairReview(agree.itemId, a, { choice: agree.honestSide, reason: "outcome", note: "" }, 12);
    expect(r1).toMatchObject({ ok: true, excludedReason: null, order: { verdict: "agree" } });
    const honest = agree.item.ledger.reward! > agree.item.ledgerB!.reward! ? agree.item.ledger : agree.item.ledgerB!;
    const stored = await db().pairReview.findFirstOrThrow({ where: { itemId: agree.itemId } });
    expect(stored).toMatchObject({
      choice: agree.honestSide,
      preferredTrajectoryId: honest.trajectoryId,
      reason: "outcome",
    });
    expect(await db().auditItem.findUniqueOrThrow({ where: { id: agree.itemId } })).toMatchObject({
      status: "done",
      reviewsDone: 1,
      leaseUserId: null,
      disputedAt: null,
    });
    const reveal = (await loadPairReveal(agree.itemId, a.userId))!;
    expect(reveal.order).toMatchObject({ verdict: "agree", ledgerPreferred: honest.trajectoryId });
    const [hi, lo] = [honest.reward!, (honest === agree.item.ledger ? agree.item.ledgerB! : agree.item.ledger).reward!];
    expect(reveal.order.gap).toBeCloseTo(hi - lo, 12);
    const honestRevealed = agree.honestSide === "left" ? reveal.left : reveal.right;
    expect(honestRevealed.reward).toBe(hi);
    // a group of two: advantages ±gap/2, normalised ±1
    expect(honestRevealed.advantage).toBeCloseTo((hi - lo) / 2, 12);
    expect(honestRevealed.normalizedAdvantage).toBeCloseTo(1, 12);
    expect(reveal.groupSize).toBe(2);

    const inv = await leased(batchId, a.userId);
    const other = inv.honestSide === "left" ? "right" : "left";
    const r2 = await submitPairReview(inv.itemId, a, { choice: other, reason: null, note: "did more" }, 20);
    expect(r2).toMatchObject({ ok: true, order: { verdict: "inversion" } });
    expect((await db().auditItem.findUniqueOrThrow({ where: { id: inv.itemId } })).disputedAt).not.toBeNull();
    expect((await loadPairReveal(inv.itemId, a.userId))!.order.verdict).toBe("inversion");

    const tie = await leased(batchId, a.userId);
    const r3 = await submitPairReview(tie.itemId, a, { choice: "tie", reason: null, note: "" }, 5);
    expect(r3).toMatchObject({ ok: true, order: { verdict: "tie" } });
    expect(
      (await db().pairReview.findFirstOrThrow({ where: { itemId: tie.itemId } })).preferredTrajectoryId,
    ).toBeNull();

    // twice is refused; so is a pair not leased to the user
    expect(await submitPairReview(tie.itemId, a, { choice: "left", reason: null, note: "" }, 1)).toMatchObject({
      ok: false,
      code: "reviewed",
    });
    const log = await db().activityLog.findFirstOrThrow({
      where: { action: "pair_review.submit", targetId: inv.itemId.toString() },
    });
    expect(log.details).toMatchObject({ verdict: "inversion", choice: other });
    // append-only
    await expect(db().$executeRaw`update pair_reviews set choice = 'tie' where id = ${stored.id}`).rejects.toThrow(
      /append-only/,
    );
  });

  it("does not count a lead's judgement, nor a ticket review of a rollout whose pair reveal its author saw", async () => {
    const { runId, batchId } = await pairBatch(1);
    const [lead] = await makeUsers(db(), 1, "lead");
    const mine = await leased(batchId, lead.userId);
    const r = await submitPairReview(mine.itemId, lead, { choice: "tie", reason: null, note: "" }, 3);
    expect(r).toMatchObject({ ok: true, excludedReason: "author's role (lead) can read the ledger" });
    expect(await db().auditItem.findUniqueOrThrow({ where: { id: mine.itemId } })).toMatchObject({
      status: "open",
      reviewsDone: 0,
    });

    const [ann] = await makeUsers(db(), 1);
    const judged = await leased(batchId, ann.userId);
    expect((await submitPairReview(judged.itemId, ann, { choice: "left", reason: null, note: "" }, 3)).ok).toBe(true);
    // The same rollouts sampled for ticket review: the pair's reveal showed this annotator both ledger rewards.
    const t = await createBatch(
      { runId, stepFrom: 0, stepTo: 100, rate: 1, salt: "t", pick: "all", overlapRate: 0, tolerance: 0.1 },
      ACTOR,
    );
    if (!t.ok) throw new Error(t.error);
    const lease = await claimNextItem(ann.userId, { batchId: t.batchId });
    const review = await submitReview(
      lease!.itemId,
      ann,
      fullMarksReview({ claims: { claimed_writes: [], mentioned: [], forbidden_hits: [] } }),
      10,
    );
    expect(review).toMatchObject({
      ok: true,
      excludedReason: `author saw this rollout's ledger numbers after reviewing it in audit item ${judged.itemId}`,
    });
  });
});
