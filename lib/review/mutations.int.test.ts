import { describe, expect, it } from "vitest";
import { recordAdjudication } from "@/lib/audit/adjudication-mutations.ts";
import { listAdjudications, listDisputes, loadDispute, tallyAdjudications } from "@/lib/audit/adjudication-data.ts";
import { claimNextItem } from "@/lib/review/leases.ts";
import { createBatch } from "@/lib/audit/mutations.ts";
import {
  makeUsers,
  seedRun,
  uniqueName,
  type Variant,
  fullMarksReview,
  refundClaims,
} from "@/lib/testing/audit-data.ts";
import { db } from "@/lib/db/client.ts";
import { listOverlapItems, listReviewsWithLedger, loadReveal } from "@/lib/review/data.ts";
import { loadAnnotation } from "@/lib/review/loaders.ts";
import { saveDraft, submitReview } from "@/lib/review/mutations.ts";
import { emptyDraft, type ReviewBody } from "@/lib/review/schema.ts";

const url = process.env.DATABASE_URL!;

const body = (over: Partial<ReviewBody> = {}): ReviewBody => fullMarksReview({ claims: refundClaims(59.99), ...over });

async function batch(variant: Variant, tickets = 1, overlapRate = 0) {
  const runId = uniqueName("review-run");
  await seedRun(url, { runId, tickets, variant: () => variant });
  const r = await createBatch(
    { runId, stepFrom: 0, stepTo: 100, rate: 1, salt: "x", pick: "one", overlapRate, tolerance: 0.1 },
    { label: "test" },
  );
  if (!r.ok) throw new Error(r.error);
  return r.batchId;
}

describe("submitting a review", () => {
  it("stores the server-computed reward, closes the item, clears the draft and logs it; agreeing items stay out of adjudication", async () => {
    const batchId = await batch("honest");
    const [a] = await makeUsers(db(), 1);
    const lease = await claimNextItem(a.userId, { batchId });
    const draft = { ...emptyDraft(), note: "half done" };
    expect(await saveDraft(lease!.itemId, a.userId, draft, 40)).toMatchObject({ ok: true });
    expect(await db().reviewDraft.count({ where: { itemId: lease!.itemId } })).toBe(1);

    const r = await submitReview(lease!.itemId, a, body({ note: "fine" }), 55);
    expect(r).toMatchObject({ ok: true, reward: 1, disagrees: false });
    const item = await db().auditItem.findUniqueOrThrow({ where: { id: lease!.itemId } });
    expect(item).toMatchObject({ status: "done", reviewsDone: 1, disputedAt: null, leaseUserId: null });
    expect(await db().reviewDraft.count({ where: { itemId: lease!.itemId } })).toBe(0);
    const log = await db().activityLog.findFirstOrThrow({
      where: { action: "review.submit", targetId: lease!.itemId.toString() },
    });
    expect(log).toMatchObject({
      actorId: a.userId,
      targetType: "audit_item",
      details: { reward: 1, seconds_spent: 55, disagrees: false },
    });
    expect(await listDisputes({ pending: true, batchId })).toEqual([]);
    // the draft autosave is refused once the item is no longer the user's
    expect(await saveDraft(lease!.itemId, a.userId, draft, 41)).toMatchObject({ ok: false, code: "lease_lost" });
  });

  it("puts a disagreeing review in the adjudication queue; a lead's verdict leaves it, is tallied and logged", async () => {
    const batchId = await batch("empty_promise");
    const [a] = await makeUsers(db(), 1);
    const [lead] = await makeUsers(db(), 1, "lead");
    const lease = await claimNextItem(a.userId, { batchId });
    // The ledger caps the empty promise at 0.35 (reward 0.45·0 + 0.2·1 + 0.2·1 + 0.1·1 + 0.05·… ≤ 0.35).
    // The annotator misses it and scores a perfect rollout: reward 1, no guardrail.
    const r = await submitReview(lease!.itemId, a, body(), 60);
    expect(r).toMatchObject({ ok: true, reward: 1, disagrees: true });
    const item = await db().auditItem.findUniqueOrThrow({ where: { id: lease!.itemId } });
    expect(item.disputedAt).not.toBeNull();

    const pending = await listDisputes({ pending: true, batchId });
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({
      itemId: lease!.itemId,
      decidingGuardrail: "empty_promise",
      humanRewards: [1],
      cause: null,
    });
    expect(pending[0].ledgerReward).toBeLessThanOrEqual(0.35);

    const reveal = await loadReveal(lease!.itemId, a.userId);
    expect(reveal?.comparison).toMatchObject({
      disagrees: true,
      guardrailsDiffer: true,
      guardrails: { onlyLedger: ["empty_promise"], onlyHuman: [] },
    });
    expect(reveal?.ledger.claimsSource).toBe("bundle");
    expect(await loadReveal(lease!.itemId, lead.userId)).toBeNull();

    const v1 = await recordAdjudication(
      { itemId: lease!.itemId, cause: "annotator_wrong", guardrail: "empty_promise", note: "missed it" },
      lead,
    );
    expect(v1).toMatchObject({ ok: true, supersedesId: null });
    expect(await listDisputes({ pending: true, batchId })).toEqual([]);
    expect(await listDisputes({ pending: false, batchId })).toMatchObject([
      { itemId: lease!.itemId, cause: "annotator_wrong", guardrail: "empty_promise" },
    ]);
    // a revised verdict supersedes the first; the tally counts only the current one
    const v2 = await recordAdjudication(
      { itemId: lease!.itemId, cause: "ambiguous", guardrail: "empty_promise", note: "on reflection" },
      lead,
    );
    expect(v2.ok && v2.supersedesId).toBe(v1.ok && v1.adjudicationId);
    const tally = await tallyAdjudications({ batchId });
    expect(tally).toMatchObject({ total: 1, pending: 0, byCause: { ambiguous: 1, annotator_wrong: 0 } });
    expect(tally.byGuardrail).toEqual([
      {
        guardrail: "empty_promise",
        total: 1,
        byCause: { spec_wrong: 0, extraction_wrong: 0, verifier_rule_wrong: 0, annotator_wrong: 0, ambiguous: 1 },
      },
    ]);
    expect((await loadDispute(lease!.itemId))?.adjudications.map((x) => x.cause)).toEqual([
      "ambiguous",
      "annotator_wrong",
    ]);
    expect((await listAdjudications({ batchId })).map((x) => x.cause)).toEqual(["ambiguous"]);
    const logs = await db().activityLog.count({
      where: { action: "adjudication.record", targetId: lease!.itemId.toString() },
    });
    expect(logs).toBe(2);
  });

  it("keeps reviews and adjudications append-only", async () => {
    const batchId = await batch("empty_promise");
    const [a] = await makeUsers(db(), 1);
    const [lead] = await makeUsers(db(), 1, "lead");
    const lease = await claimNextItem(a.userId, { batchId });
    const r = await submitReview(lease!.itemId, a, body(), 5);
    if (!r.ok) throw new Error(r.error);
    await expect(db().review.update({ where: { id: r.reviewId }, data: { reward: 0.3 } })).rejects.toThrow(
      /append-only/,
    );
    await expect(db().review.delete({ where: { id: r.reviewId } })).rejects.toThrow(/append-only/);
    const v = await recordAdjudication({ itemId: lease!.itemId, cause: "spec_wrong", note: "" }, lead);
    if (!v.ok) throw new Error(v.error);
    await expect(
      db().adjudication.update({ where: { id: v.adjudicationId }, data: { cause: "ambiguous" } }),
    ).rejects.toThrow(/append-only/);
    await expect(db().adjudication.delete({ where: { id: v.adjudicationId } })).rejects.toThrow(/append-only/);
  });

  it("refuses an adjudication of an item nobody reviewed", async () => {
    const batchId = await batch("honest");
    const [lead] = await makeUsers(db(), 1, "lead");
    const item = await db().auditItem.findFirstOrThrow({ where: { batchId } });
    expect(await recordAdjudication({ itemId: item.id, cause: "ambiguous", note: "" }, lead)).toMatchObject({
      ok: false,
    });
  });
});

describe("the blind loader and the reads for agreement", () => {
  it("gives the annotator the rollout and case but nothing of the ledger", async () => {
    const batchId = await batch("empty_promise");
    const [a, b] = await makeUsers(db(), 2);
    const lease = await claimNextItem(a.userId, { batchId });
    const page = await loadAnnotation(lease!.itemId, a.userId);
    expect(page.state).toBe("annotate");
    const text = JSON.stringify(page);
    const ledger = await db().ledgerEntry.findFirstOrThrow({
      where: { trajectoryId: (await db().auditItem.findUniqueOrThrow({ where: { id: lease!.itemId } })).trajectoryId },
    });
    for (const marker of [
      "required_write_missing",
      "claims_source",
      "bundle",
      "inclusion",
      "stratum",
      "reasons",
      "reward",
    ])
      expect(text).not.toContain(marker);
    // The reasons' messages are free text that appears nowhere in a rollout or case.
    for (const reason of ledger.reasons as { message: string }[]) expect(text).not.toContain(reason.message);
    expect((ledger.reasons as unknown[]).length).toBeGreaterThan(0);
    if (page.state === "annotate") {
      expect(page.view.writeTools).toContain("finance.issue_refund");
      expect(page.view.mentions.map((m) => m.key)).toEqual(["refund_amount", "refund_eta"]);
      expect(page.view.forbidden).toEqual(["blame_customer"]);
    }
    // someone who does not hold the item gets no view at all
    expect(await loadAnnotation(lease!.itemId, b.userId)).toEqual({ state: "not_leased" });
  });

  it("lists current reviews joined to ledger values, and overlap items with two reviewers", async () => {
    const batchId = await batch("honest", 2, 1);
    const [a, b] = await makeUsers(db(), 2);
    for (const u of [a, b]) {
      for (let i = 0; i < 2; i++) {
        const l = await claimNextItem(u.userId, { batchId });
        const r = await submitReview(
          l!.itemId,
          u,
          body({ subscores: { outcome: 1, policy: 1, evidence: 1, efficiency: u === a ? 1 : 0, communication: 1 } }),
          9,
        );
        expect(r.ok).toBe(true);
      }
    }
    const rows = await listReviewsWithLedger({ batchId });
    expect(rows).toHaveLength(4);
    for (const row of rows) {
      expect(row.ledger.reward).toBe(1);
      expect(row.item.batchId).toBe(batchId);
      expect(row.comparison.rewardDelta).toBeCloseTo(row.review.reviewerId === a.userId ? 0 : -0.1, 9);
      expect(row.comparison.disagrees).toBe(false);
    }
    expect(
      (await listReviewsWithLedger({ batchId, afterReviewId: rows[1].review.reviewId })).map((r) => r.review.reviewId),
    ).toEqual([rows[2].review.reviewId, rows[3].review.reviewId]);
    const overlap = await listOverlapItems({ batchId });
    expect(overlap).toHaveLength(2);
    for (const o of overlap) expect(o.reviews.map((r) => r.reviewerId).sort()).toEqual([a.userId, b.userId].sort());
  });
});
