import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { changeRole, createApiToken, createUser, revokeApiToken, setUserDisabled } from "@/lib/admin/mutations.ts";
import { describeTokenEffects } from "@/lib/admin/token-effects.ts";
import { apiRoute } from "@/lib/api/route.ts";
import { authenticateApi } from "@/lib/auth/api.ts";
import { db } from "@/lib/db/client.ts";

async function admin() {
  const email = `admin-${randomBytes(5).toString("hex")}@test.local`;
  const r = await createUser({ email, name: "", role: "admin", password: "a long enough password" }, { label: "test" });
  if (!r.ok) throw new Error(r.error);
  return { userId: r.id, email };
}

const req = (token?: string, path = "/api/v1/whoami") =>
  new Request(`http://verity.test${path}`, {
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });

describe("API tokens", () => {
  it("live from creation to revocation: accepted, scoped, then refused", async () => {
    const actor = await admin();
    const t = await createApiToken({ name: "pipeline", scopes: ["ingest"] }, actor);
    expect(t.token).toMatch(/^vty_[0-9a-f]{8}_/);
    const row = await db().apiToken.findUniqueOrThrow({ where: { id: t.id } });
    expect(row.hash).not.toContain(t.token.slice(13));
    expect(row.lastUsedAt).toBeNull();

    const ok = await authenticateApi(req(t.token), "ingest");
    expect(ok.ok).toBe(true);
    if (ok.ok)
      expect(ok.principal).toMatchObject({
        tokenId: t.id,
        name: "pipeline",
        scopes: ["ingest"],
        createdById: actor.userId,
      });
    const used = await db().apiToken.findUniqueOrThrow({ where: { id: t.id } });
    expect(used.lastUsedAt).not.toBeNull();

    const missingScope = await authenticateApi(req(t.token), "read");
    expect(missingScope.ok).toBe(false);
    if (!missingScope.ok) {
      expect(missingScope.response.status).toBe(403);
      const body = await missingScope.response.json();
      expect(body.error.code).toBe("insufficient_scope");
      expect(body.error.message).toContain('"read" scope');
    }

    expect((await revokeApiToken(t.id, actor)).ok).toBe(true);
    const revoked = await authenticateApi(req(t.token), "ingest");
    expect(revoked.ok).toBe(false);
    if (!revoked.ok) {
      expect(revoked.response.status).toBe(401);
      expect(await revoked.response.json()).toEqual({
        error: { code: "invalid_token", message: "This API token has been revoked." },
      });
    }

    const log = await db().activityLog.findMany({
      where: { targetType: "api_token", targetId: String(t.id) },
      orderBy: { id: "asc" },
    });
    expect(log.map((e) => [e.action, e.actorId])).toEqual([
      ["token.create", actor.userId],
      ["token.revoke", actor.userId],
    ]);
    expect(JSON.stringify(log.map((e) => e.details))).not.toContain(t.token);
  });

  it("refuses a token without the ingest scope at an ingest-scoped check with 403", async () => {
    const t = await createApiToken({ name: "reader", scopes: ["read"] }, await admin());
    const handler = apiRoute({ auth: { token: "ingest" } }, () => Response.json({ ingested: true }));
    const res = await handler(
      new Request("http://verity.test/api/v1/ingest", {
        method: "POST",
        headers: { authorization: `Bearer ${t.token}` },
      }),
      {},
    );
    expect(res.status).toBe(403);
    expect((await res.json()).error).toEqual({
      code: "insufficient_scope",
      message:
        'This API token lacks the "ingest" scope. Create a token with the "ingest" scope under Admin → API tokens.',
    });
    expect((await authenticateApi(req(t.token), "read")).ok).toBe(true);
  });

  it("answers missing, malformed and unknown tokens with 401 JSON", async () => {
    for (const [token, code] of [
      [undefined, "unauthenticated"],
      ["vty_deadbeef_" + "A".repeat(43), "invalid_token"],
      ["not-a-token", "invalid_token"],
    ] as const) {
      const r = await authenticateApi(req(token), null);
      expect(r.ok).toBe(false);
      if (r.ok) continue;
      expect(r.response.status).toBe(401);
      expect(r.response.headers.get("www-authenticate")).toMatch(/^Bearer /);
      expect((await r.response.json()).error.code).toBe(code);
    }
    const basic = await authenticateApi(
      new Request("http://verity.test/", { headers: { authorization: "Basic dTpw" } }),
      null,
    );
    expect(basic.ok).toBe(false);
  });

  it("touches last_used_at at most once a minute", async () => {
    const t = await createApiToken({ name: "busy", scopes: ["ingest"] }, await admin());
    const t0 = new Date();
    await authenticateApi(req(t.token), null, t0);
    await authenticateApi(req(t.token), null, new Date(t0.getTime() + 30_000));
    expect((await db().apiToken.findUniqueOrThrow({ where: { id: t.id } })).lastUsedAt?.getTime()).toBe(t0.getTime());
    const later = new Date(t0.getTime() + 61_000);
    await authenticateApi(req(t.token), null, later);
    expect((await db().apiToken.findUniqueOrThrow({ where: { id: t.id } })).lastUsedAt?.getTime()).toBe(
      later.getTime(),
    );
  });

  it("stop working when their owner is disabled and work again once the owner is enabled", async () => {
    const owner = await admin();
    const other = await admin();
    const t = await createApiToken({ name: "launcher", scopes: ["ingest", "read"] }, owner);
    const revoked = await createApiToken({ name: "old", scopes: ["read"] }, owner);
    await revokeApiToken(revoked.id, owner);
    expect((await authenticateApi(req(t.token), "ingest")).ok).toBe(true);

    const off = await setUserDisabled(owner.userId, true, other);
    expect(off).toEqual({
      ok: true,
      tokens: [{ id: t.id, name: "launcher", prefix: t.prefix, from: ["ingest", "read"], to: [] }],
    });
    if (off.ok)
      expect(describeTokenEffects(off.tokens)).toBe(
        `API token affected: “launcher” (vty_${t.prefix}_…) ingest, read → none, inactive.`,
      );
    for (const scope of ["ingest", "read", null] as const) {
      const r = await authenticateApi(req(t.token), scope);
      expect(r.ok).toBe(false);
      if (r.ok) continue;
      expect(r.response.status).toBe(401);
      expect(await r.response.json()).toEqual({
        error: { code: "invalid_token", message: "This API token is inactive: the account of its owner is disabled." },
      });
    }
    const logged = await db().activityLog.findFirstOrThrow({
      where: { action: "user.disable", targetId: String(owner.userId) },
    });
    expect(logged.details).toMatchObject({
      tokens: [{ id: t.id, name: "launcher", prefix: t.prefix, from: ["ingest", "read"], to: [] }],
    });

    const on = await setUserDisabled(owner.userId, false, other);
    expect(on.ok && on.tokens.map((e) => e.to)).toEqual([["ingest", "read"]]);
    expect((await authenticateApi(req(t.token), "ingest")).ok).toBe(true);
  });

  it("are narrowed by a demotion of their owner, at the next request", async () => {
    const owner = await admin();
    const other = await admin();
    const t = await createApiToken({ name: "exporter", scopes: ["ingest", "read"] }, owner);

    const toResearcher = await changeRole(owner.userId, "researcher", other);
    expect(toResearcher.ok && toResearcher.tokens).toEqual([
      { id: t.id, name: "exporter", prefix: t.prefix, from: ["ingest", "read"], to: ["read"] },
    ]);
    const read = await authenticateApi(req(t.token), "read");
    expect(read.ok && read.principal.activeScopes).toEqual(["read"]);
    const ingest = await authenticateApi(req(t.token), "ingest");
    expect(ingest.ok).toBe(false);
    if (!ingest.ok) {
      expect(ingest.response.status).toBe(403);
      expect((await ingest.response.json()).error).toEqual({
        code: "owner_not_allowed",
        message:
          "This API token's \"ingest\" scope is narrowed: its owner's role is now researcher, which may not ingest. Use a token whose owner may.",
      });
    }

    const toAnnotator = await changeRole(owner.userId, "annotator", other);
    expect(toAnnotator.ok && toAnnotator.tokens.map((e) => [e.from, e.to])).toEqual([[["read"], []]]);
    const exported = await authenticateApi(req(t.token, "/api/v1/runs/r/ledger.ndjson"), "read");
    expect(exported.ok).toBe(false);
    if (!exported.ok) {
      expect(exported.response.status).toBe(403);
      expect((await exported.response.json()).error.message).toContain("annotator, which may not read the ledger");
    }
    const log = await db().activityLog.findMany({
      where: { action: "user.role_change", targetId: String(owner.userId) },
      orderBy: { id: "asc" },
    });
    expect(log.map((e) => (e.details as { tokens: { to: string[] }[] }).tokens.map((x) => x.to))).toEqual([
      [["read"]],
      [[]],
    ]);
  });
});
