// Reads of submitted reviews next to the ledger entries they shadow: the reveal, the adjudication page and the
// agreement statistics. "Current" reviews are those no later review supersedes. Never call these for an annotator
// on an item they have not reviewed: they carry ledger values (the blind loader is lib/review/loaders.ts).
import { db, type Db } from "@/lib/db/client.ts";
import type { Prisma } from "@/lib/generated/prisma/client.ts";
import { codesOfMask } from "@/lib/verifier/guardrail-mask.ts";
import { compareWithLedger, subscoresOf, type Comparison } from "@/lib/review/compare.ts";
import type { Dimension, GuardrailCode } from "@/lib/verifier/codes.ts";
import type { Claims } from "@/lib/verifier/schema.ts";

export type Subscores<T = number> = Record<Dimension, T>;

export type LedgerSide = {
  ledgerId: bigint;
  status: string;
  source: string;
  reward: number | null;
  rawReward: number | null;
  subscores: Subscores<number | null>;
  guardrails: GuardrailCode[];
  decidingGuardrail: string | null;
  claims: Claims | null;
  claimsSource: string | null;
  reasons: { code: string; message?: string; dimension?: string; guardrail?: string; tool?: string; field?: string }[];
  guardrailHits: { code: string; cap: number }[];
};

export type HumanSide = {
  reviewId: bigint;
  reviewerId: number;
  reviewerEmail: string;
  reward: number;
  subscores: Subscores;
  guardrails: string[];
  claims: Claims;
  note: string;
  secondsSpent: number;
  createdAt: Date;
  /** Why the review does not count toward agreement, decided at submission (lib/review/blind.ts); null: it counts. */
  excludedReason?: string | null;
};

export type ItemHead = {
  itemId: bigint;
  batchId: number;
  runId: string;
  step: number;
  trajectoryId: string;
  ticketId: string;
  stratum: string | null;
  inclusionProb: number;
  reviewsNeeded: number;
  reviewsDone: number;
  disputedAt: Date | null;
  tolerance: number;
};

export const ledgerSelect = {
  id: true,
  status: true,
  source: true,
  reward: true,
  rawReward: true,
  outcome: true,
  policy: true,
  evidence: true,
  efficiency: true,
  communication: true,
  guardrailMask: true,
  decidingGuardrail: true,
  claims: true,
  claimsSource: true,
  reasons: true,
  guardrails: true,
  step: true,
  runId: true,
} satisfies Prisma.LedgerEntrySelect;
type LedgerRow = Prisma.LedgerEntryGetPayload<{ select: typeof ledgerSelect }>;

export const reviewSelect = {
  id: true,
  reviewerId: true,
  reviewer: { select: { email: true } },
  reward: true,
  outcome: true,
  policy: true,
  evidence: true,
  efficiency: true,
  communication: true,
  guardrails: true,
  claims: true,
  note: true,
  secondsSpent: true,
  createdAt: true,
  excludedReason: true,
} satisfies Prisma.ReviewSelect;
type ReviewRow = Prisma.ReviewGetPayload<{ select: typeof reviewSelect }>;

export const itemSelect = {
  id: true,
  batchId: true,
  trajectoryId: true,
  ticketId: true,
  stratum: true,
  inclusionProb: true,
  reviewsNeeded: true,
  reviewsDone: true,
  disputedAt: true,
  batch: { select: { tolerance: true } },
  ledger: { select: ledgerSelect },
} satisfies Prisma.AuditItemSelect;
type ItemRow = Prisma.AuditItemGetPayload<{ select: typeof itemSelect }>;

/** Reviews that no later review supersedes (a correction is a new row pointing at the one it replaces). */
export const CURRENT_REVIEW = { supersededBy: { is: null } } satisfies Prisma.ReviewWhereInput;

export function toLedgerSide(l: LedgerRow): LedgerSide {
  return {
    ledgerId: l.id,
    status: l.status,
    source: l.source,
    reward: l.reward,
    rawReward: l.rawReward,
    subscores: subscoresOf(l),
    guardrails: codesOfMask(l.guardrailMask),
    decidingGuardrail: l.decidingGuardrail,
    claims: (l.claims as Claims | null) ?? null,
    claimsSource: l.claimsSource,
    reasons: (l.reasons ?? []) as LedgerSide["reasons"],
    guardrailHits: ((l.guardrails ?? []) as { code: string; cap?: number }[]).map((g) => ({
      code: g.code,
      cap: g.cap ?? Number.NaN,
    })),
  };
}

export function toHumanSide(r: ReviewRow): HumanSide {
  return {
    reviewId: r.id,
    reviewerId: r.reviewerId,
    reviewerEmail: r.reviewer.email,
    reward: r.reward,
    subscores: subscoresOf(r),
    guardrails: r.guardrails,
    claims: r.claims as Claims,
    note: r.note,
    secondsSpent: r.secondsSpent,
    createdAt: r.createdAt,
    excludedReason: r.excludedReason,
  };
}

export function toItemHead(i: ItemRow): ItemHead {
  return {
    itemId: i.id,
    batchId: i.batchId,
    runId: i.ledger.runId,
    step: i.ledger.step,
    trajectoryId: i.trajectoryId,
    ticketId: i.ticketId,
    stratum: i.stratum,
    inclusionProb: i.inclusionProb,
    reviewsNeeded: i.reviewsNeeded,
    reviewsDone: i.reviewsDone,
    disputedAt: i.disputedAt,
    tolerance: i.batch.tolerance,
  };
}

export function compare(human: HumanSide, ledger: LedgerSide, tolerance: number): Comparison {
  return compareWithLedger(human, ledger, tolerance);
}

export type ReviewWithLedger = { item: ItemHead; review: HumanSide; ledger: LedgerSide; comparison: Comparison };

/**
 * Current reviews with the ledger entry each was compared with, oldest first, paged by review id
 * (`afterReviewId`). Filter by batch or run. The statistics in lib/stats take it from here.
 */
export async function listReviewsWithLedger(
  filter: { batchId?: number; runId?: string; afterReviewId?: bigint; limit?: number } = {},
  client: Db = db(),
): Promise<ReviewWithLedger[]> {
  const rows = await client.review.findMany({
    where: {
      ...CURRENT_REVIEW,
      ...(filter.afterReviewId !== undefined ? { id: { gt: filter.afterReviewId } } : {}),
      item: {
        ...(filter.batchId !== undefined ? { batchId: filter.batchId } : {}),
        ...(filter.runId !== undefined ? { batch: { runId: filter.runId } } : {}),
      },
    },
    orderBy: { id: "asc" },
    take: Math.min(filter.limit ?? 1000, 10_000),
    select: { ...reviewSelect, item: { select: itemSelect } },
  });
  return rows.map((r) => {
    const item = toItemHead(r.item);
    const review = toHumanSide(r);
    const ledger = toLedgerSide(r.item.ledger);
    return { item, review, ledger, comparison: compare(review, ledger, item.tolerance) };
  });
}

export type ItemWithReviews = { item: ItemHead; ledger: LedgerSide; reviews: HumanSide[] };

/** One item with its ledger entry and all its current reviews (oldest first). */
export async function loadItemReviews(itemId: bigint, client: Db = db()): Promise<ItemWithReviews | null> {
  const i = await client.auditItem.findUnique({
    where: { id: itemId },
    select: { ...itemSelect, reviews: { where: CURRENT_REVIEW, orderBy: { id: "asc" }, select: reviewSelect } },
  });
  if (!i) return null;
  return { item: toItemHead(i), ledger: toLedgerSide(i.ledger), reviews: i.reviews.map(toHumanSide) };
}

/**
 * Overlap items (reviews_needed > 1) with at least two current reviews by different people: the pairs for
 * inter-annotator agreement (kappa, alpha). Paged by item id.
 */
export async function listOverlapItems(
  filter: { batchId?: number; runId?: string; afterItemId?: bigint; limit?: number } = {},
  client: Db = db(),
): Promise<ItemWithReviews[]> {
  const rows = await client.auditItem.findMany({
    where: {
      reviewsNeeded: { gt: 1 },
      reviewsDone: { gt: 1 },
      ...(filter.batchId !== undefined ? { batchId: filter.batchId } : {}),
      ...(filter.runId !== undefined ? { batch: { runId: filter.runId } } : {}),
      ...(filter.afterItemId !== undefined ? { id: { gt: filter.afterItemId } } : {}),
    },
    orderBy: { id: "asc" },
    take: Math.min(filter.limit ?? 1000, 10_000),
    select: { ...itemSelect, reviews: { where: CURRENT_REVIEW, orderBy: { id: "asc" }, select: reviewSelect } },
  });
  return rows
    .map((i) => ({ item: toItemHead(i), ledger: toLedgerSide(i.ledger), reviews: i.reviews.map(toHumanSide) }))
    .filter((x) => new Set(x.reviews.map((r) => r.reviewerId)).size > 1);
}

export type Reveal = {
  item: ItemHead;
  ledger: LedgerSide;
  mine: HumanSide;
  comparison: Comparison;
  finalReply: string;
  writes: string[];
};

/** The reveal after submitting: the user's own current review against the ledger. Null unless they reviewed it. */
export async function loadReveal(itemId: bigint, userId: number, client: Db = db()): Promise<Reveal | null> {
  const i = await client.auditItem.findUnique({
    where: { id: itemId },
    select: {
      ...itemSelect,
      rollout: { select: { finalReply: true, sandbox: true } },
      reviews: {
        where: { ...CURRENT_REVIEW, reviewerId: userId },
        orderBy: { id: "desc" },
        take: 1,
        select: reviewSelect,
      },
    },
  });
  if (!i || i.reviews.length === 0) return null;
  const item = toItemHead(i);
  const ledger = toLedgerSide(i.ledger);
  const mine = toHumanSide(i.reviews[0]);
  const writes = (((i.rollout.sandbox ?? {}) as { writes?: { tool: string }[] }).writes ?? []).map((w) => w.tool);
  return {
    item,
    ledger,
    mine,
    comparison: compare(mine, ledger, item.tolerance),
    finalReply: i.rollout.finalReply,
    writes,
  };
}

export type RecentReview = { itemId: bigint; batchName: string; ticketId: string; createdAt: Date };

/** The user's latest submissions, for the queue page's "revisit the reveal" list. Carries no numbers. */
export async function listMyRecentReviews(userId: number, limit = 10, client: Db = db()): Promise<RecentReview[]> {
  const rows = await client.review.findMany({
    where: { reviewerId: userId, ...CURRENT_REVIEW },
    orderBy: { id: "desc" },
    take: limit,
    select: { createdAt: true, item: { select: { id: true, ticketId: true, batch: { select: { name: true } } } } },
  });
  return rows.map((r) => ({
    itemId: r.item.id,
    batchName: r.item.batch.name,
    ticketId: r.item.ticketId,
    createdAt: r.createdAt,
  }));
}
