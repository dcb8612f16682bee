import { describe, expect, it } from "vitest";
import { loadAgreementItems } from "@/lib/agreement/data.ts";
import { buildAgreementReport, reportJson } from "@/lib/agreement/report.ts";
import { agreementFilterSchema } from "@/lib/agreement/schema.ts";
import { changeRole } from "@/lib/admin/mutations.ts";
import { claimNextItem } from "@/lib/review/leases.ts";
import { createBatch } from "@/lib/audit/mutations.ts";
import { db } from "@/lib/db/client.ts";
import { listAuditPairs } from "@/lib/monitors/data.ts";
import { submitReview } from "@/lib/review/mutations.ts";
import type { ReviewBody } from "@/lib/review/schema.ts";
import { makeUsers, seedRun, uniqueName, fullMarksReview } from "@/lib/testing/audit-data.ts";

// A review counts toward agreement only if its author could not have seen the rollout's ledger numbers before
// submitting (lib/review/blind.ts). Reviews go through the real queue and submit path; the reason is stored with
// the review, the report leaves it out of every figure and lists it apart.
const url = process.env.DATABASE_URL!;
const perfect: ReviewBody = fullMarksReview();

async function newBatch(runId: string) {
  const r = await createBatch(
    { runId, stepFrom: 0, stepTo: 100, rate: 1, salt: "blind", pick: "one", overlapRate: 0, tolerance: 0.1 },
    { label: "test" },
  );
  if (!r.ok) throw new Error(r.error);
  return r.batchId;
}

async function review(user: { userId: number; email: string }, batchId: number, body = perfect) {
  const lease = await claimNextItem(user.userId, { batchId });
  if (!lease) throw new Error("nothing to review");
  const r = await submitReview(lease.itemId, user, body, 30);
  if (!r.ok) throw new Error(r.error);
  return { ...r, itemId: lease.itemId };
}

const report = async (batchId: number) => {
  const f = agreementFilterSchema.parse({ batch: String(batchId) });
  return reportJson(buildAgreementReport(await loadAgreementItems(f), f)) as Record<string, unknown>;
};

async function adminUser() {
  const email = `${uniqueName("admin")}@test.local`;
  const u = await db().user.create({ data: { email, role: "admin" }, select: { id: true } });
  return { userId: u.id, email };
}

describe("blind reviews", () => {
  it("records an admin's review as not counting, with its reason, and leaves the report's figures as the annotators' alone", async () => {
    const runId = uniqueName("blind-run");
    await seedRun(url, { runId, tickets: 3 });
    const batchId = await newBatch(runId);
    const [ann] = await makeUsers(db(), 1);
    await review(ann, batchId);
    await review(ann, batchId, { ...perfect, subscores: { ...perfect.subscores, outcome: 0 } });
    const before = await report(batchId);
    expect(before.items).toBe(2);
    expect(before.excluded).toEqual([]);

    const admin = await adminUser();
    const a = await review(admin, batchId);
    expect(a.excludedReason).toBe("author's role (admin) can read the ledger");
    const stored = await db().review.findUniqueOrThrow({ where: { id: a.reviewId } });
    expect(stored.excludedReason).toBe("author's role (admin) can read the ledger");
    // it does not complete the item: the item still waits for a counted review
    expect(await db().auditItem.findUniqueOrThrow({ where: { id: a.itemId } })).toMatchObject({
      status: "open",
      reviewsDone: 0,
    });
    const log = await db().activityLog.findFirstOrThrow({
      where: { action: "review.submit", targetId: a.itemId.toString() },
    });
    expect(log.details).toMatchObject({ excluded_reason: "author's role (admin) can read the ledger" });

    const after = await report(batchId);
    expect(after.excluded).toEqual([
      expect.objectContaining({
        itemId: a.itemId.toString(),
        reviewId: a.reviewId.toString(),
        reviewerEmail: admin.email,
        reason: "author's role (admin) can read the ledger",
      }),
    ]);
    // every figure is what the annotator's reviews alone give
    expect({ ...after, excluded: [] }).toEqual(before);
    // and the monitors' shadow-audit series reads the same two reviews
    expect((await listAuditPairs(runId)).map((p) => p.itemId)).not.toContain(a.itemId);
    expect(await listAuditPairs(runId)).toHaveLength(2);

    // an annotator's review of the item the admin reviewed counts
    const [ann2] = await makeUsers(db(), 1);
    const c = await review(ann2, batchId);
    expect(c).toMatchObject({ itemId: a.itemId, excludedReason: null });
    expect((await report(batchId)).items).toBe(3);
  });

  it("does not count an annotator who held a role that can read the ledger, nor one who saw the rollout's reveal", async () => {
    const runId = uniqueName("blind-run");
    await seedRun(url, { runId, tickets: 1 });
    const [former] = await makeUsers(db(), 1, "lead");
    expect(await changeRole(former.userId, "annotator", { label: "test" })).toEqual({ ok: true, tokens: [] });
    const first = await newBatch(runId);
    expect((await review(former, first)).excludedReason).toBe(
      "author held the role lead, which can read the ledger, before submitting",
    );

    // the same rollout sampled again in a second batch: its first reviewer saw its ledger numbers on the reveal
    const [ann] = await makeUsers(db(), 1);
    const blind = await review(ann, first);
    expect(blind.excludedReason).toBeNull();
    const second = await newBatch(runId);
    const again = await review(ann, second);
    expect(again.excludedReason).toBe(
      `author saw this rollout's ledger numbers after reviewing it in audit item ${blind.itemId}`,
    );
    expect((await report(first)).items).toBe(1);
    expect((await report(second)).items).toBe(0);
    expect(((await report(second)).excluded as unknown[]).length).toBe(1);
  });
});
