// Writes of the annotation flow: the draft autosave (which renews the lease) and the submission of a review.
// Reviews are append-only (a database trigger refuses UPDATE and DELETE) and every submission is in the activity log.
import { renewLease } from "@/lib/review/leases.ts";
import { appendActivityLog } from "@/lib/auth/activity-log.ts";
import { db, type Db } from "@/lib/db/client.ts";
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";
import { codesOfMask } from "@/lib/verifier/guardrail-mask.ts";
import { compareWithLedger, subscoresOf } from "@/lib/review/compare.ts";
import { exclusionReason } from "@/lib/review/blind.ts";
import { unansweredClaims, unansweredMessage } from "@/lib/review/claim-answers.ts";
import { humanReward } from "@/lib/review/human-reward.ts";
import { loadClaimSlots, scoringConfigOf } from "@/lib/review/loaders.ts";
import type { DraftBody, ReviewBody } from "@/lib/review/schema.ts";
import { closeSubmission, leaseLostMessage, lockForSubmission } from "@/lib/review/submission.ts";
import type { Claims } from "@/lib/verifier/schema.ts";
import type { Result } from "@/lib/result.ts";

/** A refused review write: the message, and what refused it (the form explains a lost lease differently). */
export type ReviewFailure = {
  error: string;
  code?: "lease_lost" | "reviewed" | "done" | "not_found" | "unanswered";
};

const LEASE_LOST = `${leaseLostMessage("review")} Your draft was not saved.`;

/** Saves the form as it is and renews the lease: typing is activity. Refused once the item is not the user's. */
export async function saveDraft(
  itemId: bigint,
  userId: number,
  body: DraftBody,
  secondsSpent: number,
  now = new Date(),
  client: Db = db(),
): Promise<Result<{ leaseExpiresAt: Date }, ReviewFailure>> {
  const expires = await renewLease(itemId, userId, now, client);
  if (!expires) return { ok: false, code: "lease_lost", error: LEASE_LOST };
  await client.reviewDraft.upsert({
    where: { itemId_userId: { itemId, userId } },
    create: { itemId, userId, body, secondsSpent, updatedAt: now },
    update: { body, secondsSpent, updatedAt: now },
  });
  return { ok: true, leaseExpiresAt: expires };
}

/**
 * Stores a review. In one transaction, with the item row locked (so two submissions on one item serialise, and the
 * queue's SKIP LOCKED claims pass it by): the user must hold the item (a live lease, or their own expired one that
 * nobody has taken since) and must not have reviewed it already. The reward is recomputed here from the sub-scores
 * and flags with the batch's config; the client's live number is never trusted. A review that disagrees with the
 * ledger entry (see compareWithLedger) marks the item disputed, which puts it in the adjudication queue.
 * Whether the review counts toward agreement is decided here too (lib/review/blind.ts) and stored with it; a review
 * that does not count is kept and shown apart with its reason, and leaves the item waiting for a counted review.
 */
export async function submitReview(
  itemId: bigint,
  actor: { userId: number; email: string },
  body: ReviewBody,
  secondsSpent: number,
  now = new Date(),
  client: PrismaClient = db(),
): Promise<
  Result<{ reviewId: bigint; reward: number; disagrees: boolean; excludedReason: string | null }, ReviewFailure>
> {
  return client.$transaction(async (tx) => {
    const lock = await lockForSubmission(tx, "review", itemId, actor.userId);
    if (!lock.ok) return lock;
    const { locked } = lock;

    const item = await tx.auditItem.findUniqueOrThrow({
      where: { id: itemId },
      select: {
        trajectoryId: true,
        batch: { select: { id: true, tolerance: true, config: { select: { body: true } } } },
        ledger: {
          select: {
            reward: true,
            guardrailMask: true,
            claims: true,
            outcome: true,
            policy: true,
            evidence: true,
            efficiency: true,
            communication: true,
          },
        },
      },
    });
    const config = scoringConfigOf(item.batch.config?.body ?? null);
    const human = humanReward(body.subscores, body.guardrails, config);
    const l = item.ledger;
    const comparison = compareWithLedger(
      { reward: human.reward, subscores: body.subscores, guardrails: body.guardrails, claims: body.claims },
      {
        reward: l.reward,
        subscores: subscoresOf(l),
        guardrails: codesOfMask(l.guardrailMask),
        claims: (l.claims as Claims | null) ?? null,
      },
      item.batch.tolerance,
    );

    const excludedReason = await exclusionReason(tx, {
      userId: actor.userId,
      itemId,
      trajectoryId: item.trajectoryId,
    });
    const review = await tx.review.create({
      data: {
        itemId,
        reviewerId: actor.userId,
        excludedReason,
        ...body.subscores,
        guardrails: body.guardrails,
        reward: human.reward,
        claims: body.claims,
        note: body.note,
        secondsSpent,
        createdAt: now,
      },
      select: { id: true },
    });
    await closeSubmission(tx, itemId, locked, { counts: excludedReason === null, disputes: comparison.disagrees, now });
    await tx.reviewDraft.deleteMany({ where: { itemId, userId: actor.userId } });
    await appendActivityLog(
      {
        actor,
        action: "review.submit",
        target: { type: "audit_item", id: itemId },
        details: {
          review_id: review.id.toString(),
          batch_id: item.batch.id,
          trajectory_id: item.trajectoryId,
          reward: human.reward,
          guardrails: body.guardrails,
          seconds_spent: secondsSpent,
          disagrees: comparison.disagrees,
          excluded_reason: excludedReason,
        },
      },
      tx,
    );
    return { ok: true, reviewId: review.id, reward: human.reward, disagrees: comparison.disagrees, excludedReason };
  });
}

/**
 * A submission from the annotation form: every claim slot of the item's form must be answered — claimed in the
 * review's claims, or listed in `denied` — or nothing is stored and the answer names the unanswered slots
 * (lib/review/claim-answers.ts). An unanswered slot would otherwise be stored as "not claimed" and counted as an
 * extraction disagreement. Then as submitReview.
 */
export async function submitAnsweredReview(
  itemId: bigint,
  actor: { userId: number; email: string },
  answer: { body: ReviewBody; denied: readonly string[]; secondsSpent: number },
  client: PrismaClient = db(),
): ReturnType<typeof submitReview> {
  const slots = await loadClaimSlots(itemId, client);
  if (!slots) return { ok: false, code: "not_found", error: "No such item." };
  const missing = unansweredClaims(slots, answer.body.claims, answer.denied);
  if (missing.length) return { ok: false, code: "unanswered", error: unansweredMessage(missing) };
  return submitReview(itemId, actor, answer.body, answer.secondsSpent, new Date(), client);
}
