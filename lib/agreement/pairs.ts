import type { AgreementItem } from "@/lib/agreement/data.ts";

// The populations the report's figures are computed over, shared with the item lists behind them, so the count
// behind a link is the figure's n by construction.

export type PrimaryPair = {
  i: AgreementItem;
  human: AgreementItem["reviews"][number];
  ledger: AgreementItem["ledger"] & { reward: number };
};

/** Narrows to the items where the ledger or a human flagged the guardrail, when the filter names one. */
export function applyGuardrailFilter(items: AgreementItem[], guardrail?: string): AgreementItem[] {
  if (!guardrail) return items;
  return items.filter(
    (i) => i.ledger.guardrails.includes(guardrail as never) || i.reviews.some((r) => r.guardrails.includes(guardrail)),
  );
}

/** Items with at least one counted review: every figure is computed over these, never over excluded reviews. */
export function countedItems(items: AgreementItem[]): AgreementItem[] {
  return items.filter((i) => i.reviews.length > 0);
}

/** The reviews left out of every figure because their author could have seen the ledger, with the reason. */
export function excludedReviews(items: AgreementItem[]) {
  return items.flatMap((i) =>
    (i.excluded ?? []).map((r) => ({
      itemId: i.item.itemId,
      batchId: i.item.batchId,
      trajectoryId: i.item.trajectoryId,
      reviewId: r.reviewId,
      reviewerEmail: r.reviewerEmail,
      createdAt: r.createdAt,
      reward: r.reward,
      reason: r.excludedReason ?? "",
    })),
  );
}

/** The primary (first) review of each item with a ledger reward: an item never counts twice against the ledger. */
export function primaryPairs(items: AgreementItem[]): PrimaryPair[] {
  return items
    .filter((i) => i.reviews.length > 0 && i.ledger.reward !== null)
    .map((i) => ({ i, human: i.reviews[0], ledger: i.ledger as PrimaryPair["ledger"] }));
}

/** The day (UTC) a review was submitted: the trend's x axis. */
export function reviewDay(p: PrimaryPair): string {
  const day = Math.floor(p.human.createdAt.getTime() / DAY_MS);
  let name = dayNames.get(day);
  if (name === undefined) dayNames.set(day, (name = new Date(day * DAY_MS).toISOString().slice(0, 10)));
  return name;
}

// Each UTC day's name, made once (an audit's reviews fall on a few hundred days; a string per review was 5 ms of a
// report's build at 10,000 items).
const DAY_MS = 86_400_000;
const dayNames = new Map<number, string>();

/** Items with two or more distinct reviewers: the between-annotator population. */
export function overlapItems(items: AgreementItem[]): AgreementItem[] {
  return items.filter((i) => new Set(i.reviews.map((r) => r.reviewerId)).size > 1);
}
