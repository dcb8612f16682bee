// Submitting a pairwise judgement. Pair reviews are append-only (a database trigger refuses UPDATE and DELETE) and
// every submission is in the activity log, like ticket reviews (lib/review/mutations.ts).
import { appendActivityLog } from "@/lib/auth/activity-log.ts";
import { db } from "@/lib/db/client.ts";
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";
import { ledgerOrder, type LedgerOrder } from "@/lib/ledger/order.ts";
import type { PairJudgement } from "@/lib/pairwise/schema.ts";
import { exclusionReason } from "@/lib/review/blind.ts";
import type { ReviewFailure } from "@/lib/review/mutations.ts";
import type { Result } from "@/lib/result.ts";
import { closeSubmission, lockForSubmission } from "@/lib/review/submission.ts";

/**
 * Stores a judgement. In one transaction with the item row locked (two submissions serialise; SKIP LOCKED claims
 * pass it by): the user must hold the pair's lease and must not have judged it already. The side chosen is mapped
 * to the rollout shown there (the item's recorded order). A judgement preferring the rollout with the lower ledger
 * reward is an inversion: it marks the item disputed, which puts it in the adjudication queue. Whether it counts
 * is decided as for ticket reviews (lib/review/blind.ts), for each of the two rollouts.
 */
export async function submitPairReview(
  itemId: bigint,
  actor: { userId: number; email: string },
  body: PairJudgement,
  secondsSpent: number,
  now = new Date(),
  client: PrismaClient = db(),
): Promise<Result<{ reviewId: bigint; order: LedgerOrder; excludedReason: string | null }, ReviewFailure>> {
  return client.$transaction(async (tx) => {
    const lock = await lockForSubmission(tx, "pair", itemId, actor.userId);
    if (!lock.ok) return lock;
    const { locked } = lock;
    const item = await tx.auditItem.findUniqueOrThrow({
      where: { id: itemId },
      select: {
        trajectoryId: true,
        trajectoryBId: true,
        bOnLeft: true,
        batchId: true,
        ledger: { select: { reward: true } },
        ledgerB: { select: { reward: true } },
      },
    });
    const [leftId, rightId] = item.bOnLeft
      ? [item.trajectoryBId!, item.trajectoryId]
      : [item.trajectoryId, item.trajectoryBId!];
    const preferred = body.choice === "tie" ? null : body.choice === "left" ? leftId : rightId;
    const order = ledgerOrder(
      { trajectoryId: item.trajectoryId, reward: item.ledger.reward },
      { trajectoryId: item.trajectoryBId!, reward: item.ledgerB?.reward ?? null },
      preferred,
    );
    const excludedReason =
      (await exclusionReason(tx, { userId: actor.userId, itemId, trajectoryId: item.trajectoryId })) ??
      (await exclusionReason(tx, { userId: actor.userId, itemId, trajectoryId: item.trajectoryBId! }));
    const review = await tx.pairReview.create({
      data: {
        itemId,
        reviewerId: actor.userId,
        choice: body.choice,
        preferredTrajectoryId: preferred,
        reason: body.reason,
        note: body.note,
        secondsSpent,
        excludedReason,
        createdAt: now,
      },
      select: { id: true },
    });
    await closeSubmission(tx, itemId, locked, {
      counts: excludedReason === null,
      disputes: order.verdict === "inversion",
      now,
    });
    await appendActivityLog(
      {
        actor,
        action: "pair_review.submit",
        target: { type: "audit_item", id: itemId },
        details: {
          review_id: review.id.toString(),
          batch_id: item.batchId,
          choice: body.choice,
          preferred_trajectory_id: preferred,
          reason: body.reason,
          seconds_spent: secondsSpent,
          verdict: order.verdict,
          excluded_reason: excludedReason,
        },
      },
      tx,
    );
    return { ok: true, reviewId: review.id, order, excludedReason };
  });
}
