import type { ActivityLogQuery } from "@/lib/admin/schema.ts";
import { db } from "@/lib/db/client.ts";
import type { Prisma, PrismaClient } from "@/lib/generated/prisma/client.ts";

export async function listUsers() {
  return db().user.findMany({
    orderBy: { email: "asc" },
    select: {
      id: true,
      email: true,
      name: true,
      role: true,
      disabledAt: true,
      createdAt: true,
      // Their unrevoked API tokens: disabling or re-roling the user changes what these may do.
      tokens: { where: { revokedAt: null }, orderBy: { id: "asc" }, select: { name: true, prefix: true } },
    },
  });
}

/**
 * Every API token (revoked ones too) with its owner's email, role and whether they are disabled (what the token may
 * do now depends on them): the admin page's order, newest first, or the CLI's, by id.
 */
export async function listApiTokens(order: "newest" | "id" = "newest", client: PrismaClient = db()) {
  return client.apiToken.findMany({
    orderBy: order === "newest" ? { createdAt: "desc" } : { id: "asc" },
    select: {
      id: true,
      name: true,
      prefix: true,
      scopes: true,
      createdAt: true,
      lastUsedAt: true,
      revokedAt: true,
      createdBy: { select: { email: true, role: true, disabledAt: true } },
    },
  });
}

export type ActivityLogPage = {
  entries: {
    id: bigint;
    at: Date;
    actorId: number | null;
    actorLabel: string;
    action: string;
    targetType: string;
    targetId: string;
    details: Prisma.JsonValue;
  }[];
  /** Pass as `before` for the next (older) page; null on the last page. */
  nextBefore: bigint | null;
};

const DAY_MS = 86_400_000;

/**
 * Activity-log entries, newest first, paged by id. `actor` is a user's email (matched by actor_id, indexed) or, when no
 * user has it, an actor label such as "cli", "token:<name>" or the email of a failed sign-in.
 */
export async function listActivityLog(
  q: Partial<ActivityLogQuery> & { limit?: number } = {},
): Promise<ActivityLogPage> {
  const limit = q.limit ?? 50;
  const where: Prisma.ActivityLogWhereInput = {};
  if (q.before) where.id = { lt: q.before };
  if (q.action) where.action = q.action;
  if (q.actor) {
    const u = await db().user.findUnique({ where: { email: q.actor }, select: { id: true } });
    if (u) where.actorId = u.id;
    else where.actorLabel = q.actor;
  }
  if (q.from || q.to) {
    where.at = {
      ...(q.from ? { gte: new Date(`${q.from}T00:00:00Z`) } : {}),
      ...(q.to ? { lt: new Date(Date.parse(`${q.to}T00:00:00Z`) + DAY_MS) } : {}),
    };
  }
  const rows = await db().activityLog.findMany({ where, orderBy: { id: "desc" }, take: limit + 1 });
  const more = rows.length > limit;
  const entries = more ? rows.slice(0, limit) : rows;
  return { entries, nextBefore: more ? entries[entries.length - 1].id : null };
}
