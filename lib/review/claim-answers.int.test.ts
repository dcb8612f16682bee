// The server refuses a review whose claims are not all answered, naming them, and stores nothing; answered yes or
// no, the same review is stored, and the reveal counts only real differences.
import { describe, expect, it } from "vitest";
import { claimNextItem } from "@/lib/review/leases.ts";
import { createBatch } from "@/lib/audit/mutations.ts";
import { db } from "@/lib/db/client.ts";
import { loadClaimSlots, loadAnnotation } from "@/lib/review/loaders.ts";
import { submitAnsweredReview } from "@/lib/review/mutations.ts";
import type { ReviewBody } from "@/lib/review/schema.ts";
import { makeUsers, seedRun, uniqueName, fullMarksReview, refundClaims } from "@/lib/testing/audit-data.ts";

const url = process.env.DATABASE_URL!;

const body: ReviewBody = fullMarksReview({ claims: refundClaims(59.99) });

async function leasedItem() {
  const runId = uniqueName("answers-run");
  await seedRun(url, { runId, tickets: 1, variant: () => "honest" });
  const b = await createBatch(
    { runId, stepFrom: 0, stepTo: 100, rate: 1, salt: "x", pick: "one", overlapRate: 0, tolerance: 0.1 },
    { label: "test" },
  );
  if (!b.ok) throw new Error(b.error);
  const [a] = await makeUsers(db(), 1);
  const lease = await claimNextItem(a.userId, { batchId: b.batchId });
  return { a, itemId: lease!.itemId };
}

describe("submitAnsweredReview", () => {
  it("reads the same claim slots the annotation form shows", async () => {
    const { a, itemId } = await leasedItem();
    const page = await loadAnnotation(itemId, a.userId);
    if (page.state !== "annotate") throw new Error(page.state);
    expect(await loadClaimSlots(itemId)).toEqual({
      writeTools: page.view.writeTools,
      mentionKeys: page.view.mentions.map((m) => m.key),
      forbidden: page.view.forbidden,
    });
  });

  it("refuses a review with unanswered claims, naming each, and stores nothing", async () => {
    const { a, itemId } = await leasedItem();
    const slots = (await loadClaimSlots(itemId))!;
    const others = slots.writeTools.filter((t) => t !== "finance.issue_refund");
    expect(others.length).toBeGreaterThan(0);
    const r = await submitAnsweredReview(itemId, a, { body, denied: [], secondsSpent: 20 });
    expect(r).toMatchObject({ ok: false, code: "unanswered" });
    if (r.ok) return;
    for (const t of others) expect(r.error).toContain(`${t} (write)`);
    expect(r.error).not.toContain("finance.issue_refund");
    expect(await db().review.count({ where: { itemId } })).toBe(0);
    const item = await db().auditItem.findUniqueOrThrow({ where: { id: itemId } });
    expect(item).toMatchObject({ status: "open", leaseUserId: a.userId });
  });

  it("stores the review once every claim is answered yes or no; the answered noes do not count as differences", async () => {
    const { a, itemId } = await leasedItem();
    const slots = (await loadClaimSlots(itemId))!;
    const denied = [
      ...slots.writeTools.filter((t) => t !== "finance.issue_refund").map((t) => `write:${t}`),
      ...slots.mentionKeys.filter((k) => k !== "refund_amount").map((k) => `mention:${k}`),
      ...slots.forbidden.map((c) => `forbidden:${c}`),
    ];
    const r = await submitAnsweredReview(itemId, a, { body, denied, secondsSpent: 20 });
    expect(r).toMatchObject({ ok: true, disagrees: false });
    const stored = await db().review.findFirstOrThrow({ where: { itemId } });
    expect(stored.claims).toEqual(body.claims);
  });
});
