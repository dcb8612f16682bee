import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { listActivityLog } from "@/lib/admin/data.ts";
import { changeRole, createUser, resetPassword, setDefaultConfig, setUserDisabled } from "@/lib/admin/mutations.ts";
import { appendActivityLog } from "@/lib/auth/activity-log.ts";
import { signInWithPassword } from "@/lib/auth/mutations.ts";
import { verifyPassword } from "@/lib/auth/password.ts";
import { db } from "@/lib/db/client.ts";
import { useMigratedScratch } from "@/lib/testing/scratch-suite.ts";
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";

const PASSWORD = "a long enough password";
const email = (p = "u") => `${p}-${randomBytes(5).toString("hex")}@test.local`;

async function user(role: "admin" | "lead" | "researcher" | "annotator", client: PrismaClient = db()) {
  const e = email(role);
  const r = await createUser({ email: e, name: "", role, password: PASSWORD }, { label: "test" }, client);
  if (!r.ok) throw new Error(r.error);
  return { userId: r.id, email: e };
}

describe("user administration", () => {
  it("creates a user with a hashed password and refuses a duplicate email on the email field", async () => {
    const u = await user("researcher");
    const row = await db().user.findUniqueOrThrow({ where: { id: u.userId } });
    expect(row.passwordHash).toMatch(/^scrypt\$/);
    expect(await verifyPassword(PASSWORD, row.passwordHash)).toBe(true);
    const dup = await createUser({ email: u.email, name: "", role: "lead", password: PASSWORD }, { label: "test" });
    expect(dup).toEqual({ ok: false, field: "email", error: "A user with this email already exists." });
  });

  it("logs role changes with before and after, by the acting admin", async () => {
    const a = await user("admin");
    const u = await user("researcher");
    expect(await changeRole(u.userId, "lead", a)).toEqual({ ok: true, tokens: [] });
    const e = await db().activityLog.findFirstOrThrow({
      where: { action: "user.role_change", targetId: String(u.userId) },
    });
    expect(e).toMatchObject({
      actorId: a.userId,
      actorLabel: a.email,
      targetType: "user",
      details: { from: "researcher", to: "lead", email: u.email },
    });
    expect((await db().user.findUniqueOrThrow({ where: { id: u.userId } })).role).toBe("lead");
  });

  it("does not let an admin disable themselves", async () => {
    const a = await user("admin");
    expect(await setUserDisabled(a.userId, true, a)).toEqual({ ok: false, error: "You cannot disable yourself." });
  });

  it("resets a password: old one refused, new one works, sessions ended, lock cleared, logged without the password", async () => {
    const a = await user("admin");
    const u = await user("annotator");
    const s = await signInWithPassword({ email: u.email, password: PASSWORD });
    expect(s.ok).toBe(true);
    await db().signInFailure.create({ data: { email: u.email } });
    expect(await resetPassword(u.userId, "another long password", a)).toEqual({ ok: true });
    expect(await db().session.count({ where: { userId: u.userId } })).toBe(0);
    expect(await db().signInFailure.count({ where: { email: u.email } })).toBe(0);
    expect((await signInWithPassword({ email: u.email, password: PASSWORD })).ok).toBe(false);
    expect((await signInWithPassword({ email: u.email, password: "another long password" })).ok).toBe(true);
    const e = await db().activityLog.findFirstOrThrow({
      where: { action: "user.password_reset", targetId: String(u.userId) },
    });
    expect(JSON.stringify(e.details)).not.toContain("another long password");
  });

  it("logs disable and enable", async () => {
    const a = await user("admin");
    const u = await user("lead");
    await setUserDisabled(u.userId, true, a);
    await setUserDisabled(u.userId, true, a); // no-op, not logged twice
    await setUserDisabled(u.userId, false, a);
    const actions = (
      await db().activityLog.findMany({
        where: { targetType: "user", targetId: String(u.userId) },
        orderBy: { id: "asc" },
      })
    ).map((e) => e.action);
    expect(actions).toEqual(["user.create", "user.disable", "user.enable"]);
  });
});

describe("the last enabled admin", () => {
  let client: PrismaClient;
  useMigratedScratch("admins", (_, c) => (client = c));

  it("cannot be demoted or disabled, until another admin exists", async () => {
    const only = await user("admin", client);
    const cli = { label: "cli" };
    expect(await changeRole(only.userId, "lead", cli, client)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/last enabled admin/),
    });
    expect(await setUserDisabled(only.userId, true, cli, client)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/last enabled admin/),
    });
    const second = await user("admin", client);
    expect(await changeRole(only.userId, "lead", second, client)).toEqual({ ok: true, tokens: [] });
    expect(await setUserDisabled(second.userId, true, cli, client)).toMatchObject({ ok: false });
  });

  it("config default changes are logged with the previous config", async () => {
    const a = await user("admin", client);
    const c1 = await client.verifierConfig.create({
      data: { name: "default", version: 1, hash: "sha256:" + "1".repeat(64), body: {}, isDefault: true },
    });
    const c2 = await client.verifierConfig.create({
      data: { name: "default", version: 2, hash: "sha256:" + "2".repeat(64), body: {} },
    });
    expect(await setDefaultConfig(c2.id, a, client)).toEqual({ ok: true });
    expect((await client.verifierConfig.findMany({ where: { isDefault: true } })).map((c) => c.id)).toEqual([c2.id]);
    const e = await client.activityLog.findFirstOrThrow({ where: { action: "config.set_default" } });
    expect(e).toMatchObject({
      actorId: a.userId,
      targetType: "verifier_config",
      targetId: String(c2.id),
      details: { version: 2, previousHash: c1.hash },
    });
  });
});

describe("the activity log", () => {
  it("is append-only", async () => {
    await appendActivityLog({ actor: { label: "test" }, action: "test.append_only" });
    const e = await db().activityLog.findFirstOrThrow({ where: { action: "test.append_only" } });
    await expect(db().activityLog.update({ where: { id: e.id }, data: { action: "x" } })).rejects.toThrow(
      /append-only/,
    );
    await expect(db().activityLog.delete({ where: { id: e.id } })).rejects.toThrow(/append-only/);
  });

  it("filters by action, actor and day, newest first, paged by id", async () => {
    const a = await user("admin");
    const action = `test.filter_${randomBytes(3).toString("hex")}`;
    for (let i = 0; i < 5; i++) await appendActivityLog({ actor: a, action, target: { type: "thing", id: i } });
    await appendActivityLog({ actor: { label: "cli" }, action, target: { type: "thing", id: 99 } });

    const first = await listActivityLog({ action, limit: 4 });
    expect(first.entries.map((e) => e.targetId)).toEqual(["99", "4", "3", "2"]);
    expect(first.nextBefore).toBe(first.entries[3].id);
    const second = await listActivityLog({ action, limit: 4, before: first.nextBefore! });
    expect(second.entries.map((e) => e.targetId)).toEqual(["1", "0"]);
    expect(second.nextBefore).toBeNull();

    expect((await listActivityLog({ action, actor: a.email })).entries).toHaveLength(5);
    expect((await listActivityLog({ action, actor: "cli" })).entries.map((e) => e.targetId)).toEqual(["99"]);

    const today = new Date().toISOString().slice(0, 10);
    expect((await listActivityLog({ action, from: today, to: today })).entries).toHaveLength(6);
    expect((await listActivityLog({ action, to: "2000-01-01" })).entries).toHaveLength(0);
    expect((await listActivityLog({ action, from: "2999-01-01" })).entries).toHaveLength(0);
  });
});
