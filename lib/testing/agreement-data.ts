// A stratified shadow audit with two annotators, overlap items and adjudications, built through the real batch,
// queue, review and adjudication paths: the fixture of the agreement report's integration tests.
import { recordAdjudication } from "@/lib/audit/adjudication-mutations.ts";
import { claimNextItem } from "@/lib/review/leases.ts";
import { createBatch } from "@/lib/audit/mutations.ts";
import { makeUsers, seedRun, type Variant } from "@/lib/testing/audit-data.ts";
import { db } from "@/lib/db/client.ts";
import { submitReview } from "@/lib/review/mutations.ts";
import type { ReviewBody } from "@/lib/review/schema.ts";

const REFUND = "finance.issue_refund";
const body = (v: number, guardrails: ReviewBody["guardrails"], claimed: string[]): ReviewBody => ({
  subscores: {
    outcome: v,
    policy: Math.min(1, v + 0.25),
    evidence: v,
    efficiency: 1,
    communication: v === 1 ? 1 : 0.5,
  },
  guardrails,
  claims: { claimed_writes: claimed, mentioned: [], forbidden_hits: [] },
  note: "",
});

/**
 * 60 tickets: every 6th an empty promise, every 6th + 3 refunds before reading, the rest honest. The batch samples
 * 30% of tickets and tops each guardrail stratum up to 8, so inclusion probabilities differ, and half the items
 * need two reviews. Annotator A scores by the variant with a few slips; B agrees with A except on some
 * missing-evidence and honest items. Every third disputed item is adjudicated, the causes in turn. The sample
 * hashes ticket ids, so a fixed `runId` (one per test file; each test run has a fresh database) fixes the sample.
 */
export async function seedAgreementAudit(
  url: string,
  runId: string,
): Promise<{ runId: string; batchId: number; annotators: string[] }> {
  await db()
    .run.create({ data: { id: runId } })
    .catch(() => undefined);
  const variant = (t: number): Variant => (t % 6 === 0 ? "empty_promise" : t % 6 === 3 ? "missing_evidence" : "honest");
  await seedRun(url, { runId, tickets: 60, variant });
  const b = await createBatch(
    {
      runId,
      stepFrom: 0,
      stepTo: 100,
      rate: 0.3,
      salt: "agree-full",
      pick: "one",
      minPerStratum: 8,
      overlapRate: 0.5,
      tolerance: 0.1,
    },
    { label: "test" },
  );
  if (!b.ok) throw new Error(b.error);
  const [a, bb] = await makeUsers(db(), 2);
  const [lead] = await makeUsers(db(), 1, "lead");

  const judge = (who: 0 | 1, t: number): ReviewBody => {
    const v = variant(t);
    if (v === "empty_promise") return body(0.2, ["empty_promise"], who === 0 || t % 12 !== 0 ? [] : [REFUND]);
    if (v === "missing_evidence")
      return who === 0
        ? body(1, [], [REFUND])
        : t % 12 === 3
          ? body(0.55, ["missing_evidence"], [REFUND])
          : body(1, [], []);
    if (t % 7 === 0) return body(who === 0 ? 0.4 : 0.5, who === 0 ? ["policy_error"] : [], [REFUND]);
    return body(1, [], [REFUND]);
  };
  const DAY = 86_400_000;
  for (let round = 0; round < 500; round++) {
    let progressed = false;
    for (const [who, user] of [
      [0, a],
      [1, bb],
    ] as const) {
      const lease = await claimNextItem(user.userId, { batchId: b.batchId });
      if (!lease) continue;
      progressed = true;
      const { ticketId } = await db().auditItem.findUniqueOrThrow({
        where: { id: lease.itemId },
        select: { ticketId: true },
      });
      const t = Number(ticketId.split("/T")[1]);
      // submitted over three days, so the trend has points
      const r = await submitReview(lease.itemId, user, judge(who, t), 30, new Date(Date.now() - (t % 3) * DAY));
      if (!r.ok) throw new Error(r.error);
    }
    if (!progressed) break;
  }

  const disputed = await db().auditItem.findMany({
    where: { batchId: b.batchId, disputedAt: { not: null } },
    orderBy: { id: "asc" },
    select: { id: true },
  });
  const causes = ["verifier_rule_wrong", "annotator_wrong", "extraction_wrong", "spec_wrong"] as const;
  for (const [j, d] of disputed.entries()) {
    if (j % 3 !== 0) continue;
    const cause = causes[(j / 3) % causes.length];
    const r = await recordAdjudication(
      { itemId: d.id, cause, guardrail: cause === "verifier_rule_wrong" ? "missing_evidence" : undefined, note: "" },
      lead,
    );
    if (!r.ok) throw new Error(r.error);
  }
  return { runId, batchId: b.batchId, annotators: [a.email, bb.email] };
}
