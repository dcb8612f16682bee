// Whether a review is blind: it counts toward agreement only if its author could not have seen that rollout's
// ledger numbers before submitting it. The server cannot know what a person saw elsewhere, but it knows what it
// let them see, so a review is excluded, with the first reason that applies, when its author
//   1. has a role that can read the ledger (lib/auth/policy.ts, "ledger.read") when submitting;
//   2. held such a role before, by the activity log's record of roles (user.create, user.role_change);
//   3. already reviewed the same rollout in another audit item, ticket or pair: the reveal after that submission
//      showed its ledger numbers (a pair's reveal shows both rollouts').
// Anything else the server served is behind "ledger.read", so an author none of these apply to was never shown the
// rollout's numbers by Verity. Decided once, in the submitting transaction, and stored with the review
// (reviews.excluded_reason); docs/audit.md says the same for people.
import type { Db } from "@/lib/db/client.ts";
import { can, isRole } from "@/lib/auth/policy.ts";

/** The reason a review by `userId` of `trajectoryId` (audit item `itemId`) does not count, or null when it counts. */
export async function exclusionReason(
  client: Db,
  review: { userId: number; itemId: bigint; trajectoryId: string },
): Promise<string | null> {
  const [row] = await client.$queryRaw<{ role: string; held: string[]; seen_in: bigint | null }[]>`
    select u.role::text as role,
           array(select x.role
                   from activity_log a,
                        lateral (values (a.details->>'role'), (a.details->>'from'), (a.details->>'to')) as x(role)
                  where a.action in ('user.create', 'user.role_change') and a.target_type = 'user'
                    and a.target_id = ${String(review.userId)} and x.role is not null
                  order by a.id desc) as held,
           coalesce(
             (select r.item_id from reviews r join audit_items i on i.id = r.item_id
               where r.reviewer_id = u.id and i.trajectory_id = ${review.trajectoryId} and r.item_id <> ${review.itemId}
               order by r.id limit 1),
             (select r.item_id from pair_reviews r join audit_items i on i.id = r.item_id
               where r.reviewer_id = u.id and r.item_id <> ${review.itemId}
                 and (i.trajectory_id = ${review.trajectoryId} or i.trajectory_b_id = ${review.trajectoryId})
               order by r.id limit 1)) as seen_in
      from users u where u.id = ${review.userId}`;
  if (!row) return null;
  if (isRole(row.role) && can(row.role, "ledger.read")) return `author's role (${row.role}) can read the ledger`;
  const held = row.held.find((r) => isRole(r) && can(r, "ledger.read"));
  if (held) return `author held the role ${held}, which can read the ledger, before submitting`;
  if (row.seen_in !== null)
    return `author saw this rollout's ledger numbers after reviewing it in audit item ${row.seen_in}`;
  return null;
}
