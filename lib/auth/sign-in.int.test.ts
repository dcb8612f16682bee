import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createUser, setUserDisabled } from "@/lib/admin/mutations.ts";
import { findSessionUser } from "@/lib/auth/data.ts";
import { endSession, signInWithPassword, signInWithVerifiedEmail, touchSession } from "@/lib/auth/mutations.ts";
import { SIGN_IN_LIMIT, WRONG_CREDENTIALS } from "@/lib/auth/schema.ts";
import { sha256Hex } from "@/lib/auth/tokens.ts";
import { db } from "@/lib/db/client.ts";

const PASSWORD = "a long enough password";
const admin = { label: "test" } as const;

async function newUser(role: "admin" | "lead" | "researcher" | "annotator" = "researcher") {
  const email = `u-${randomBytes(5).toString("hex")}@test.local`;
  const r = await createUser({ email, name: "", role, password: PASSWORD }, admin);
  if (!r.ok) throw new Error(r.error);
  return { id: r.id, email };
}

const logFor = (targetId: number) =>
  db().activityLog.findMany({ where: { targetType: "user", targetId: String(targetId) }, orderBy: { id: "asc" } });

describe("signing in with email and password", () => {
  it("starts a session stored by the hash of its cookie and logs the sign-in", async () => {
    const u = await newUser("lead");
    const r = await signInWithPassword({ email: u.email, password: PASSWORD, ip: "10.0.0.1" });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.user).toEqual({ id: u.id, email: u.email, role: "lead" });
    expect(r.session.sessionId).toBe(sha256Hex(r.session.token));
    const row = await db().session.findUnique({ where: { id: r.session.sessionId } });
    expect(row?.userId).toBe(u.id);
    // nothing in the table equals the cookie value itself
    expect(await db().session.count({ where: { id: r.session.token } })).toBe(0);
    const hours = (row!.expiresAt.getTime() - row!.createdAt.getTime()) / 3_600_000;
    expect(hours).toBeCloseTo(12, 5);
    const me = await findSessionUser(r.session.sessionId);
    expect(me).toMatchObject({ id: u.id, email: u.email, role: "lead" });
    const log = await logFor(u.id);
    expect(log.map((e) => e.action)).toEqual(["user.create", "auth.sign_in"]);
    expect(log[1]).toMatchObject({
      actorId: u.id,
      actorLabel: u.email,
      details: { method: "password", ip: "10.0.0.1" },
    });
  });

  it("answers a wrong password and an unknown email with the same message", async () => {
    const u = await newUser();
    const wrong = await signInWithPassword({ email: u.email, password: "nope" });
    const unknown = await signInWithPassword({
      email: `nobody-${randomBytes(4).toString("hex")}@test.local`,
      password: "nope",
    });
    expect(wrong).toEqual({ ok: false, code: "wrong_credentials", message: WRONG_CREDENTIALS });
    expect(unknown).toEqual({ ok: false, code: "wrong_credentials", message: WRONG_CREDENTIALS });
    expect(WRONG_CREDENTIALS).toBe("Email or password is wrong.");
    const failures = await db().activityLog.findMany({
      where: { action: "auth.sign_in_failed", actorLabel: u.email },
    });
    expect(failures).toHaveLength(1);
    expect(failures[0].details).toMatchObject({ reason: "wrong_password" });
    expect(JSON.stringify(failures[0].details)).not.toContain("nope");
  });

  it("refuses a disabled user even with the right password, and signs them out everywhere", async () => {
    const u = await newUser();
    const first = await signInWithPassword({ email: u.email, password: PASSWORD });
    expect(first.ok).toBe(true);
    await setUserDisabled(u.id, true, admin);
    if (first.ok) expect(await findSessionUser(first.session.sessionId)).toBeNull();
    expect(await db().session.count({ where: { userId: u.id } })).toBe(0);
    const r = await signInWithPassword({ email: u.email, password: PASSWORD });
    expect(r).toMatchObject({ ok: false, code: "disabled" });
  });
});

describe("the failed sign-in rate limit", () => {
  it(`refuses after ${SIGN_IN_LIMIT.failures} failures in ${SIGN_IN_LIMIT.windowMinutes} minutes, even the right password, and lifts afterwards`, async () => {
    const u = await newUser();
    const t0 = new Date();
    for (let i = 0; i < SIGN_IN_LIMIT.failures; i++) {
      const r = await signInWithPassword(
        { email: u.email, password: `wrong ${i}`, ip: "10.0.0.9" },
        new Date(t0.getTime() + i * 1000),
      );
      expect(r).toMatchObject({ ok: false, code: "wrong_credentials" });
    }
    const rows = await db().signInFailure.findMany({ where: { email: u.email } });
    expect(rows).toHaveLength(SIGN_IN_LIMIT.failures);
    expect(rows.every((r) => r.ip === "10.0.0.9")).toBe(true);

    const locked = await signInWithPassword({ email: u.email, password: PASSWORD }, new Date(t0.getTime() + 60_000));
    expect(locked.ok).toBe(false);
    if (!locked.ok) {
      expect(locked.code).toBe("rate_limited");
      expect(locked.message).toMatch(/^Too many failed sign-ins for this email\. Try again in 14 minutes/);
    }
    // a locked attempt does not extend the lock
    expect(await db().signInFailure.count({ where: { email: u.email } })).toBe(SIGN_IN_LIMIT.failures);
    // another email is unaffected
    const other = await newUser();
    expect(
      (await signInWithPassword({ email: other.email, password: PASSWORD }, new Date(t0.getTime() + 60_000))).ok,
    ).toBe(true);

    const later = new Date(t0.getTime() + SIGN_IN_LIMIT.windowMinutes * 60_000 + 1000);
    expect((await signInWithPassword({ email: u.email, password: PASSWORD }, later)).ok).toBe(true);
    const reasons = (
      await db().activityLog.findMany({
        where: { action: "auth.sign_in_failed", actorLabel: u.email },
        orderBy: { id: "asc" },
      })
    ).map((e) => (e.details as { reason: string }).reason);
    expect(reasons).toEqual([...Array(SIGN_IN_LIMIT.failures).fill("wrong_password"), "rate_limited"]);
  });
});

describe("the failed sign-in rate limit per client address", () => {
  it(`refuses an address after ${SIGN_IN_LIMIT.failuresPerAddress} failures across emails in ${SIGN_IN_LIMIT.windowMinutes} minutes, and lifts afterwards`, async () => {
    const ip = `10.${randomBytes(3).join(".")}`;
    const u = await newUser();
    const t0 = new Date();
    // password spraying: one try per email, so no email reaches its own limit
    for (let i = 0; i < SIGN_IN_LIMIT.failuresPerAddress; i++) {
      const email = i === 0 ? u.email : `spray-${i}-${randomBytes(4).toString("hex")}@test.local`;
      const r = await signInWithPassword({ email, password: "Summer2025!", ip }, new Date(t0.getTime() + i * 1000));
      expect(r).toMatchObject({ ok: false, code: "wrong_credentials" });
    }
    expect(await db().signInFailure.count({ where: { ip } })).toBe(SIGN_IN_LIMIT.failuresPerAddress);

    const at = new Date(t0.getTime() + 60_000);
    const locked = await signInWithPassword({ email: u.email, password: PASSWORD, ip }, at);
    expect(locked).toEqual({
      ok: false,
      code: "rate_limited",
      message: "Too many failed sign-ins from your network address. Try again in 14 minutes.",
    });
    // a refused attempt does not extend the lock
    expect(await db().signInFailure.count({ where: { ip } })).toBe(SIGN_IN_LIMIT.failuresPerAddress);
    // the same user from another address, and an address with no failures, are unaffected
    expect((await signInWithPassword({ email: u.email, password: PASSWORD, ip: `${ip}1` }, at)).ok).toBe(true);
    // one failure short of the limit still lets the right password in
    const other = await newUser();
    const ip2 = `10.${randomBytes(3).join(".")}`;
    await db().signInFailure.createMany({
      data: Array.from({ length: SIGN_IN_LIMIT.failuresPerAddress - 1 }, (_, i) => ({
        email: `x${i}@test.local`,
        ip: ip2,
        at: new Date(t0.getTime() + i),
      })),
    });
    expect((await signInWithPassword({ email: other.email, password: PASSWORD, ip: ip2 }, at)).ok).toBe(true);

    const later = new Date(t0.getTime() + SIGN_IN_LIMIT.windowMinutes * 60_000 + 1000);
    expect((await signInWithPassword({ email: u.email, password: PASSWORD, ip }, later)).ok).toBe(true);
    const refusal = await db().activityLog.findFirst({
      where: {
        action: "auth.sign_in_failed",
        actorLabel: u.email,
        details: { path: ["reason"], equals: "rate_limited_address" },
      },
    });
    expect(refusal?.details).toEqual({ reason: "rate_limited_address", ip });
  });

  it('does not limit an unknown address ("") by address, so requests without one do not lock each other out', async () => {
    const u = await newUser();
    const at = new Date();
    await db().signInFailure.createMany({
      data: Array.from({ length: SIGN_IN_LIMIT.failuresPerAddress }, (_, i) => ({
        email: `y${i}@test.local`,
        ip: "",
        at: new Date(at.getTime() - 1000 - i),
      })),
    });
    expect((await signInWithPassword({ email: u.email, password: PASSWORD }, at)).ok).toBe(true);
  });
});

describe("the failed sign-in limits under concurrency", () => {
  const reasons = async (where: object) =>
    (await db().activityLog.findMany({ where: { action: "auth.sign_in_failed", ...where } })).map(
      (e) => (e.details as { reason: string }).reason,
    );
  const tally = (xs: string[]) =>
    Object.fromEntries([...new Set(xs)].map((x) => [x, xs.filter((y) => y === x).length]));

  // Every attempt that reaches the password check logs wrong_password (or unknown_email); a refused one logs
  // rate_limited* without checking. So the log counts how many of the 100 were checked against the hash.
  it(`checks at most ${SIGN_IN_LIMIT.failures} of 100 simultaneous wrong passwords for one email`, async () => {
    const u = await newUser();
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        signInWithPassword({ email: u.email, password: `wrong ${i}`, ip: `10.200.${i >> 8}.${i & 255}` }),
      ),
    );
    expect(tally(results.map((r) => (r.ok ? "ok" : r.code)))).toEqual({
      wrong_credentials: SIGN_IN_LIMIT.failures,
      rate_limited: 100 - SIGN_IN_LIMIT.failures,
    });
    expect(tally(await reasons({ actorLabel: u.email }))).toEqual({
      wrong_password: SIGN_IN_LIMIT.failures,
      rate_limited: 100 - SIGN_IN_LIMIT.failures,
    });
    expect(await db().signInFailure.count({ where: { email: u.email } })).toBe(SIGN_IN_LIMIT.failures);
  });

  it(`checks at most ${SIGN_IN_LIMIT.failuresPerAddress} of 100 simultaneous wrong sign-ins from one address`, async () => {
    const ip = `10.${randomBytes(3).join(".")}`;
    const emails = Array.from({ length: 100 }, (_, i) => `conc-${i}-${randomBytes(4).toString("hex")}@test.local`);
    const results = await Promise.all(
      emails.map((email) => signInWithPassword({ email, password: "Summer2025!", ip })),
    );
    expect(tally(results.map((r) => (r.ok ? "ok" : r.code)))).toEqual({
      wrong_credentials: SIGN_IN_LIMIT.failuresPerAddress,
      rate_limited: 100 - SIGN_IN_LIMIT.failuresPerAddress,
    });
    expect(tally(await reasons({ details: { path: ["ip"], equals: ip } }))).toEqual({
      unknown_email: SIGN_IN_LIMIT.failuresPerAddress,
      rate_limited_address: 100 - SIGN_IN_LIMIT.failuresPerAddress,
    });
    expect(await db().signInFailure.count({ where: { ip } })).toBe(SIGN_IN_LIMIT.failuresPerAddress);
  });

  it("keeps no failure for a right password signed in while wrong ones run beside it", async () => {
    const u = await newUser();
    const results = await Promise.all([
      signInWithPassword({ email: u.email, password: PASSWORD }),
      ...Array.from({ length: 3 }, (_, i) => signInWithPassword({ email: u.email, password: `wrong ${i}` })),
    ]);
    expect(results[0].ok).toBe(true);
    expect(await db().signInFailure.count({ where: { email: u.email } })).toBe(3);
  });
});

describe("sessions", () => {
  it("expire VERITY_SESSION_HOURS after sign-in", async () => {
    const u = await newUser();
    const t0 = new Date();
    const r = await signInWithPassword({ email: u.email, password: PASSWORD }, t0);
    if (!r.ok) throw new Error(r.message);
    expect(await findSessionUser(r.session.sessionId, new Date(t0.getTime() + 11.9 * 3_600_000))).not.toBeNull();
    expect(await findSessionUser(r.session.sessionId, new Date(t0.getTime() + 12 * 3_600_000))).toBeNull();
  });

  it("record activity at most every five minutes", async () => {
    const u = await newUser();
    const t0 = new Date();
    const r = await signInWithPassword({ email: u.email, password: PASSWORD }, t0);
    if (!r.ok) throw new Error(r.message);
    const me = (await findSessionUser(r.session.sessionId, t0))!;
    await touchSession(me, new Date(t0.getTime() + 60_000));
    expect((await db().session.findUnique({ where: { id: me.sessionId } }))!.lastSeenAt.getTime()).toBe(t0.getTime());
    const later = new Date(t0.getTime() + 6 * 60_000);
    await touchSession(me, later);
    expect((await db().session.findUnique({ where: { id: me.sessionId } }))!.lastSeenAt.getTime()).toBe(
      later.getTime(),
    );
  });

  it("end at sign-out, which is logged", async () => {
    const u = await newUser();
    const r = await signInWithPassword({ email: u.email, password: PASSWORD });
    if (!r.ok) throw new Error(r.message);
    expect(await endSession(r.session.sessionId)).toEqual({ id: u.id, email: u.email });
    expect(await findSessionUser(r.session.sessionId)).toBeNull();
    expect(await endSession(r.session.sessionId)).toBeNull();
    expect((await logFor(u.id)).map((e) => e.action)).toEqual(["user.create", "auth.sign_in", "auth.sign_out"]);
  });

  it("carry the current role: a role change applies at the next request", async () => {
    const u = await newUser("researcher");
    const r = await signInWithPassword({ email: u.email, password: PASSWORD });
    if (!r.ok) throw new Error(r.message);
    await db().user.update({ where: { id: u.id }, data: { role: "annotator" } });
    expect((await findSessionUser(r.session.sessionId))?.role).toBe("annotator");
  });

  it("can start from a verified email (OIDC) only for an existing, enabled user", async () => {
    const u = await newUser();
    const s = await signInWithVerifiedEmail(u.email, "oidc");
    expect(s.ok).toBe(true);
    expect(await signInWithVerifiedEmail(`x-${randomBytes(4).toString("hex")}@test.local`, "oidc")).toEqual({
      ok: false,
      code: "sso_no_account",
    });
    await setUserDisabled(u.id, true, admin);
    expect(await signInWithVerifiedEmail(u.email, "oidc")).toEqual({ ok: false, code: "sso_disabled" });
  });
});
