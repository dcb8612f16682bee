import { describe, expect, it } from "vitest";
import { claimNextItem } from "@/lib/review/leases.ts";
import { loadAdjudicationPage, parseDisputeKey } from "@/lib/audit/loaders.ts";
import { createBatch } from "@/lib/audit/mutations.ts";
import { db } from "@/lib/db/client.ts";
import { submitReview } from "@/lib/review/mutations.ts";
import type { ReviewBody } from "@/lib/review/schema.ts";
import { makeUsers, seedRun, uniqueName, fullMarksReview } from "@/lib/testing/audit-data.ts";

const url = process.env.DATABASE_URL!;

// The annotator misses the empty promise: reward 1, no guardrail, the refund claimed.
const perfect: ReviewBody = fullMarksReview({ note: "looked fine" });

describe("loadAdjudicationPage", () => {
  it("gives the disputed item's rollout as stored, every review compared with the ledger, and the guardrail to propose", async () => {
    const runId = uniqueName("adj-run");
    await seedRun(url, { runId, tickets: 1, variant: () => "empty_promise" });
    const b = await createBatch(
      { runId, stepFrom: 0, stepTo: 100, rate: 1, salt: "adj", pick: "one", overlapRate: 0, tolerance: 0.1 },
      { label: "test" },
    );
    if (!b.ok) throw new Error(b.error);
    const [a] = await makeUsers(db(), 1);
    const lease = await claimNextItem(a.userId, { batchId: b.batchId });
    const r = await submitReview(lease!.itemId, a, perfect, 30);
    expect(r).toMatchObject({ ok: true, disagrees: true });

    const page = await loadAdjudicationPage({ item: lease!.itemId.toString() });
    const d = page.dispute!;
    const stored = await db().auditItem.findUniqueOrThrow({
      where: { id: lease!.itemId },
      select: { trajectoryId: true, rollout: { select: { steps: true, finalReply: true, sandbox: true } } },
    });
    expect(d.rollout).toMatchObject({
      trajectoryId: stored.trajectoryId,
      finalReply: stored.rollout.finalReply,
      steps: stored.rollout.steps,
      writes: [],
    });
    expect(d.rollout!.steps.map((s) => s.name)).toEqual([
      "order.get",
      "attachment.get",
      "policy.search",
      "ticket.close",
    ]);
    expect(d.rollout!.kinds["finance.issue_refund"]).toBe("write");
    expect(d.rollout!.pointers.length).toBeGreaterThan(0);
    expect(d.reviews.map((x) => x.reviewerEmail)).toEqual([a.email]);
    expect(d.comparisons).toHaveLength(1);
    expect(d.comparisons[0]).toMatchObject({ rewardDisagrees: true, guardrailsDiffer: true });
    expect(d.ledger.guardrails).toContain("empty_promise");
    expect(d.suggested).toBe("empty_promise");
    // the waiting queue is oldest first, a page at a time, and the shared database holds other disputes before it
    const waiting = page.pending.map((p) => p.itemId);
    for (let next = page.nextAfter; next && !waiting.includes(lease!.itemId);) {
      const more = await loadAdjudicationPage({ after: next });
      waiting.push(...more.pending.map((p) => p.itemId));
      next = more.nextAfter;
    }
    expect(waiting).toContain(lease!.itemId);
    expect(page.tally.pending).toBeGreaterThanOrEqual(1);
  });

  it("chooses no dispute for a missing or malformed item, and ignores a malformed page key", async () => {
    expect((await loadAdjudicationPage({ item: "999999999" })).dispute).toBeNull();
    expect((await loadAdjudicationPage({ item: "abc", after: "nonsense" })).dispute).toBeNull();
    expect(parseDisputeKey("nonsense")).toBeUndefined();
    expect(parseDisputeKey("2026-01-02T03:04:05.678Z_12")).toEqual({
      disputedAt: new Date("2026-01-02T03:04:05.678Z"),
      itemId: 12n,
    });
  });
});
