// The ledger "as it is now" for audit items: the current entry of each item's rollout (after any re-score), beside
// the entry the item recorded when it was sampled. What defect verification and the agreement report's `now`
// basis compare the reviews with.
import { db, type Db } from "@/lib/db/client.ts";
import { ledgerOrder } from "@/lib/ledger/order.ts";
import {
  compare,
  CURRENT_REVIEW,
  ledgerSelect,
  reviewSelect,
  toHumanSide,
  toLedgerSide,
  type LedgerSide,
} from "@/lib/review/data.ts";

/**
 * The current ledger entry of each item's rollout, keyed by item id; an item whose rollout has no current entry
 * (none can be missing once scored: a re-score supersedes, it never removes) is absent. One query per run.
 *
 * The entries are found by the items' trajectory ids, through the partition's (trajectory_id) index, and then matched
 * on the rollout: no index leads with rollout_id (only the hand-offs' partial one), so a lookup by rollout id alone
 * read the whole run's partition — the agreement report's cost grew with the ledger instead of with the audit.
 */
export async function currentLedgerOfItems(
  items: readonly { itemId: bigint; runId: string; rolloutId: bigint; trajectoryId: string }[],
  client: Db = db(),
): Promise<Map<bigint, LedgerSide>> {
  const byRun = new Map<string, { itemId: bigint; rolloutId: bigint; trajectoryId: string }[]>();
  for (const i of items) {
    const list = byRun.get(i.runId);
    if (list) list.push(i);
    else byRun.set(i.runId, [i]);
  }
  const out = new Map<bigint, LedgerSide>();
  for (const [runId, list] of byRun) {
    const rows = await client.ledgerEntry.findMany({
      where: {
        runId,
        isCurrent: true,
        trajectoryId: { in: [...new Set(list.map((i) => i.trajectoryId))] },
        rolloutId: { in: [...new Set(list.map((i) => i.rolloutId))] },
      },
      select: { ...ledgerSelect, rolloutId: true },
    });
    const ofRollout = new Map(rows.map((r) => [r.rolloutId, r]));
    for (const i of list) {
      const row = ofRollout.get(i.rolloutId);
      if (row) out.set(i.itemId, toLedgerSide(row));
    }
  }
  return out;
}

export type ItemNow = {
  itemId: bigint;
  /** The rollout's current entry, null when it has none. */
  ledgerId: bigint | null;
  /** The current entry is not the one the item recorded: the rollout was re-scored since it was sampled. */
  rescored: boolean;
  /**
   * Every current review of the item agrees with the current entry (the adjudication rule, batch tolerance). For a
   * pair: it has a counted judgement and none of them prefers the rollout the current entries reward lower (a
   * ledger tie or a human tie does not oppose the human).
   */
  agrees: boolean;
};

/**
 * For each item: was it re-scored since sampling, and do its current reviews agree with the ledger now? A pair item
 * is re-scored when either of its rollouts is, and is judged by its pair judgements (ordering), not by reviews.
 */
export async function itemsAgreeNow(itemIds: readonly bigint[], client: Db = db()): Promise<ItemNow[]> {
  if (itemIds.length === 0) return [];
  const items = await client.auditItem.findMany({
    where: { id: { in: [...itemIds] } },
    orderBy: { id: "asc" },
    select: {
      id: true,
      runId: true,
      rolloutId: true,
      trajectoryId: true,
      ledgerId: true,
      rolloutBId: true,
      trajectoryBId: true,
      ledgerBId: true,
      batch: { select: { tolerance: true } },
      reviews: { where: CURRENT_REVIEW, orderBy: { id: "asc" }, select: reviewSelect },
      pairReviews: {
        where: { supersededBy: { is: null }, excludedReason: null },
        select: { preferredTrajectoryId: true },
      },
    },
  });
  const pairs = items.filter((i) => i.rolloutBId !== null);
  const [now, nowB] = await Promise.all([
    currentLedgerOfItems(
      items.map((i) => ({ itemId: i.id, runId: i.runId, rolloutId: i.rolloutId, trajectoryId: i.trajectoryId })),
      client,
    ),
    currentLedgerOfItems(
      pairs.map((i) => ({ itemId: i.id, runId: i.runId, rolloutId: i.rolloutBId!, trajectoryId: i.trajectoryBId! })),
      client,
    ),
  ]);
  return items.map((i) => {
    const ledger = now.get(i.id) ?? null;
    if (i.rolloutBId !== null) {
      const b = nowB.get(i.id) ?? null;
      return {
        itemId: i.id,
        ledgerId: ledger?.ledgerId ?? null,
        rescored: !!ledger && !!b && (ledger.ledgerId !== i.ledgerId || b.ledgerId !== i.ledgerBId),
        agrees:
          !!ledger &&
          !!b &&
          i.pairReviews.length > 0 &&
          i.pairReviews.every(
            (p) =>
              ledgerOrder(
                { trajectoryId: i.trajectoryId, reward: ledger.reward },
                { trajectoryId: i.trajectoryBId!, reward: b.reward },
                p.preferredTrajectoryId,
              ).verdict !== "inversion",
          ),
      };
    }
    return {
      itemId: i.id,
      ledgerId: ledger?.ledgerId ?? null,
      rescored: !!ledger && ledger.ledgerId !== i.ledgerId,
      agrees:
        !!ledger &&
        i.reviews.length > 0 &&
        i.reviews.every((r) => !compare(toHumanSide(r), ledger, i.batch.tolerance).disagrees),
    };
  });
}
