import { db } from "@/lib/db/client.ts";

export async function listUsers() {
  return db().user.findMany({
    orderBy: { email: "asc" },
    select: { id: true, email: true, name: true, role: true, disabledAt: true, createdAt: true },
  });
}

export async function listApiTokens() {
  return db().apiToken.findMany({
    orderBy: { createdAt: "desc" },
    select: { id: true, name: true, prefix: true, scopes: true, createdAt: true, lastUsedAt: true, revokedAt: true, createdBy: { select: { email: true } } },
  });
}

export async function listVerifierConfigs() {
  return db().verifierConfig.findMany({
    orderBy: [{ name: "asc" }, { version: "desc" }],
    select: { id: true, name: true, version: true, hash: true, isDefault: true, createdAt: true },
  });
}

/** The newest audit-log entries, paged by key (`before` = id of the last entry shown). */
export async function listAuditLog(opts: { before?: bigint; limit?: number } = {}) {
  return db().auditLogEntry.findMany({
    where: opts.before ? { id: { lt: opts.before } } : {},
    orderBy: { id: "desc" },
    take: opts.limit ?? 50,
  });
}
