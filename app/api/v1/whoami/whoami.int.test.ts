import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createApiToken, createUser } from "@/lib/admin/mutations.ts";
import { GET as whoami } from "@/app/api/v1/whoami/route.ts";

async function admin() {
  const email = `admin-${randomBytes(5).toString("hex")}@test.local`;
  const r = await createUser({ email, name: "", role: "admin", password: "a long enough password" }, { label: "test" });
  if (!r.ok) throw new Error(r.error);
  return { userId: r.id, email };
}

const req = (token?: string) =>
  new Request("http://verity.test/api/v1/whoami", {
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });

describe("GET /api/v1/whoami", () => {
  it("names the token for any valid token and refuses others", async () => {
    const t = await createApiToken({ name: "whoami-check", scopes: ["read", "ingest"] }, await admin());
    const ok = await whoami(req(t.token), {});
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({
      token: {
        id: t.id,
        name: "whoami-check",
        prefix: t.prefix,
        scopes: ["ingest", "read"],
        active_scopes: ["ingest", "read"],
      },
    });
    expect((await whoami(req(), {})).status).toBe(401);
    expect((await whoami(req(t.token.slice(0, -1) + (t.token.endsWith("A") ? "B" : "A")), {})).status).toBe(401);
  });
});
