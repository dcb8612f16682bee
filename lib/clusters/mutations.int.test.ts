import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "@/lib/db/client.ts";
import { listClusterStates } from "@/lib/clusters/detail-data.ts";
import { setClusterState } from "@/lib/clusters/mutations.ts";
import { clusterStateInput } from "@/lib/clusters/schema.ts";
import { freshDatabase, type TestDatabase } from "@/lib/testing/ingest-db.ts";

let t: TestDatabase;
let client: ReturnType<typeof createClient>;
let lead: { userId: number; email: string };

beforeAll(async () => {
  t = await freshDatabase("cluster_states");
  client = createClient(t.url);
  await client.run.create({ data: { id: "r1" } });
  const u = await client.user.create({ data: { email: "lead@test.local", role: "lead" } });
  lead = { userId: u.id, email: u.email };
});
afterAll(async () => {
  await client?.$disconnect();
  await t?.drop();
});

const input = (o: Record<string, unknown>) =>
  clusterStateInput.parse({ run: "r1", key: "empty_promise", status: "open", ...o });

describe("setClusterState", () => {
  it("persists status, pin and note per run and cluster key, and audits every change with before and after", async () => {
    expect(
      await setClusterState(
        input({ status: "data_requested", pinned: "on", note: "build 200 refund cases" }),
        lead,
        client,
      ),
    ).toEqual({ ok: true, changed: true });
    expect(await setClusterState(input({ status: "fixed", note: "spec v2 requires the write" }), lead, client)).toEqual(
      { ok: true, changed: true },
    );
    const states = await listClusterStates("r1", client);
    expect(states.get("empty_promise")).toMatchObject({
      status: "fixed",
      pinned: false,
      note: "spec v2 requires the write",
      updatedBy: "lead@test.local",
    });
    const log = await client.activityLog.findMany({ where: { action: "cluster.update" }, orderBy: { id: "asc" } });
    expect(log.map((l) => [l.actorLabel, l.targetType, l.targetId])).toEqual([
      ["lead@test.local", "cluster", "r1/empty_promise"],
      ["lead@test.local", "cluster", "r1/empty_promise"],
    ]);
    expect(log[1].details).toEqual({
      run: "r1",
      key: "empty_promise",
      before: { pinned: true, status: "data_requested", note: "build 200 refund cases" },
      after: { pinned: false, status: "fixed", note: "spec v2 requires the write" },
    });
  });

  it("writes nothing when nothing changed, and refuses an unknown run", async () => {
    const before = await client.activityLog.count();
    expect(await setClusterState(input({ status: "fixed", note: "spec v2 requires the write" }), lead, client)).toEqual(
      { ok: true, changed: false },
    );
    expect(await client.activityLog.count()).toBe(before);
    expect(await setClusterState({ ...input({}), run: "nope" }, lead, client)).toEqual({
      ok: false,
      error: 'There is no run "nope".',
    });
  });

  it("rejects keys that are not cluster signatures and unknown statuses", () => {
    expect(clusterStateInput.safeParse({ run: "r1", key: "drop table", status: "open" }).success).toBe(false);
    expect(clusterStateInput.safeParse({ run: "r1", key: "empty_promise", status: "done" }).success).toBe(false);
  });
});
