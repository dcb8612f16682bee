// Changes to users, API tokens and verifier-config selection. Each change and its activity-log entry commit together.
import type { CreateUserInput } from "@/lib/admin/schema.ts";
import { tokenEffects, type TokenEffect } from "@/lib/admin/token-effects.ts";
import { appendActivityLog, type ActivityAction, type ActivityActor } from "@/lib/auth/activity-log.ts";
import { hashPassword } from "@/lib/auth/password.ts";
import type { Role, TokenOwner, TokenScope } from "@/lib/auth/policy.ts";
import { newApiToken } from "@/lib/auth/tokens.ts";
import { db } from "@/lib/db/client.ts";
import type { Prisma, PrismaClient } from "@/lib/generated/prisma/client.ts";
import type { Result } from "@/lib/result.ts";

/** The acting signed-in user, or a label ("cli") for changes made from the command line. */
export type Actor = ActivityActor;

const actorUserId = (a: Actor) => ("userId" in a ? a.userId : null);

export async function createUser(
  input: CreateUserInput,
  actor: Actor,
  client: PrismaClient = db(),
): Promise<Result<{ id: number }>> {
  const passwordHash = await hashPassword(input.password);
  try {
    const id = await client.$transaction(async (tx) => {
      const u = await tx.user.create({
        data: { email: input.email, name: input.name, role: input.role, passwordHash },
        select: { id: true },
      });
      await appendActivityLog(
        {
          actor,
          action: "user.create",
          target: { type: "user", id: u.id },
          details: { email: input.email, role: input.role },
        },
        tx,
      );
      return u.id;
    });
    return { ok: true, id };
  } catch (err) {
    if ((err as { code?: string }).code === "P2002")
      return { ok: false, field: "email", error: "A user with this email already exists." };
    throw err;
  }
}

/** The unrevoked tokens a user owns, for what a change to the user does to them (token-effects.ts). */
function ownedTokens(tx: Prisma.TransactionClient, userId: number) {
  return tx.apiToken.findMany({
    where: { createdById: userId, revokedAt: null },
    orderBy: { id: "asc" },
    select: { id: true, name: true, prefix: true, scopes: true },
  });
}

/**
 * Records a change to a user's standing (role, enabled) with what it does to the tokens they own: each token whose
 * usable scopes differ `before` and `after` is named in the log entry and returned.
 */
async function logStandingChange(
  tx: Prisma.TransactionClient,
  userId: number,
  entry: { actor: Actor; action: ActivityAction; details: Prisma.InputJsonObject },
  before: TokenOwner,
  after: TokenOwner,
): Promise<TokenEffect[]> {
  const tokens = tokenEffects(await ownedTokens(tx, userId), before, after);
  await appendActivityLog(
    {
      actor: entry.actor,
      action: entry.action,
      target: { type: "user", id: userId },
      details: { ...entry.details, tokens: loggedEffects(tokens) },
    },
    tx,
  );
  return tokens;
}

/** A user's role, email and whether they are disabled, as a change to their standing reads them. */
const findStanding = (tx: Prisma.TransactionClient, userId: number) =>
  tx.user.findUnique({ where: { id: userId }, select: { role: true, email: true, disabledAt: true } });

/** Affected tokens as the activity log records them (the ids let an entry be matched to the token's own entries). */
const loggedEffects = (effects: TokenEffect[]) =>
  effects.map((e) => ({ id: e.id, name: e.name, prefix: e.prefix, from: e.from, to: e.to }));

/**
 * Refuses changes that would leave no enabled admin: nobody could manage users any more. The enabled admins' rows are
 * locked first, so two admins demoting each other at the same moment cannot both pass the check.
 */
async function wouldLoseLastAdmin(tx: Prisma.TransactionClient, userId: number): Promise<boolean> {
  await tx.$queryRaw`select id from users where role = 'admin' and disabled_at is null for update`;
  const others = await tx.user.count({ where: { role: "admin", disabledAt: null, id: { not: userId } } });
  return others === 0;
}

/** A change of role narrows or widens the user's API tokens at once; `tokens` names each one it affects. */
export async function changeRole(
  userId: number,
  role: Role,
  actor: Actor,
  client: PrismaClient = db(),
): Promise<Result<{ tokens: TokenEffect[] }>> {
  return client.$transaction(async (tx) => {
    const u = await findStanding(tx, userId);
    if (!u) return { ok: false, error: "No such user." };
    if (u.role === role) return { ok: true, tokens: [] };
    if (u.role === "admin" && !u.disabledAt && (await wouldLoseLastAdmin(tx, userId))) {
      return { ok: false, field: "role", error: "This is the last enabled admin: make another admin first." };
    }
    await tx.user.update({ where: { id: userId }, data: { role } });
    const disabled = !!u.disabledAt;
    const tokens = await logStandingChange(
      tx,
      userId,
      { actor, action: "user.role_change", details: { email: u.email, from: u.role, to: role } },
      { role: u.role, disabled },
      { role, disabled },
    );
    return { ok: true, tokens };
  });
}

/**
 * Disabling signs the user out everywhere (their sessions are deleted), refuses new sign-ins and stops their API tokens
 * at once (enabling them again restores the tokens); `tokens` names each one it affects.
 */
export async function setUserDisabled(
  userId: number,
  disabled: boolean,
  actor: Actor,
  client: PrismaClient = db(),
): Promise<Result<{ tokens: TokenEffect[] }>> {
  return client.$transaction(async (tx) => {
    const u = await findStanding(tx, userId);
    if (!u) return { ok: false, error: "No such user." };
    if (!!u.disabledAt === disabled) return { ok: true, tokens: [] };
    if (disabled && actorUserId(actor) === userId) return { ok: false, error: "You cannot disable yourself." };
    if (disabled && u.role === "admin" && (await wouldLoseLastAdmin(tx, userId))) {
      return { ok: false, error: "This is the last enabled admin: make another admin first." };
    }
    await tx.user.update({ where: { id: userId }, data: { disabledAt: disabled ? new Date() : null } });
    if (disabled) await tx.session.deleteMany({ where: { userId } });
    const tokens = await logStandingChange(
      tx,
      userId,
      { actor, action: disabled ? "user.disable" : "user.enable", details: { email: u.email } },
      { role: u.role, disabled: !disabled },
      { role: u.role, disabled },
    );
    return { ok: true, tokens };
  });
}

/** Sets a new password, ends the user's sessions and clears their failed sign-ins (an admin reset unlocks). */
export async function resetPassword(
  userId: number,
  password: string,
  actor: Actor,
  client: PrismaClient = db(),
): Promise<Result> {
  const passwordHash = await hashPassword(password);
  return client.$transaction(async (tx) => {
    const u = await tx.user.findUnique({ where: { id: userId }, select: { email: true } });
    if (!u) return { ok: false, error: "No such user." };
    await tx.user.update({ where: { id: userId }, data: { passwordHash } });
    await tx.session.deleteMany({ where: { userId } });
    await tx.signInFailure.deleteMany({ where: { email: u.email } });
    await appendActivityLog(
      { actor, action: "user.password_reset", target: { type: "user", id: userId }, details: { email: u.email } },
      tx,
    );
    return { ok: true };
  });
}

/** Creates an API token. The returned `token` is the only time its secret exists outside the caller's hands. */
export async function createApiToken(
  input: { name: string; scopes: TokenScope[] },
  actor: { userId: number; email: string },
  client: PrismaClient = db(),
): Promise<{ ok: true; id: number; token: string; prefix: string }> {
  const { token, prefix, hash } = newApiToken();
  const scopes = [...new Set(input.scopes)].sort();
  const id = await client.$transaction(async (tx) => {
    const t = await tx.apiToken.create({
      data: { name: input.name, prefix, hash, scopes, createdById: actor.userId },
      select: { id: true },
    });
    await appendActivityLog(
      {
        actor,
        action: "token.create",
        target: { type: "api_token", id: t.id },
        details: { name: input.name, prefix, scopes },
      },
      tx,
    );
    return t.id;
  });
  return { ok: true, id, token, prefix };
}

export async function revokeApiToken(tokenId: number, actor: Actor, client: PrismaClient = db()): Promise<Result> {
  return client.$transaction(async (tx) => {
    const t = await tx.apiToken.findUnique({
      where: { id: tokenId },
      select: { name: true, prefix: true, revokedAt: true },
    });
    if (!t) return { ok: false, error: "No such token." };
    if (t.revokedAt) return { ok: true };
    await tx.apiToken.update({ where: { id: tokenId }, data: { revokedAt: new Date() } });
    await appendActivityLog(
      {
        actor,
        action: "token.revoke",
        target: { type: "api_token", id: tokenId },
        details: { name: t.name, prefix: t.prefix },
      },
      tx,
    );
    return { ok: true };
  });
}

/** Makes one stored verifier config the default (and no other). A config change, so it is recorded in the activity log. */
export async function setDefaultConfig(configId: number, actor: Actor, client: PrismaClient = db()): Promise<Result> {
  return client.$transaction(async (tx) => {
    const c = await tx.verifierConfig.findUnique({
      where: { id: configId },
      select: { name: true, version: true, hash: true, isDefault: true },
    });
    if (!c) return { ok: false, error: "No such config." };
    if (c.isDefault) return { ok: true };
    const previous = await tx.verifierConfig.findFirst({
      where: { isDefault: true },
      select: { id: true, hash: true },
    });
    await tx.verifierConfig.updateMany({ where: { isDefault: true }, data: { isDefault: false } });
    await tx.verifierConfig.update({ where: { id: configId }, data: { isDefault: true } });
    await appendActivityLog(
      {
        actor,
        action: "config.set_default",
        target: { type: "verifier_config", id: configId },
        details: { name: c.name, version: c.version, hash: c.hash, previousHash: previous?.hash ?? null },
      },
      tx,
    );
    return { ok: true };
  });
}
