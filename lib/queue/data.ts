import { db } from "@/lib/db/client.ts";

/**
 * An annotator's queue: the open audit items leased to them. Deliberately selects no ledger numbers (reward,
 * sub-scores, guardrails): the annotator scores blind.
 */
export async function listLeasedItems(userId: number, now = new Date()) {
  return db()
    .auditItem.findMany({
      where: { leaseUserId: userId, status: "open" },
      orderBy: { id: "asc" },
      take: 200,
      select: {
        id: true,
        trajectoryId: true,
        ticketId: true,
        leaseExpiresAt: true,
        batch: { select: { name: true } },
      },
    })
    .then((rows) => rows.map((r) => ({ ...r, expired: !!r.leaseExpiresAt && r.leaseExpiresAt <= now })));
}

/** How many open items nobody holds right now, across all batches: the work waiting to be leased. */
export async function countUnleasedItems(now = new Date()): Promise<number> {
  return db().auditItem.count({
    where: { status: "open", OR: [{ leaseUserId: null }, { leaseExpiresAt: { lte: now } }] },
  });
}
