// The activity log: who did what, when, to what. Append-only (a trigger refuses UPDATE and DELETE on activity_log).
// Other domains log through appendActivityLog too (reviews, adjudications, batches), inside their own transaction.
import type pg from "pg";
import { db, type Db } from "@/lib/db/client.ts";
import type { Prisma } from "@/lib/generated/prisma/client.ts";

/** The actions this module's callers record. Other domains may add their own dotted names (e.g. "review.submit"). */
export const ACTIVITY_ACTIONS = [
  "auth.sign_in",
  "auth.sign_in_failed",
  "auth.sign_out",
  "user.create",
  "user.role_change",
  "user.disable",
  "user.enable",
  "user.password_reset",
  "token.create",
  "token.revoke",
  "config.create",
  "config.set_default",
  "ingest.api",
  "ingest.cli",
  "import.jsonl",
  "import.tau2",
] as const;
export type ActivityAction = (typeof ACTIVITY_ACTIONS)[number];

/** A signed-in user, an API token, or a named non-human actor such as "cli" or "system". */
export type ActivityActor = { userId: number; email: string } | { tokenId: number; name: string } | { label: string };

export type ActivityEntryInput = {
  actor: ActivityActor;
  action: ActivityAction | (string & {});
  target?: { type: string; id: string | number | bigint };
  details?: Prisma.InputJsonObject;
};

function actorColumns(actor: ActivityActor): { actorId: number | null; actorLabel: string } {
  if ("userId" in actor) return { actorId: actor.userId, actorLabel: actor.email };
  if ("tokenId" in actor) return { actorId: null, actorLabel: `token:${actor.name}` };
  return { actorId: null, actorLabel: actor.label };
}

/** Appends one entry. Pass the transaction client to make the entry part of the change it records. */
export async function appendActivityLog(entry: ActivityEntryInput, client: Db = db()): Promise<void> {
  await client.activityLog.create({
    data: {
      ...actorColumns(entry.actor),
      action: entry.action,
      targetType: entry.target?.type ?? "",
      targetId: entry.target ? String(entry.target.id) : "",
      details: entry.details ?? {},
    },
  });
}

/**
 * Appends one entry through a pg pool or connection: the bulk paths (ingest, imports) hold a pg pool, not a Prisma
 * client. Same columns as appendActivityLog.
 */
export async function appendActivityLogSql(client: pg.Pool | pg.PoolClient, entry: ActivityEntryInput): Promise<void> {
  const { actorId, actorLabel } = actorColumns(entry.actor);
  await client.query(
    `insert into activity_log (actor_id, actor_label, action, target_type, target_id, details)
     values ($1::int, $2, $3, $4, $5, $6::jsonb)`,
    [
      actorId,
      actorLabel,
      entry.action,
      entry.target?.type ?? "",
      entry.target ? String(entry.target.id) : "",
      JSON.stringify(entry.details ?? {}),
    ],
  );
}
