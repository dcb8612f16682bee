import { DEMO_PASSWORD, DEMO_USERS } from "@/lib/auth/demo-users.ts";
import { verifyPassword } from "@/lib/auth/password.ts";
import type { Role } from "@/lib/auth/policy.ts";
import { SIGN_IN_LIMIT } from "@/lib/auth/schema.ts";
import { db, type Db } from "@/lib/db/client.ts";
import { demoEnabled } from "@/lib/env.ts";

/** The signed-in user as pages and actions see it. Never carries the password hash. */
export type SessionUser = {
  id: number;
  email: string;
  name: string;
  role: Role;
  sessionId: string;
  lastSeenAt: Date;
};

/** The API token with this hash (lib/auth/tokens.ts apiTokenHash), with its owner's role and state, or null. */
export async function findApiToken(hash: string, client: Db = db()) {
  return client.apiToken.findUnique({
    where: { hash },
    select: {
      id: true,
      name: true,
      prefix: true,
      scopes: true,
      createdById: true,
      revokedAt: true,
      lastUsedAt: true,
      createdBy: { select: { role: true, disabledAt: true } },
    },
  });
}

/**
 * The user behind a session id (the sha256 of the cookie), or null when the session is unknown, expired, or its user
 * is disabled. Role and disabled state are read on every request, so a change takes effect at the next click.
 */
export async function findSessionUser(
  sessionId: string,
  now = new Date(),
  client: Db = db(),
): Promise<SessionUser | null> {
  const s = await client.session.findUnique({
    where: { id: sessionId },
    select: {
      id: true,
      expiresAt: true,
      lastSeenAt: true,
      user: { select: { id: true, email: true, name: true, role: true, disabledAt: true } },
    },
  });
  if (!s || s.expiresAt <= now || s.user.disabledAt) return null;
  return {
    id: s.user.id,
    email: s.user.email,
    name: s.user.name,
    role: s.user.role,
    sessionId: s.id,
    lastSeenAt: s.lastSeenAt,
  };
}

/**
 * Failed sign-ins inside the rate-limit window for an email, or from a client address across every email, and when
 * the oldest of them leaves the window.
 */
export async function recentSignInFailures(
  by: { email: string } | { ip: string },
  now = new Date(),
  client: Db = db(),
): Promise<{ count: number; oldest: Date | null }> {
  const since = new Date(now.getTime() - SIGN_IN_LIMIT.windowMinutes * 60_000);
  const agg = await client.signInFailure.aggregate({
    where: { ...by, at: { gt: since } },
    _count: { _all: true },
    _min: { at: true },
  });
  return { count: agg._count._all, oldest: agg._min.at };
}

export type DemoSignIn = { email: string; role: Role; password: string };

// Whether a stored hash is the demo password's, by the hash itself: a changed password is a new hash, so the answer
// never goes stale, and the sign-in page verifies each demo account once per process instead of once per view.
const isDemoHash = new Map<string, Promise<boolean>>();

/**
 * The demo accounts the sign-in page lists, in demo mode only (demoEnabled: never a production deployment without
 * VERITY_DEMO): those of DEMO_USERS that exist, are enabled and still have the demo password.
 */
export async function listDemoSignIns(enabled = demoEnabled(), client: Db = db()): Promise<DemoSignIn[]> {
  if (!enabled) return [];
  const users = await client.user.findMany({
    where: { email: { in: DEMO_USERS.map((u) => u.email) }, disabledAt: null },
    select: { email: true, role: true, passwordHash: true },
  });
  const byEmail = new Map(users.map((u) => [u.email, u]));
  const out: DemoSignIn[] = [];
  for (const demo of DEMO_USERS) {
    const hash = byEmail.get(demo.email)?.passwordHash;
    if (!hash) continue;
    if (!isDemoHash.has(hash)) isDemoHash.set(hash, verifyPassword(DEMO_PASSWORD, hash));
    if (await isDemoHash.get(hash))
      out.push({ email: demo.email, role: byEmail.get(demo.email)!.role, password: DEMO_PASSWORD });
  }
  return out;
}
