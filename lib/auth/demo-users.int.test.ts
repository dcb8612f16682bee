import { describe, expect, it } from "vitest";
import { DEMO_PASSWORD } from "@/lib/auth/demo-users.ts";
import { createDemoUsersIfEmpty } from "@/lib/demo/users.ts";
import { listDemoSignIns } from "@/lib/auth/data.ts";
import { hashPassword, verifyPassword } from "@/lib/auth/password.ts";
import { useMigratedScratch } from "@/lib/testing/scratch-suite.ts";
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";

describe("demo users", () => {
  let client: PrismaClient;
  useMigratedScratch("demo_users", (_, c) => (client = c));

  it("are created once, one line each, on an empty users table", async () => {
    const lines = await createDemoUsersIfEmpty(client);
    expect(lines).toEqual([
      'demo user admin@verity.local (admin), password "verity"',
      'demo user lead@verity.local (lead), password "verity"',
      'demo user researcher@verity.local (researcher), password "verity"',
      'demo user annotator@verity.local (annotator), password "verity"',
      'demo user annotator2@verity.local (annotator), password "verity"',
    ]);
    const users = await client.user.findMany({ orderBy: { id: "asc" } });
    expect(users.map((u) => [u.email, u.role])).toEqual([
      ["admin@verity.local", "admin"],
      ["lead@verity.local", "lead"],
      ["researcher@verity.local", "researcher"],
      ["annotator@verity.local", "annotator"],
      ["annotator2@verity.local", "annotator"],
    ]);
    expect(await verifyPassword(DEMO_PASSWORD, users[0].passwordHash)).toBe(true);
    expect(new Set(users.map((u) => u.passwordHash)).size).toBe(5);
    expect(await client.activityLog.count({ where: { action: "user.create", actorLabel: "system" } })).toBe(5);
    expect(await createDemoUsersIfEmpty(client)).toEqual([]);
    expect(await client.user.count()).toBe(5);
  });

  it("are listed for the sign-in page in demo mode only, while enabled and with the demo password", async () => {
    expect(await listDemoSignIns(false, client)).toEqual([]);
    const all = await listDemoSignIns(true, client);
    expect(all.map((a) => [a.email, a.role, a.password])).toEqual([
      ["admin@verity.local", "admin", "verity"],
      ["lead@verity.local", "lead", "verity"],
      ["researcher@verity.local", "researcher", "verity"],
      ["annotator@verity.local", "annotator", "verity"],
      ["annotator2@verity.local", "annotator", "verity"],
    ]);
    await client.user.update({
      where: { email: "admin@verity.local" },
      data: { passwordHash: await hashPassword("a password of its own") },
    });
    await client.user.update({ where: { email: "annotator2@verity.local" }, data: { disabledAt: new Date() } });
    await client.user.create({
      data: { email: "someone@example.org", role: "admin", passwordHash: await hashPassword("verity") },
    });
    expect((await listDemoSignIns(true, client)).map((a) => a.email)).toEqual([
      "lead@verity.local",
      "researcher@verity.local",
      "annotator@verity.local",
    ]);
  });
});
