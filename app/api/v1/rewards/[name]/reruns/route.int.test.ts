// POST and GET /api/v1/rewards/{name}/reruns as a pipeline calls them: the token's scope and its owner's role decide,
// a probe or a retest starts over the run's audited rollouts and its report reads back, bad bodies are refused with
// the field named.
import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { GET, POST } from "@/app/api/v1/rewards/[name]/reruns/route.ts";
import { createApiToken, createUser } from "@/lib/admin/mutations.ts";
import { createBatch } from "@/lib/audit/mutations.ts";
import { clientOver } from "@/lib/db/client.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import type { Role } from "@/lib/auth/policy.ts";
import { addRewardVersion } from "@/lib/rewards/mutations.ts";
import { rewardRun } from "@/lib/rewards/run-data.ts";
import { versionDocument } from "@/lib/rewards/schema.ts";
import { seedRun, uniqueName } from "@/lib/testing/audit-data.ts";

const url = process.env.DATABASE_URL!;
const pool = bulkPool(url);
const RUN = uniqueName("api-rerun");
const BARE = uniqueName("api-bare");
const NAME = uniqueName("api-judge");
const tokens: Record<string, string> = {};

async function token(role: Role, scopes: ("ingest" | "read")[]) {
  const email = `${role}-${randomBytes(5).toString("hex")}@test.local`;
  const u = await createUser({ email, name: "", role, password: "a long enough password" }, { label: "test" });
  if (!u.ok) throw new Error(u.error);
  return (await createApiToken({ name: `${role}-${scopes.join("+")}`, scopes }, { userId: u.id, email })).token;
}

beforeAll(async () => {
  await seedRun(url, { runId: RUN, tickets: 3, perTicket: 1 });
  await seedRun(url, { runId: BARE, tickets: 1, perTicket: 1 });
  const b = await createBatch(
    { runId: RUN, stepFrom: 0, stepTo: 100, rate: 1, salt: "x", pick: "all", overlapRate: 0, tolerance: 0.1 },
    { label: "test" },
  );
  if (!b.ok) throw new Error(b.error);
  await pool.query("update audit_items set reviews_done = 1 where batch_id = $1", [b.batchId]);
  const doc = versionDocument({ components: [{ kind: "judge", rubric: "r", simulated: true }] });
  await addRewardVersion({ name: NAME, doc, reason: "test" }, { label: "test" }, clientOver(pool));
  tokens.admin = await token("admin", ["ingest", "read"]);
  tokens.researcherRead = await token("researcher", ["read"]);
  tokens.researcherIngest = await token("researcher", ["ingest"]);
  tokens.annotatorRead = await token("annotator", ["read"]);
});

const path = (name: string) => `http://verity.test/api/v1/rewards/${encodeURIComponent(name)}/reruns`;
const ctx = (name: string) => ({ params: Promise.resolve({ name }) });
const auth = (t?: string): Record<string, string> => (t ? { authorization: `Bearer ${t}` } : {});

function post(body: unknown, t?: string, name = NAME) {
  const init = { method: "POST", headers: { "content-type": "application/json", ...auth(t) } };
  return POST(
    new Request(path(name), { ...init, body: typeof body === "string" ? body : JSON.stringify(body) }),
    ctx(name),
  );
}
const get = (t?: string, name = NAME) => GET(new Request(path(name), { headers: auth(t) }), ctx(name));

async function finished(id: number) {
  for (let i = 0; i < 200; i++) {
    const r = await rewardRun(pool, id);
    if (r && r.status !== "running") return r;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`reward run #${id} did not finish`);
}

describe("POST /api/v1/rewards/{name}/reruns", () => {
  it("needs an ingest token whose owner may ingest", async () => {
    expect((await post({ kind: "probe", run: RUN })).status).toBe(401);
    const read = await post({ kind: "probe", run: RUN }, tokens.researcherRead);
    expect([read.status, (await read.json()).error.code]).toEqual([403, "insufficient_scope"]);
    expect((await post({ kind: "probe", run: RUN }, tokens.researcherIngest)).status).toBe(403);
  });

  it("starts a probe over the audited rollouts, and GET reads its report back", async () => {
    const res = await post({ kind: "probe", run: RUN, sample: 2 }, tokens.admin);
    expect(res.status).toBe(202);
    const started = await res.json();
    expect(started).toMatchObject({ kind: "probe", version: 1, resumed: false, total: 2 });
    expect(await finished(started.reward_run)).toMatchObject({ status: "done", kind: "probe", done: 2 });
    const retest = await (await post({ kind: "retest", run: RUN, fresh: true }, tokens.admin)).json();
    await finished(retest.reward_run);

    for (const t of [tokens.annotatorRead, tokens.admin.replace(/.$/, "x")])
      expect((await get(t)).status).not.toBe(200);
    const r = await get(tokens.researcherRead);
    expect(r.status).toBe(200);
    const body = await r.json();
    expect(body.runs).toHaveLength(1);
    expect(body.runs[0]).toMatchObject({
      runId: RUN,
      probe: { rewardRunId: started.reward_run, kind: "probe", moved: true, overall: { n: 16 } },
      retest: { rewardRunId: retest.reward_run, kind: "retest", moved: false, overall: { n: 3 } },
    });
  });

  it("refuses a bad body with the field named, an unknown function or run, and a run nobody audited", async () => {
    const cases: [unknown, number, string, RegExp][] = [
      ["{not json", 400, "bad_request", /The body is not JSON/],
      [{ run: RUN }, 400, "bad_request", /kind: "probe" or "retest"/],
      [{ kind: "probe" }, 400, "bad_request", /run: name the run/],
      [{ kind: "probe", run: RUN, sample: 0 }, 400, "bad_request", /sample: /],
      [{ kind: "probe", run: RUN, fresh: true }, 400, "bad_request", /fresh: a probe scores every rollout anew/],
      [{ kind: "retest", run: RUN, scope: { kind: "range" } }, 400, "bad_request", /scope/],
      [{ kind: "probe", run: "no-such-run" }, 404, "not_found", /there is no run "no-such-run"/],
      [{ kind: "probe", run: BARE }, 409, "conflict", /has no audited rollouts/],
      [{ kind: "probe", run: RUN, version: 9 }, 404, "not_found", /there is no reward function .* v9/],
    ];
    for (const [body, status, code, message] of cases) {
      const res = await post(body, tokens.admin);
      const json = await res.json();
      expect([JSON.stringify(body), res.status, json.error.code]).toEqual([JSON.stringify(body), status, code]);
      expect(json.error.message).toMatch(message);
    }
    const unknown = await post({ kind: "probe", run: RUN }, tokens.admin, "no-such-function");
    expect(unknown.status).toBe(404);
    expect((await get(tokens.admin, "no-such-function")).status).toBe(404);
  });
});
