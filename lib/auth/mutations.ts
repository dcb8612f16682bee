import { appendActivityLog } from "@/lib/auth/activity-log.ts";
import { recentSignInFailures, type SessionUser } from "@/lib/auth/data.ts";
import { verifyAgainstDummy, verifyPassword } from "@/lib/auth/password.ts";
import { SIGN_IN_LIMIT, WRONG_CREDENTIALS } from "@/lib/auth/schema.ts";
import { newSessionToken } from "@/lib/auth/tokens.ts";
import { db, type Db } from "@/lib/db/client.ts";
import { env } from "@/lib/env.ts";

export type NewSession = { token: string; sessionId: string; expiresAt: Date };

/** Starts a session for a user; the caller puts `token` in the cookie. Expired sessions are swept on the way. */
export async function createSession(userId: number, now = new Date(), client: Db = db()): Promise<NewSession> {
  const { token, id } = newSessionToken();
  const expiresAt = new Date(now.getTime() + env().VERITY_SESSION_HOURS * 3_600_000);
  await client.session.deleteMany({ where: { expiresAt: { lte: now } } });
  await client.session.create({ data: { id, userId, expiresAt, createdAt: now, lastSeenAt: now } });
  return { token, sessionId: id, expiresAt };
}

/** How stale lastSeenAt may get before a request writes it again: one write per session per five minutes. */
const TOUCH_EVERY_MS = 5 * 60_000;

/** Records a token's use (the caller writes at most once a minute per token). */
export async function touchApiToken(tokenId: number, now: Date, client: Db = db()): Promise<void> {
  await client.apiToken.updateMany({ where: { id: tokenId }, data: { lastUsedAt: now } });
}

/** Records activity on a session (throttled). Expiry stays absolute: VERITY_SESSION_HOURS after sign-in. */
export async function touchSession(user: SessionUser, now = new Date(), client: Db = db()): Promise<void> {
  if (now.getTime() - user.lastSeenAt.getTime() < TOUCH_EVERY_MS) return;
  await client.session.updateMany({ where: { id: user.sessionId }, data: { lastSeenAt: now } });
}

/** Ends a session (sign-out). Returns whose session it was, or null when it was already gone. */
export async function endSession(sessionId: string, client: Db = db()): Promise<{ id: number; email: string } | null> {
  const s = await client.session.findUnique({
    where: { id: sessionId },
    select: { user: { select: { id: true, email: true } } },
  });
  if (!s) return null;
  await client.session.deleteMany({ where: { id: sessionId } });
  await appendActivityLog(
    {
      actor: { userId: s.user.id, email: s.user.email },
      action: "auth.sign_out",
      target: { type: "user", id: s.user.id },
    },
    client,
  );
  return s.user;
}

export type SignInResult =
  | { ok: true; user: { id: number; email: string; role: SessionUser["role"] }; session: NewSession }
  | { ok: false; code: "wrong_credentials" | "rate_limited" | "disabled"; message: string };

/** "Try again in N minutes": when the oldest failure in the window leaves it. */
function minutesUntilFree(oldest: Date | null, now: Date): string {
  const freeAt = (oldest?.getTime() ?? now.getTime()) + SIGN_IN_LIMIT.windowMinutes * 60_000;
  const minutes = Math.max(1, Math.ceil((freeAt - now.getTime()) / 60_000));
  return `${minutes} minute${minutes === 1 ? "" : "s"}`;
}

// Advisory-lock classes (the two-key form, a key space apart from the one-key locks elsewhere) serialising the
// attempts for one email, and for one client address, while each reserves its slot.
const EMAIL_LOCK = 0x7369_656d; // "siem"
const ADDRESS_LOCK = 0x7369_6970; // "siip"

type AttemptSlot = { ok: true; failureId: bigint } | { ok: false; by: "email" | "address"; oldest: Date | null };

/**
 * Counts an attempt before its password is checked: under a transaction-scoped advisory lock per email and per
 * address (always taken in that order, so two attempts cannot wait on each other), reads the failures in the window
 * and, below both limits, records this attempt as a failure at once. The caller deletes that row when the password
 * is right. So of any number of simultaneous attempts at most the limit are checked against the hash: the count an
 * attempt reads includes every attempt still being checked. The lock is held only for the count and the insert.
 */
async function reserveSignInAttempt(email: string, ip: string, now: Date, client: Db): Promise<AttemptSlot> {
  const reserve = async (tx: Db): Promise<AttemptSlot> => {
    await tx.$executeRaw`select pg_advisory_xact_lock(${EMAIL_LOCK}::int, hashtext(${email}))`;
    if (ip) await tx.$executeRaw`select pg_advisory_xact_lock(${ADDRESS_LOCK}::int, hashtext(${ip}))`;
    const byEmail = await recentSignInFailures({ email }, now, tx);
    if (byEmail.count >= SIGN_IN_LIMIT.failures) return { ok: false, by: "email", oldest: byEmail.oldest };
    if (ip) {
      const byAddress = await recentSignInFailures({ ip }, now, tx);
      if (byAddress.count >= SIGN_IN_LIMIT.failuresPerAddress)
        return { ok: false, by: "address", oldest: byAddress.oldest };
    }
    const row = await tx.signInFailure.create({ data: { email, ip, at: now }, select: { id: true } });
    return { ok: true, failureId: row.id };
  };
  // Inside a caller's transaction the locks last until it commits; otherwise the reservation is its own.
  return "$transaction" in client
    ? client.$transaction(reserve, { maxWait: 30_000, timeout: 30_000 })
    : reserve(client);
}

/**
 * Checks an email and password and starts a session. The answer to a wrong email and to a wrong password is the same
 * message after the same amount of work. After SIGN_IN_LIMIT.failures failures for the email, or
 * SIGN_IN_LIMIT.failuresPerAddress failures from the client address across emails, within the window, even the right
 * password is refused until the window moves on; an unknown address ("") is not limited by address. An attempt counts
 * as a failure from before its password is checked (reserveSignInAttempt), so the limits hold for simultaneous
 * attempts too. Every outcome lands in the activity log.
 */
export async function signInWithPassword(
  input: { email: string; password: string; ip?: string },
  now = new Date(),
  client: Db = db(),
): Promise<SignInResult> {
  const { email, password } = input;
  const ip = input.ip ?? "";
  const failed = (reason: string, userId?: number) =>
    appendActivityLog(
      {
        actor: { label: email },
        action: "auth.sign_in_failed",
        target: userId ? { type: "user", id: userId } : undefined,
        details: { reason, ip },
      },
      client,
    );

  const slot = await reserveSignInAttempt(email, ip, now, client);
  if (!slot.ok && slot.by === "email") {
    await failed("rate_limited");
    return {
      ok: false,
      code: "rate_limited",
      message: `Too many failed sign-ins for this email. Try again in ${minutesUntilFree(slot.oldest, now)}, or ask an admin to reset the password.`,
    };
  }
  if (!slot.ok) {
    await failed("rate_limited_address");
    return {
      ok: false,
      code: "rate_limited",
      message: `Too many failed sign-ins from your network address. Try again in ${minutesUntilFree(slot.oldest, now)}.`,
    };
  }

  const user = await client.user.findUnique({
    where: { email },
    select: { id: true, email: true, role: true, passwordHash: true, disabledAt: true },
  });
  const ok = user?.passwordHash
    ? await verifyPassword(password, user.passwordHash)
    : await verifyAgainstDummy(password);
  if (!user || !ok) {
    // The reserved attempt stays: it is this failure.
    await failed(user ? "wrong_password" : "unknown_email", user?.id);
    return { ok: false, code: "wrong_credentials", message: WRONG_CREDENTIALS };
  }
  // The right password is no failure, whatever follows.
  await client.signInFailure.deleteMany({ where: { id: slot.failureId } });
  // Only someone who knows the password learns that the account is disabled.
  if (user.disabledAt) {
    await failed("disabled", user.id);
    return { ok: false, code: "disabled", message: "This account is disabled. Ask an admin to enable it." };
  }

  const session = await createSession(user.id, now, client);
  await appendActivityLog(
    {
      actor: { userId: user.id, email: user.email },
      action: "auth.sign_in",
      target: { type: "user", id: user.id },
      details: { method: "password", ip },
    },
    client,
  );
  return { ok: true, user: { id: user.id, email: user.email, role: user.role }, session };
}

export type VerifiedEmailSignIn =
  { ok: true; session: NewSession } | { ok: false; code: "sso_no_account" | "sso_disabled" };

/**
 * Starts a session for a user who proved their email elsewhere (OIDC). Refused when no user has that email or the
 * user is disabled; the identity provider vouched for the email, so saying which is no leak. Logged either way.
 */
export async function signInWithVerifiedEmail(
  email: string,
  method: string,
  ip = "",
  now = new Date(),
  client: Db = db(),
): Promise<VerifiedEmailSignIn> {
  const user = await client.user.findUnique({ where: { email }, select: { id: true, email: true, disabledAt: true } });
  if (!user || user.disabledAt) {
    await appendActivityLog(
      {
        actor: { label: email },
        action: "auth.sign_in_failed",
        target: user ? { type: "user", id: user.id } : undefined,
        details: { reason: user ? "disabled" : "unknown_email", method, ip },
      },
      client,
    );
    return { ok: false, code: user ? "sso_disabled" : "sso_no_account" };
  }
  const session = await createSession(user.id, now, client);
  await appendActivityLog(
    {
      actor: { userId: user.id, email: user.email },
      action: "auth.sign_in",
      target: { type: "user", id: user.id },
      details: { method, ip },
    },
    client,
  );
  return { ok: true, session };
}

/**
 * Logs a single sign-on attempt that failed before an email could be trusted (stale state, a token that fails its
 * checks, an unreachable issuer). The actor is the method: nobody is known yet.
 */
export async function recordSsoFailure(
  method: string,
  reason: string,
  detail: string,
  ip = "",
  client: Db = db(),
): Promise<void> {
  await appendActivityLog(
    { actor: { label: method }, action: "auth.sign_in_failed", details: { reason, detail, method, ip } },
    client,
  );
}
