// The demo accounts written into a fresh non-production database: one per role (DEMO_USERS, the sign-in page lists
// them), password "verity". Production (NODE_ENV=production without VERITY_DEMO) never gets them; the first admin
// comes from `verity user create --role admin`.
import { appendActivityLog } from "@/lib/auth/activity-log.ts";
import { DEMO_PASSWORD, DEMO_USERS } from "@/lib/auth/demo-users.ts";
import { hashPassword } from "@/lib/auth/password.ts";
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";

/** Creates the demo users when the users table is empty; returns the lines to print (none when users exist). */
export async function createDemoUsersIfEmpty(client: PrismaClient): Promise<string[]> {
  if ((await client.user.count()) > 0) return [];
  const hashes = await Promise.all(DEMO_USERS.map(() => hashPassword(DEMO_PASSWORD)));
  await client.$transaction(async (tx) => {
    for (const [i, u] of DEMO_USERS.entries()) {
      const created = await tx.user.create({ data: { ...u, passwordHash: hashes[i] }, select: { id: true } });
      await appendActivityLog(
        {
          actor: { label: "system" },
          action: "user.create",
          target: { type: "user", id: created.id },
          details: { email: u.email, role: u.role, demo: true },
        },
        tx,
      );
    }
  });
  return DEMO_USERS.map((u) => `demo user ${u.email} (${u.role}), password "${DEMO_PASSWORD}"`);
}
