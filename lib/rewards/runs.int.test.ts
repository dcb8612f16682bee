// Reward functions against the real database: versions append-only; a run's results stored (reward only when ok),
// reused for the same content, computed again on request, resumed after an interruption, cancelled; a run over a
// shadow-audit batch's items; failures stored with their status, never as 0.
import { describe, expect, it } from "vitest";
import { createBatch } from "@/lib/audit/mutations.ts";
import { clientOver, db } from "@/lib/db/client.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import { addRewardVersion } from "@/lib/rewards/mutations.ts";
import { cancelRewardRun, executeRewardRun, startRewardRun, type RunProgress } from "@/lib/rewards/runs.ts";
import { rewardRun, runResults } from "@/lib/rewards/run-data.ts";
import { versionDocument, type VersionDocument } from "@/lib/rewards/schema.ts";
import { tryVersion } from "@/lib/rewards/try-it.ts";
import { seedRun, uniqueName } from "@/lib/testing/audit-data.ts";
import { sandboxAvailability } from "@/lib/rewards/sandbox/index.ts";

const url = process.env.DATABASE_URL!;
const pool = bulkPool(url);
const ACTOR = { label: "test" };

const doc = versionDocument;

const RULES = doc({
  components: [
    { kind: "format", name: "says refunded", weight: 0.2, pattern: "refunded" },
    {
      kind: "exact_match",
      name: "amount",
      weight: 0.8,
      pattern: "refunded (\\S+) EUR",
      reference: "$order.paid_amount",
    },
  ],
});

async function version(d: VersionDocument) {
  return (await addRewardVersion({ name: uniqueName("fn"), doc: d, reason: "test" }, ACTOR, clientOver(pool))).version;
}

async function resultRows(runId: string, rewardRunId?: number) {
  const { rows } = await pool.query(
    `select rollout_id::text, status, reward, error, components from reward_results
      where run_id = $1 and ($2::int is null or reward_run_id = $2) order by id`,
    [runId, rewardRunId ?? null],
  );
  return rows;
}

async function runAll(versionId: number, runId: string, scope = { kind: "range" as const }, fresh = false) {
  const s = await startRewardRun(pool, { versionId, runId, scope, fresh }, ACTOR);
  const seen: RunProgress[] = [];
  const p = await executeRewardRun(pool, s.id, { pageSize: 2, onProgress: (x) => void seen.push(x) });
  return { ...s, p, seen };
}

describe("reward function versions", () => {
  it("are append-only: the same document is unchanged, a new one is the next version, rows never change", async () => {
    const name = uniqueName("fn");
    const a = await addRewardVersion({ name, doc: RULES, reason: "first" }, ACTOR, clientOver(pool));
    const again = await addRewardVersion({ name, doc: RULES, reason: "again" }, ACTOR, clientOver(pool));
    expect([a.status, again.status, again.version.id]).toEqual(["created", "unchanged", a.version.id]);
    const b = await addRewardVersion(
      { name, doc: doc({ components: [{ kind: "format", pattern: "x" }] }), reason: "second" },
      ACTOR,
      clientOver(pool),
    );
    expect([b.status, b.version.version]).toEqual(["created", 2]);
    await expect(
      pool.query("update reward_function_versions set reason = 'x' where id = $1", [a.version.id]),
    ).rejects.toThrow(/append-only: rows cannot be changed/);
    await expect(pool.query("delete from reward_function_versions where id = $1", [a.version.id])).rejects.toThrow(
      /append-only: rows cannot be deleted/,
    );
    await expect(pool.query("update reward_functions set name = 'y' where name = $1", [name])).rejects.toThrow(
      /append-only/,
    );
    const log = await db().activityLog.findMany({
      where: { action: "reward.version_create", targetId: { in: [String(a.version.id), String(b.version.id)] } },
    });
    expect(log).toHaveLength(2);
  });
});

describe("a reward run", () => {
  it("stores each rollout's reward and components, reuses them for the same content, and computes them again on request", async () => {
    const runId = uniqueName("rw");
    await seedRun(url, { runId, tickets: 3, perTicket: 2 });
    const v = await version(RULES);
    const first = await runAll(v.id, runId);
    expect(first.p).toMatchObject({ status: "done", done: 6, total: 6, reused: 0, failed: 0 });
    expect(first.seen.map((s) => s.done)).toEqual([2, 4, 6, 6]);
    const rows = await resultRows(runId);
    expect(rows).toHaveLength(6);
    for (const r of rows) {
      expect([r.status, r.reward]).toEqual(["ok", 1]);
      expect(r.components.map((c: { name: string; value: number }) => [c.name, c.value])).toEqual([
        ["says refunded", 1],
        ["amount", 1],
      ]);
    }
    const again = await runAll(v.id, runId);
    expect(again.p).toMatchObject({ status: "done", done: 6, reused: 6 });
    expect(await resultRows(runId)).toHaveLength(6);
    const fresh = await runAll(v.id, runId, { kind: "range" }, true);
    expect(fresh.p).toMatchObject({ done: 6, reused: 0 });
    expect(await resultRows(runId, fresh.id)).toHaveLength(6);
    expect(await rewardRun(pool, first.id)).toMatchObject({ status: "done", done: 6, total: 6, interrupted: false });
    expect((await runResults(pool, { id: first.id, runId }, { limit: 4 })).map((r) => r.trajectoryId)).toHaveLength(4);
  });

  it("resumes an interrupted run where it stopped, and stops at a cancel", async () => {
    const runId = uniqueName("rw");
    await seedRun(url, { runId, tickets: 3, perTicket: 2 });
    const v = await version(RULES);
    const s = await startRewardRun(pool, { versionId: v.id, runId, scope: { kind: "range" } }, ACTOR);
    const p = await executeRewardRun(pool, s.id, {
      pageSize: 2,
      onProgress: async () => {
        await cancelRewardRun(pool, s.id, ACTOR);
      },
    });
    expect(p).toMatchObject({ status: "cancelled", done: 4 });
    expect(await resultRows(runId, s.id)).toHaveLength(4);
    // A process that died mid-run leaves the row running with an old heartbeat.
    await pool.query(
      `update reward_runs set status = 'running', cancel_requested_at = null, heartbeat_at = now() - interval '5 minutes'
        where id = $1`,
      [s.id],
    );
    expect(await rewardRun(pool, s.id)).toMatchObject({ interrupted: true });
    const resumed = await startRewardRun(pool, { versionId: v.id, runId, scope: { kind: "range" } }, ACTOR);
    expect(resumed).toMatchObject({ id: s.id, resumed: true });
    const end = await executeRewardRun(pool, s.id, { pageSize: 2 });
    expect(end).toMatchObject({ status: "done", done: 6 });
    const rows = await resultRows(runId, s.id);
    expect(new Set(rows.map((r) => r.rollout_id)).size).toBe(6);
    expect(rows).toHaveLength(6);
  });

  it("covers a shadow-audit batch's items, and one ticket", async () => {
    const runId = uniqueName("rw");
    await seedRun(url, { runId, tickets: 4, perTicket: 2 });
    const b = await createBatch(
      { runId, stepFrom: 0, stepTo: 100, rate: 1, salt: "x", pick: "one", overlapRate: 0, tolerance: 0.1 },
      ACTOR,
    );
    if (!b.ok) throw new Error(b.error);
    const v = await version(RULES);
    const r = await runAll(v.id, runId, { kind: "batch", batch: b.batchId } as never);
    expect(r.p).toMatchObject({ status: "done", total: b.items, done: b.items });
    const items = await pool.query("select rollout_id::text from audit_items where batch_id = $1 order by 1", [
      b.batchId,
    ]);
    expect((await resultRows(runId)).map((x) => x.rollout_id).sort()).toEqual(items.rows.map((x) => x.rollout_id));
    const t = await runAll(v.id, runId, { kind: "ticket", ticket: `${runId}/T1` } as never);
    expect(t.p.total).toBe(2);
    await expect(
      startRewardRun(pool, { versionId: v.id, runId: "no-such-run", scope: { kind: "range" } }, ACTOR),
    ).rejects.toThrow(/there is no run "no-such-run"/);
  });

  it("stores failures with their status and no reward, and the database refuses a failure recorded as 0", async () => {
    const runId = uniqueName("rw");
    await seedRun(url, { runId, tickets: 1, perTicket: 2 });
    const v = await version(
      doc({
        components: [
          { kind: "format", pattern: "x" },
          { kind: "math", reference: "$order.currency" },
        ],
      }),
    );
    await runAll(v.id, runId);
    const rows = await resultRows(runId);
    expect(rows.map((r) => [r.status, r.reward])).toEqual([
      ["error", null],
      ["error", null],
    ]);
    expect(rows[0].error).toMatch(/math#2: the reference "EUR" is not a number/);
    const judge = await version(
      doc({
        components: [{ kind: "judge", rubric: "x", endpoint: "http://127.0.0.1:9/v1", model: "m", timeout_ms: 200 }],
      }),
    );
    const j = await runAll(judge.id, runId);
    expect(j.p.failed).toBe(2);
    const jr = await resultRows(runId, j.id);
    expect(jr.every((r) => r.reward === null && r.status === "error")).toBe(true);
    const again = await runAll(judge.id, runId);
    expect(again.p).toMatchObject({ reused: 0, failed: 2 });
    await expect(
      pool.query(
        `insert into reward_results (run_id, reward_run_id, version_id, rollout_id, step, ticket_id, reward, components,
                                     status, latency_ms, input_hash)
         select run_id, reward_run_id, version_id, rollout_id, step, ticket_id, 0, '[]', 'error', 1, 'h'
           from reward_results where run_id = $1 limit 1`,
        [runId],
      ),
    ).rejects.toThrow(/reward_results_reward_iff_ok/);
    await expect(pool.query("update reward_results set error = 'x' where run_id = $1", [runId])).rejects.toThrow(
      /append-only/,
    );
  });

  it.skipIf(!sandboxAvailability().ok)(
    "runs code in the sandbox: a reward printed, an exception its error",
    async () => {
      const runId = uniqueName("rw");
      const [trajectory] = await seedRun(url, { runId, tickets: 1, perTicket: 1 });
      const ok = doc({
        components: [
          {
            kind: "code",
            source:
              "import json\ndef cal_reward(payload):\n    p = json.loads(payload)\n    print(1.0 if '59.99' in p['trajectory']['root']['output'] else 0.0)\n",
          },
        ],
      });
      const r = await tryVersion(pool, ok, trajectory);
      expect(r.ok && [r.outcome.status, r.outcome.reward]).toEqual(["ok", 1]);
      const raising = doc({
        components: [{ kind: "code", source: "def cal_reward(payload):\n    raise ValueError('broken')\n" }],
      });
      const bad = await tryVersion(pool, raising, trajectory);
      expect(bad.ok && [bad.outcome.status, bad.outcome.reward]).toEqual(["error", null]);
      expect(bad.ok && bad.outcome.error).toMatch(/broken/);
    },
  );
});
