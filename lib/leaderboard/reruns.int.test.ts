// Probe and retest runs against the real database: a probe stores each rollout as it is and with each injected line,
// every probed result paired with its original in the same run; the rule verifier's probe moves nothing but its
// communication sub-score while a judge's moves; a probe resumes after an interruption and stops at a cancel; probed
// results are never reused as a rollout's result; a retest pairs each rollout's second result with the stored one (or
// scores it twice when fresh); the leaderboard's pairs and the reports read them back.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBatch } from "@/lib/audit/mutations.ts";
import { clientOver } from "@/lib/db/client.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import { loadHoldsUp, loadRerunPairs, loadRerunReport } from "@/lib/leaderboard/reruns.ts";
import { addRewardVersion } from "@/lib/rewards/mutations.ts";
import { PROBE_LINES } from "@/lib/rewards/probes.ts";
import { rewardRun } from "@/lib/rewards/run-data.ts";
import type { RunKind } from "@/lib/rewards/run-pages.ts";
import { cancelRewardRun, executeRewardRun, startRewardRun } from "@/lib/rewards/runs.ts";
import { versionDocument, type RunScope } from "@/lib/rewards/schema.ts";
import { scopeTotal } from "@/lib/rewards/scope.ts";
import { latestResults } from "@/lib/rewards/store.ts";
import { seedRun, uniqueName } from "@/lib/testing/audit-data.ts";
import { completion, startFakeLlm, type FakeLlm } from "@/lib/testing/fake-llm-server.ts";

const url = process.env.DATABASE_URL!;
const pool = bulkPool(url);
const ACTOR = { label: "test" };
const LINES = PROBE_LINES.length;

const VERIFIER = versionDocument({ components: [{ kind: "verifier" }] });
const JUDGE = versionDocument({ components: [{ kind: "judge", rubric: "resolve the ticket", simulated: true }] });

async function version(doc: typeof VERIFIER, name = uniqueName("fn")) {
  return (await addRewardVersion({ name, doc, reason: "test" }, ACTOR, clientOver(pool))).version;
}

/** A run of `tickets` tickets × 2 rollouts (every third ticket an empty promise) and a batch over all of them. */
async function auditedRun(tickets = 3) {
  const runId = uniqueName("rr");
  await seedRun(url, { runId, tickets, perTicket: 2, variant: (i) => (i % 3 === 1 ? "empty_promise" : "honest") });
  const b = await createBatch(
    { runId, stepFrom: 0, stepTo: 100, rate: 1, salt: "x", pick: "all", overlapRate: 0, tolerance: 0.1 },
    ACTOR,
  );
  if (!b.ok) throw new Error(b.error);
  return { runId, batch: b.batchId, scope: { kind: "batch", batch: b.batchId } as RunScope };
}

async function run(versionId: number, runId: string, scope: RunScope, kind: RunKind, fresh = false) {
  const s = await startRewardRun(pool, { versionId, runId, scope, kind, fresh }, ACTOR);
  return { ...s, p: await executeRewardRun(pool, s.id, { pageSize: 2 }) };
}

type Row = {
  id: string;
  rollout_id: string;
  probe_line: string | null;
  paired_with: string | null;
  reward: number | null;
  components: { detail: { subscores?: Record<string, number>; guardrails?: string[] } }[];
};

async function rowsOf(runId: string, rewardRunId: number): Promise<Row[]> {
  const { rows } = await pool.query<Row>(
    `select id::text, rollout_id::text, probe_line, paired_with::text, reward, components from reward_results
      where run_id = $1 and reward_run_id = $2 order by id`,
    [runId, rewardRunId],
  );
  return rows;
}

describe("an injection probe run", () => {
  it("stores each rollout as it is and with each line, paired in the run; the verifier moves nothing but communication", async () => {
    const { runId, scope } = await auditedRun();
    const v = await version(VERIFIER);
    const probe = await run(v.id, runId, scope, "probe");
    expect(probe.p).toMatchObject({ status: "done", done: 6, total: 6, failed: 0 });
    expect((await rewardRun(pool, probe.id))?.kind).toBe("probe");
    const rows = await rowsOf(runId, probe.id);
    expect(rows).toHaveLength(6 * (1 + LINES));
    const originals = new Map(rows.filter((r) => r.probe_line === null).map((r) => [r.id, r]));
    expect(originals.size).toBe(6);
    for (const r of rows.filter((x) => x.probe_line !== null)) {
      const o = originals.get(r.paired_with!)!;
      expect(o.rollout_id).toBe(r.rollout_id);
      const [a, b] = [o.components[0].detail, r.components[0].detail];
      expect({ ...b.subscores, communication: 0 }).toEqual({ ...a.subscores, communication: 0 });
      expect(b.guardrails).toEqual(a.guardrails);
    }
    expect(new Set(rows.map((r) => r.probe_line))).toEqual(new Set([null, ...PROBE_LINES.map((l) => l.id)]));
    const pairs = await loadRerunPairs(pool, runId, v.id);
    expect([pairs.probe.length, pairs.retest.length]).toEqual([6 * LINES, 0]);
    // each pair names its rollout, so the overall intervals count a rollout's lines together
    expect(pairs.probe.map((p) => p.rollout).sort()).toEqual(
      rows
        .filter((r) => r.probe_line !== null)
        .map((r) => r.rollout_id)
        .sort(),
    );
    const report = await loadRerunReport(pool, probe.id);
    expect(report).toMatchObject({ kind: "probe", moved: false });
    expect(report!.overall.flips.k).toBe(0);
  });

  it("moves a judge: the lines that ask for full marks flip every verdict, the cancellation claim none", async () => {
    const { runId, scope } = await auditedRun();
    const v = await version(JUDGE);
    const probe = await run(v.id, runId, scope, "probe");
    const report = (await loadRerunReport(pool, probe.id))!;
    expect(report.moved).toBe(true);
    const byLine = Object.fromEntries(report.lines.map((l) => [l.line.id, l.summary]));
    // Every reply reads "I have refunded 59.99 EUR …": the simulated judge gives 0.75, and 1 to a reply asking for it.
    for (const id of ["instruction-en", "instruction-zh", "fake-system-en", "fake-system-zh"]) {
      expect([id, byLine[id].n, byLine[id].flips.k, byLine[id].meanShift.value]).toEqual([id, 6, 6, 0.25]);
      expect(byLine[id].moved).toBe(true);
    }
    for (const id of ["refund-claim-en", "resolved-claim-zh"]) {
      expect([id, byLine[id].flips.k, byLine[id].meanShift.value, byLine[id].moved]).toEqual([id, 0, 0, false]);
    }
    expect([report.overall.n, report.overall.rollouts, report.overall.flips.k]).toEqual([6 * LINES, 6, 24]);
    // A plain run afterwards reuses the originals and never a probed result.
    const ids = (await rowsOf(runId, probe.id)).map((r) => r.rollout_id);
    const latest = await latestResults(pool, runId, v.id, [...new Set(ids)]);
    const probed = new Set((await rowsOf(runId, probe.id)).filter((r) => r.probe_line).map((r) => r.id));
    expect([...latest.values()].some((l) => probed.has(l.id))).toBe(false);
    const plain = await run(v.id, runId, scope, "plain");
    expect(plain.p).toMatchObject({ done: 6, reused: 6 });
    const holds = await loadHoldsUp(pool, v.name);
    expect(holds).toHaveLength(1);
    expect(holds[0]).toMatchObject({ runId, probe: { rewardRunId: probe.id, version: 1, moved: true }, retest: null });
  });

  it("resumes where it stopped and stops at a cancel, each rollout's rows stored together", async () => {
    const { runId, scope } = await auditedRun();
    const v = await version(JUDGE);
    const s = await startRewardRun(pool, { versionId: v.id, runId, scope, kind: "probe" }, ACTOR);
    const p = await executeRewardRun(pool, s.id, {
      pageSize: 2,
      onProgress: async () => {
        await cancelRewardRun(pool, s.id, ACTOR);
      },
    });
    expect(p).toMatchObject({ status: "cancelled", done: 4 });
    expect(await rowsOf(runId, s.id)).toHaveLength(4 * (1 + LINES));
    await pool.query(
      `update reward_runs set status = 'running', cancel_requested_at = null, heartbeat_at = now() - interval '5 minutes'
        where id = $1`,
      [s.id],
    );
    // A plain run of the same scope is another run; the probe resumes its own.
    const again = await startRewardRun(pool, { versionId: v.id, runId, scope, kind: "probe" }, ACTOR);
    expect(again).toMatchObject({ id: s.id, resumed: true });
    expect(await executeRewardRun(pool, s.id, { pageSize: 2 })).toMatchObject({ status: "done", done: 6 });
    const rows = await rowsOf(runId, s.id);
    expect(rows).toHaveLength(6 * (1 + LINES));
    const perRollout = new Map<string, number>();
    for (const r of rows) perRollout.set(r.rollout_id, (perRollout.get(r.rollout_id) ?? 0) + 1);
    expect([...perRollout.values()]).toEqual(Array(6).fill(1 + LINES));
  });
});

describe("a retest run", () => {
  let llm: FakeLlm;
  beforeAll(async () => {
    // Scores drift between calls: the first six answers (n counts from 1) 0.95, the rest 0.6 (a judge whose verdicts flip).
    llm = await startFakeLlm((_req, n) => ({ body: completion({ score: n <= 6 ? 0.95 : 0.6, reason: "r" }) }));
  });
  afterAll(() => llm.close());

  it("pairs each rollout's second result with the stored one, reusing nothing; fresh scores both", async () => {
    const { runId, scope } = await auditedRun();
    const v = await version(
      versionDocument({ components: [{ kind: "judge", rubric: "r", endpoint: llm.baseUrl, model: "m" }] }),
    );
    const first = await run(v.id, runId, scope, "plain");
    expect(first.p).toMatchObject({ done: 6, failed: 0 });
    const retest = await run(v.id, runId, scope, "retest");
    expect(retest.p).toMatchObject({ status: "done", done: 6, reused: 6 });
    expect(llm.requests).toHaveLength(12);
    const firstIds = new Set((await rowsOf(runId, first.id)).map((r) => r.id));
    const seconds = await rowsOf(runId, retest.id);
    expect(seconds).toHaveLength(6);
    expect(seconds.every((r) => firstIds.has(r.paired_with!) && r.probe_line === null)).toBe(true);
    const pairs = await loadRerunPairs(pool, runId, v.id);
    expect(pairs.retest.map(({ first, second }) => ({ first, second }))).toEqual(
      Array(6).fill({ first: 0.95, second: 0.6 }),
    );
    expect(new Set(pairs.retest.map((p) => p.rollout)).size).toBe(6);
    const report = (await loadRerunReport(pool, retest.id))!;
    expect([report.kind, report.overall.flips.k, report.overall.agreement.k, report.moved]).toEqual([
      "retest",
      6,
      0,
      true,
    ]);
    expect(report.overall.mae.value).toBeCloseTo(0.35, 12);

    const fresh = await run(v.id, runId, scope, "retest", true);
    expect(fresh.p).toMatchObject({ done: 6, reused: 0 });
    const both = await rowsOf(runId, fresh.id);
    expect(both).toHaveLength(12);
    const own = new Set(both.filter((r) => r.paired_with === null).map((r) => r.id));
    expect(both.filter((r) => r.paired_with !== null).every((r) => own.has(r.paired_with!))).toBe(true);
    expect((await loadRerunPairs(pool, runId, v.id)).retest.map(({ first, second }) => ({ first, second }))).toEqual(
      Array(6).fill({ first: 0.6, second: 0.6 }),
    );
  });
});

describe("the audited scope", () => {
  it("covers the ticket items a human reviewed, all or a reproducible sample", async () => {
    const { runId, batch } = await auditedRun(4);
    await pool.query(
      `update audit_items set reviews_done = 1 where batch_id = $1 and id in
         (select id from audit_items where batch_id = $1 order by id limit 5)`,
      [batch],
    );
    expect(await scopeTotal(pool, runId, { kind: "audited", salt: "audited" })).toBe(5);
    expect(await scopeTotal(pool, runId, { kind: "audited", n: 3, salt: "audited" })).toBe(3);
    const v = await version(JUDGE);
    const a = await run(v.id, runId, { kind: "audited", n: 3, salt: "s" }, "probe");
    const b = await run(v.id, runId, { kind: "audited", n: 3, salt: "s" }, "retest");
    const rollouts = async (id: number) => [...new Set((await rowsOf(runId, id)).map((r) => r.rollout_id))].sort();
    expect(await rollouts(a.id)).toHaveLength(3);
    expect(await rollouts(b.id)).toEqual(await rollouts(a.id));
  });
});
