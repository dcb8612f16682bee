// What submitting a ticket review and judging a pair share, inside the submitting transaction: the audit item locked
// (two submissions serialise; SKIP LOCKED claims pass it by) and checked — it exists, the author has not reviewed it,
// it is still open and its lease is the author's — and, once the review is stored, the item's counts after it.
import type { Db } from "@/lib/db/client.ts";
import { Prisma } from "@/lib/generated/prisma/client.ts";

export type LockedItem = {
  status: string;
  lease_user_id: number | null;
  reviews_done: number;
  reviews_needed: number;
  disputed_at: Date | null;
};

/** A refused submission (a Result of lib/review/mutations.ts). */
type Refused = { ok: false; error: string; code: "not_found" | "reviewed" | "done" | "lease_lost" };

/** A ticket review ("review") or a pairwise judgement ("pair"): which table and which words. */
export type SubmissionKind = "review" | "pair";

const WORDS = {
  review: { noun: "item", reviewed: "reviewed", all: "reviews" },
  pair: { noun: "pair", reviewed: "judged", all: "judgements" },
} as const;

/** Why a submission is refused when the lease is no longer the author's. */
export function leaseLostMessage(kind: SubmissionKind): string {
  return `This ${WORDS[kind].noun} is no longer leased to you (the lease expired and it went back to the queue).`;
}

/** Locks the item for a submission by `userId` and checks it; the locked row, or the refusal. */
export async function lockForSubmission(
  tx: Db,
  kind: SubmissionKind,
  itemId: bigint,
  userId: number,
): Promise<{ ok: true; locked: LockedItem } | Refused> {
  const w = WORDS[kind];
  const pairOnly = kind === "pair" ? Prisma.sql`and rollout_b_id is not null` : Prisma.empty;
  const [locked] = await tx.$queryRaw<LockedItem[]>`
    select status::text as status, lease_user_id, reviews_done, reviews_needed, disputed_at
      from audit_items where id = ${itemId} ${pairOnly} for update`;
  if (!locked) return { ok: false, code: "not_found", error: `No such ${w.noun}.` };
  const where = { where: { itemId, reviewerId: userId }, select: { id: true } };
  const mine = kind === "pair" ? await tx.pairReview.findFirst(where) : await tx.review.findFirst(where);
  if (mine) return { ok: false, code: "reviewed", error: `You have already ${w.reviewed} this ${w.noun}.` };
  if (locked.status !== "open")
    return { ok: false, code: "done", error: `This ${w.noun} already has all its ${w.all}.` };
  if (locked.lease_user_id !== userId) return { ok: false, code: "lease_lost", error: leaseLostMessage(kind) };
  return { ok: true, locked };
}

/**
 * The item after a stored submission: one more review done when it counts (not excluded), done when it has all it
 * needs, the lease released, and disputed from now when the submission disputes the ledger — the first dispute time
 * stays: a second disagreeing review must not move the item down the queue.
 */
export async function closeSubmission(
  tx: Db,
  itemId: bigint,
  locked: LockedItem,
  outcome: { counts: boolean; disputes: boolean; now: Date },
): Promise<void> {
  const reviewsDone = locked.reviews_done + (outcome.counts ? 1 : 0);
  await tx.auditItem.update({
    where: { id: itemId },
    data: {
      reviewsDone,
      status: reviewsDone >= locked.reviews_needed ? "done" : "open",
      leaseUserId: null,
      leaseExpiresAt: null,
      ...(outcome.disputes && !locked.disputed_at ? { disputedAt: outcome.now } : {}),
    },
  });
}
