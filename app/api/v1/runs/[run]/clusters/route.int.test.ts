import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { createApiToken, createUser } from "@/lib/admin/mutations.ts";
import { ingestKnownLedger } from "@/lib/testing/clusters-data.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import { GET } from "@/app/api/v1/runs/[run]/clusters/route.ts";

// The known ledger (lib/testing/clusters-data.ts) under a run and tickets of its own in the shared test database.
const run = `clu-api-${randomBytes(4).toString("hex")}`;
let read: string;
let ingestOnly: string;

const get = (path: string, token?: string) =>
  GET(
    new Request(`http://verity.test/api/v1/runs/${encodeURIComponent(run)}/clusters${path}`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
    }),
    {
      params: Promise.resolve({ run: encodeURIComponent(run) }),
    },
  );

beforeAll(async () => {
  await ingestKnownLedger(bulkPool(), run, `${run}-`);
  const email = `admin-${randomBytes(5).toString("hex")}@test.local`;
  const u = await createUser({ email, name: "", role: "admin", password: "a long enough password" }, { label: "test" });
  if (!u.ok) throw new Error(u.error);
  read = (await createApiToken({ name: "clusters-read", scopes: ["read"] }, { userId: u.id, email })).token;
  ingestOnly = (await createApiToken({ name: "clusters-ingest", scopes: ["ingest"] }, { userId: u.id, email })).token;
});

describe("GET /api/v1/runs/{run}/clusters", () => {
  it("needs a token with the read scope", async () => {
    expect((await get("")).status).toBe(401);
    expect((await get("", ingestOnly)).status).toBe(403);
  });

  it("returns the JSON report: ranked clusters with trends, signatures, examples, phrasings and the blind spot", async () => {
    const res = await get("", read);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({
      kind: "cluster_report",
      run_id: run,
      step_from: 0,
      step_to: 3000,
      threshold: 0.5,
      rollouts: 36,
      population: 14,
      unscored: 1,
    });
    expect(body.clusters.map((c: { key: string }) => c.key)).toEqual([
      "empty_promise",
      "unauthorized_write",
      "weakest:outcome",
    ]);
    const ep = body.clusters[0];
    expect(ep).toMatchObject({
      rank: 1,
      size: 6,
      tickets: 1,
      mean_reward: 0.2,
      estimated: false,
      state: { status: "open", pinned: false },
    });
    expect(ep.trend.shares).toEqual([3 / 9, 2 / 9, 1 / 8, 0].map((x) => Math.round(x * 1e6) / 1e6));
    expect(ep.trend.slope_per_step).toBeLessThan(0);
    expect(ep.trajectories).toBe(`/trajectories?run=${run}&reward_below=0.5&deciding=empty_promise`);
    expect(ep.examples).toHaveLength(5);
    expect(ep.phrasings.groups[0]).toMatchObject({ count: 4 });
    expect(ep.signatures.find((s: { code: string }) => s.code === "empty_promise")).toMatchObject({
      size: 6,
      of_parent: 1,
    });
    expect(body.blind_spot).toMatchObject({ key: "blind_spot:handoff_no_write", size: 6, tickets: 1 });
    expect(body.blind_spot.trend.slope_per_step).toBeGreaterThan(0);
    expect(body.cofired).toEqual([
      expect.objectContaining({ key: "cofired:unauthorized_write+missing_evidence", size: 2 }),
    ]);
  });

  it("takes the step window and the threshold from the query, and refuses bad ones", async () => {
    const body = await (await get("?step_from=1000&step_to=2000&threshold=0.25&phrasings=0", read)).json();
    expect(body).toMatchObject({ step_from: 1000, step_to: 2000, threshold: 0.25, rollouts: 17 });
    expect(body.clusters.map((c: { key: string; size: number }) => [c.key, c.size])).toEqual([["empty_promise", 3]]);
    expect(body.clusters[0].phrasings).toBeUndefined();
    const bad = await get("?step_from=9&step_to=1&threshold=2&colour=red", read);
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.message).toMatch(/unknown parameter "colour"/);
    const missing = await GET(
      new Request("http://verity.test/api/v1/runs/nope/clusters", { headers: { authorization: `Bearer ${read}` } }),
      { params: Promise.resolve({ run: "nope" }) },
    );
    expect(missing.status).toBe(404);
  });

  it("exports a cluster as the NDJSON data backlog", async () => {
    const res = await get(`?export=${encodeURIComponent("cofired:unauthorized_write+missing_evidence")}`, read);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/ndjson/);
    const lines = (await res.text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.kind)).toEqual(["cluster", "signature", "ticket", "case", "example", "example"]);
    expect(lines[0]).toMatchObject({
      run_id: run,
      key: "cofired:unauthorized_write+missing_evidence",
      size: 2,
      tickets: 1,
      mean_reward: 0.3,
    });
    expect(lines[1]).toEqual({
      kind: "signature",
      code: "required_read_missing",
      tool: "order.get",
      field: "required_reads.0",
      rollouts: 2,
    });
    expect(lines[2]).toMatchObject({ ticket_id: `${run}-T-UW`, category: "cancel_order", rollouts: 2 });
    expect(lines[3].ticket.id).toBe(`${run}-T-UW`);
    expect(lines[3].verifier_spec).toBeTruthy();
    expect(lines[4]).toMatchObject({ kind: "example", reward: 0.3, raw_reward: 0.8, final_reply: null });
  });
});
