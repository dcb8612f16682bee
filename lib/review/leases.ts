// The blind-review queue: items are leased, not assigned. A lease lasts LEASE_MS unless renewed by activity (the
// draft autosave renews it); an expired lease puts the item back in the queue; skipping releases it at once.
// Nothing here reads a ledger number, and the item rows handed out carry no stratum or inclusion probability.
import { db, type Db } from "@/lib/db/client.ts";

export const LEASE_MS = 10 * 60_000;

/** A leased item; `pairwise` says which page annotates it (/review or /pairwise). */
export type Lease = { itemId: bigint; batchId: number; leaseExpiresAt: Date; pairwise: boolean };

/** The page that annotates a leased item: the ticket review, or the pairwise one. */
export function annotationPath(lease: { itemId: bigint; pairwise: boolean }): string {
  return `${lease.pairwise ? "/pairwise" : "/review"}?item=${lease.itemId}`;
}

/**
 * Leases the next item to `userId`: their own live lease if they hold one (one item at a time, resumed after a
 * reload), otherwise the first open item that nobody holds, that they have not reviewed, and (ordered last) that
 * they have not skipped. `FOR UPDATE SKIP LOCKED` makes concurrent claims pass over a row another transaction is
 * taking, and the lease condition is re-checked on the row's newest version, so one item is never handed to two
 * people. An overlap item (reviews_needed = 2) stays open after its first review and goes to someone else.
 *
 * One person holds at most one open lease per batch, by the database (audit_items_one_lease_idx, migration 034): two
 * claims of theirs at the same moment (a double click, two tabs) both find no lease and take different items, and
 * the second's update then conflicts with the first's; that claim answers with the lease the first took. Their own
 * expired leases are released first, as the index counts a lease until its row is cleared.
 */
export async function claimNextItem(
  userId: number,
  opts: { batchId?: number | null; now?: Date; leaseMs?: number } = {},
  client: Db = db(),
): Promise<Lease | null> {
  const now = opts.now ?? new Date();
  const expires = new Date(now.getTime() + (opts.leaseMs ?? LEASE_MS));
  const batchId = opts.batchId ?? null;
  await client.$executeRaw`
    update audit_items set lease_user_id = null, lease_expires_at = null
     where lease_user_id = ${userId} and lease_expires_at <= ${now} and status = 'open'
       and (${batchId}::int is null or batch_id = ${batchId}::int)`;
  try {
    return await takeNextItem(userId, batchId, now, expires, client);
  } catch (err) {
    if (!isLeaseConflict(err)) throw err;
    // A concurrent claim of the same person took an item of this batch first: theirs is the lease.
    return takeNextItem(userId, batchId, now, expires, client);
  }
}

/** A unique violation of the one-lease-per-batch index, as Prisma reports a raw query's. */
function isLeaseConflict(err: unknown): boolean {
  const e = err as { code?: string; meta?: { code?: string; message?: string }; message?: string };
  const text = `${e.meta?.message ?? ""} ${e.message ?? ""}`;
  return (e.code === "P2010" && e.meta?.code === "23505") || text.includes("audit_items_one_lease_idx");
}

/** The claim itself (see claimNextItem): the holder's live lease renewed, or the first free item leased. */
async function takeNextItem(
  userId: number,
  batchId: number | null,
  now: Date,
  expires: Date,
  client: Db,
): Promise<Lease | null> {
  const rows = await client.$queryRaw<{ id: bigint; batch_id: number; lease_expires_at: Date; pairwise: boolean }[]>`
    with mine as (
      select i.id from audit_items i
       where i.lease_user_id = ${userId} and i.lease_expires_at > ${now} and i.status = 'open'
         and (${batchId}::int is null or i.batch_id = ${batchId}::int)
         and not exists (select 1 from reviews r where r.item_id = i.id and r.reviewer_id = ${userId})
         and not exists (select 1 from pair_reviews r where r.item_id = i.id and r.reviewer_id = ${userId})
       order by i.id
       limit 1
    ), candidate as (
      select i.id from audit_items i
       where not exists (select 1 from mine)
         and i.status = 'open'
         and (${batchId}::int is null or i.batch_id = ${batchId}::int)
         and (i.lease_user_id is null or i.lease_expires_at <= ${now})
         and not exists (select 1 from reviews r where r.item_id = i.id and r.reviewer_id = ${userId})
         and not exists (select 1 from pair_reviews r where r.item_id = i.id and r.reviewer_id = ${userId})
       order by exists (select 1 from audit_item_skips s where s.item_id = i.id and s.user_id = ${userId}), i.batch_id, i.id
       limit 1
       for update of i skip locked
    ), chosen as (
      select id from mine union all select id from candidate
    )
    update audit_items i set lease_user_id = ${userId}, lease_expires_at = ${expires}
      from chosen where i.id = chosen.id
    returning i.id, i.batch_id, i.lease_expires_at, i.rollout_b_id is not null as pairwise`;
  const r = rows[0];
  return r
    ? { itemId: BigInt(r.id), batchId: r.batch_id, leaseExpiresAt: r.lease_expires_at, pairwise: r.pairwise }
    : null;
}

/**
 * Extends the lease on activity. Also re-takes the user's own expired lease when nobody has claimed the item since
 * (the annotator was away and nobody wanted it). Null when the item is no longer theirs: released, claimed by
 * someone else after expiry, done, or already reviewed by them. Opening an item URL never takes a free item:
 * items come from the queue, in its order.
 */
export async function renewLease(
  itemId: bigint,
  userId: number,
  now = new Date(),
  client: Db = db(),
  leaseMs = LEASE_MS,
): Promise<Date | null> {
  const expires = new Date(now.getTime() + leaseMs);
  const rows = await client.$queryRaw<{ lease_expires_at: Date }[]>`
    update audit_items set lease_expires_at = ${expires}
     where id = ${itemId} and status = 'open' and lease_user_id = ${userId}
       and not exists (select 1 from reviews r where r.item_id = ${itemId} and r.reviewer_id = ${userId})
       and not exists (select 1 from pair_reviews r where r.item_id = ${itemId} and r.reviewer_id = ${userId})
    returning lease_expires_at`;
  return rows[0]?.lease_expires_at ?? null;
}

/** Gives the item back to the queue. With `skip`, it is offered to this user again only when nothing else is left. */
export async function releaseLease(
  itemId: bigint,
  userId: number,
  opts: { skip?: boolean } = {},
  client: Db = db(),
): Promise<boolean> {
  const released = await client.auditItem.updateMany({
    where: { id: itemId, leaseUserId: userId },
    data: { leaseUserId: null, leaseExpiresAt: null },
  });
  if (opts.skip) {
    await client.auditItemSkip.upsert({
      where: { itemId_userId: { itemId, userId } },
      create: { itemId, userId },
      update: { skippedAt: new Date() },
    });
  }
  return released.count > 0;
}

export type QueueBatch = { batchId: number; name: string; available: number; mine: bigint | null; pairwise: boolean };

/**
 * The batches with work for this annotator: items they could lease now (open, not reviewed by them, not held by
 * someone else) and the item they hold, if any. Counts only: no ledger value, no stratum.
 */
export async function listQueueBatches(userId: number, now = new Date(), client: Db = db()): Promise<QueueBatch[]> {
  const rows = await client.$queryRaw<
    { batch_id: number; name: string; available: bigint; mine: bigint | null; pairwise: boolean }[]
  >`
    select b.id as batch_id, b.name, q.available, q.mine, b.kind = 'pairwise' as pairwise
      from audit_batches b
      join lateral (
        select count(*) filter (where i.lease_user_id is null or i.lease_expires_at <= ${now} or i.lease_user_id = ${userId}) as available,
               min(i.id) filter (where i.lease_user_id = ${userId} and i.lease_expires_at > ${now}) as mine
          from audit_items i
         where i.batch_id = b.id and i.status = 'open'
           and not exists (select 1 from reviews r where r.item_id = i.id and r.reviewer_id = ${userId})
         and not exists (select 1 from pair_reviews r where r.item_id = i.id and r.reviewer_id = ${userId})
      ) q on q.available > 0
     order by b.created_at, b.id`;
  return rows.map((r) => ({
    batchId: r.batch_id,
    name: r.name,
    available: Number(r.available),
    mine: r.mine === null ? null : BigInt(r.mine),
    pairwise: r.pairwise,
  }));
}
