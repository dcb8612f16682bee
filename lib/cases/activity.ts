// The activity-log entry of a case revision or re-score, written on the revision's own pg connection so that it
// commits with the change it records (lib/auth/activity-log.ts writes the same table through Prisma).
import type pg from "pg";

/** A signed-in user (the label is their email, read with the entry) or a named non-human actor ("cli"). */
export type SqlActor = { userId: number } | { label: string };

export async function appendActivitySql(
  client: pg.PoolClient,
  entry: { actor: SqlActor; action: string; target: { type: string; id: string }; details: Record<string, unknown> },
): Promise<void> {
  const userId = "userId" in entry.actor ? entry.actor.userId : null;
  const label = "label" in entry.actor ? entry.actor.label : null;
  await client.query(
    `insert into activity_log (actor_id, actor_label, action, target_type, target_id, details)
     select $1::int, coalesce($2::text, (select email from users where id = $1::int), 'unknown'), $3, $4, $5, $6::jsonb`,
    [userId, label, entry.action, entry.target.type, entry.target.id, JSON.stringify(entry.details)],
  );
}
