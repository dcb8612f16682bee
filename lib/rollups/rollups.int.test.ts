import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "@/lib/db/client.ts";
import { demoRunValues } from "@/lib/demo/generate.ts";
import { loadExamples } from "@/lib/demo/seed.ts";
import { caseLine, externalScore, rolloutLine } from "@/lib/testing/ingest-fixtures.ts";
import { ingestValues } from "@/lib/ingest/ingest.ts";
import { freshDatabase, ingestText, ndjson, type TestDatabase } from "@/lib/testing/ingest-db.ts";
import { rescoreRun } from "@/lib/ledger/mutations.ts";
import { rollupDifferences } from "@/lib/rollups/compare.ts";
import { computeStepRollupsFromLedger, listGuardrailSeries, listStepRollups } from "@/lib/rollups/data.ts";
import { applyRollupDelta, RollupDelta, type RollupEntry } from "@/lib/ledger/store/rollups.ts";
import { parseVerifierConfig } from "@/lib/verifier/config.ts";

let t: TestDatabase;
beforeAll(async () => {
  t = await freshDatabase("rollups");
});
afterAll(async () => t?.drop());

async function differences(runId: string) {
  const client = createClient(t.url);
  return rollupDifferences(await listStepRollups(runId, {}, client), await computeStepRollupsFromLedger(runId, client));
}

describe("applyRollupDelta", () => {
  it("adds and subtracts entries into step, guardrail and group rows", async () => {
    const base: RollupEntry = {
      run_id: "delta",
      step: 5,
      group_id: "g1",
      status: "scored",
      source: "verifier",
      reward: 1,
      raw_reward: 1,
      capped: false,
      handoff: false,
      guardrail_mask: 0,
      deciding_guardrail: null,
      trained_reward: null,
    };
    const capped: RollupEntry = {
      ...base,
      reward: 0.3,
      raw_reward: 0.8,
      capped: true,
      guardrail_mask: (1 << 1) | (1 << 5),
      deciding_guardrail: "unauthorized_write",
    };
    // trained rewards: the capped entry's trainer saw its raw 0.8 (differs by 0.5), the hand-off's 0.6 (agrees)
    Object.assign(capped, { trained_reward: 0.8 });
    const handoff: RollupEntry = {
      ...base,
      group_id: "g2",
      reward: 0.6,
      raw_reward: 0.6,
      handoff: true,
      trained_reward: 0.6,
    };
    const specError: RollupEntry = {
      ...base,
      group_id: "g2",
      status: "spec_error",
      reward: null,
      raw_reward: null,
      handoff: null,
    };
    const first = new RollupDelta();
    for (const e of [base, capped, handoff, specError]) first.add(e, 1);
    // Rollups live in their run's partitions (014), which the run's creation makes, as ingest does.
    await t.pool.query("insert into runs (id) values ('delta')");
    const client = await t.pool.connect();
    try {
      // each in a transaction, as the writers of the ledger apply them (the rollups' writer is a transaction's)
      await client.query("begin");
      await applyRollupDelta(client, first);
      await client.query("commit");
      const second = new RollupDelta();
      second.add(handoff, -1);
      second.add({ ...handoff, reward: 0.9, handoff: false }, 1);
      await client.query("begin");
      await applyRollupDelta(client, second);
      await client.query("commit");
    } finally {
      client.release();
    }
    const [s] = await listStepRollups("delta", {}, createClient(t.url));
    // Hand-computed: rewards 1, 0.3, 0.9 (the hand-off re-scored to 0.9) and one spec error.
    expect(s).toMatchObject({
      step: 5,
      rollouts: 4,
      rewarded: 3,
      success: 2,
      handoffs: 0,
      guardrailHits: 1,
      capped: 1,
      specErrors: 1,
      external: 0,
    });
    expect(s.rewardSum).toBeCloseTo(2.2, 12);
    expect(s.rewardSumsq).toBeCloseTo(1 + 0.09 + 0.81, 12);
    expect(s.removedSum).toBeCloseTo(0.5, 12);
    expect(s.guardrails).toEqual({
      missing_evidence: { hits: 1, deciding: 0, removedSum: 0 },
      unauthorized_write: { hits: 1, deciding: 1, removedSum: expect.closeTo(0.5, 12) },
    });
    // Group g1 = {1, 0.3}: std 0.35; g2 = {0.9} alone does not count.
    expect(s.groups).toBe(1);
    expect(s.flatGroups).toBe(0);
    expect(s.groupStdSum).toBeCloseTo(0.35, 9);
    // The hand-off re-scored to 0.9 keeps its trained 0.6: now 0.3 apart. With the capped entry, 2 of 2 differ.
    expect({ trained: s.trained, trainedDiffers: s.trainedDiffers }).toEqual({ trained: 2, trainedDiffers: 2 });
    expect(s.trainedAbsDiffSum).toBeCloseTo(0.5 + 0.3, 12);
  });
});

describe("trained-reward rollups", () => {
  it("equal a direct SQL computation over the ledger, after ingests with trained rewards and a re-score", async () => {
    const run = "trn-roll";
    // Every rollout of a generated run with a trained reward: the verifier's own reward for even samples, a reward
    // off by a known amount for odd ones; some entries get theirs from an external record instead.
    const values = [...demoRunValues({ runId: run, tickets: 12, steps: 6, k: 4, seed: "tr", variant: "normal" })].map(
      (v) =>
        v.kind === "rollout"
          ? { ...v, trained_reward: Number(v.sample_index) % 2 === 0 ? undefined : 0.123 * Number(v.sample_index) }
          : v,
    );
    expect(await ingestValues(values, { pool: t.pool, batchLines: 250 })).toMatchObject({ ok: true, rejected: 0 });
    await ingestText(
      t.pool,
      ndjson([
        { ...externalScore("trn-roll/ext/1", "T-TR", 0.5, { run, step: 0 }), trained_reward: 0.5 },
        { ...externalScore("trn-roll/ext/2", "T-TR", 0.5, { run, step: 0 }), trained_reward: 0.75 },
        { ...externalScore("trn-roll/ext/3", "T-TR", 0.5, { run, step: 0 }), trained_reward: -1 },
      ]),
    );
    const direct = async () => {
      const { rows } = await t.pool.query<{ step: number; n: number; d: number; s: number }>(
        `select step, count(*) filter (where trained_reward is not null and reward is not null)::int as n,
                count(*) filter (where abs(trained_reward - reward) > 0.000001)::int as d,
                coalesce(sum(abs(trained_reward - reward)), 0)::float8 as s
           from ledger where run_id = $1 and is_current group by step order by step`,
        [run],
      );
      return rows;
    };
    const check = async () => {
      const rolled = await listStepRollups(run, {}, createClient(t.url));
      const want = await direct();
      expect(rolled.map((r) => r.step)).toEqual(want.map((w) => w.step));
      for (const [i, w] of want.entries()) {
        expect([rolled[i].trained, rolled[i].trainedDiffers]).toEqual([w.n, w.d]);
        expect(rolled[i].trainedAbsDiffSum).toBeCloseTo(w.s, 9);
      }
      expect(await differences(run)).toEqual([]);
      return want;
    };
    const before = await check();
    expect(before.reduce((a, w) => a + w.d, 0)).toBeGreaterThan(100);
    expect(before[0]).toMatchObject({ step: 0 });

    // A re-score moves rewards but keeps trained rewards: the counters follow the new rewards.
    const config = parseVerifierConfig({ guardrails: { missing_evidence: { on: false } }, handoff_outcome: 0.9 });
    if (!config.ok) throw new Error("config");
    const r = await rescoreRun(t.pool, { runId: run, config: config.config, batchSize: 50 });
    expect(r.reward_changed).toBeGreaterThan(0);
    const after = await check();
    expect(after).not.toEqual(before);
  });
});

describe("rollups kept in the ledger's transactions", () => {
  it("equal a full recomputation after mixed ingests and a re-score", async () => {
    const main = await ingestValues(
      demoRunValues({ runId: "mix", tickets: 18, steps: 8, k: 4, seed: "mx", variant: "hacking" }),
      { pool: t.pool, batchLines: 333 },
    );
    expect(main).toMatchObject({ ok: true, rejected: 0 });
    const examples = (loadExamples() as Record<string, unknown>[]).map((e) => ({
      ...e,
      run_id: "mix",
      trajectory_id: `mix-${e.trajectory_id}`,
    }));
    await ingestValues(examples, { pool: t.pool }); // includes a spec error
    await ingestText(
      t.pool,
      ndjson([
        caseLine("T-M"),
        externalScore("mix/ext/1", "T-M", 0.95, { run: "mix", step: 0 }),
        externalScore("mix/ext/2", "T-M", 0.2, {
          run: "mix",
          step: 0,
          guardrails: [{ code: "customer_harm", cap: 0.2 }, "policy_error"],
        }),
        rolloutLine("mix/nocase", "T-NONE", { run: "mix", step: 1 }),
      ]),
    );
    await ingestText(
      t.pool,
      ndjson([
        { input: "Where is my parcel?", trajectory: { root: { output: "On its way." }, steps: [] }, reward: 0.4 },
      ]),
      { format: "platform", defaults: { run: "mix", step: 2 } },
    );
    expect(await differences("mix")).toEqual([]);

    const config = parseVerifierConfig({
      guardrails: { empty_promise: { cap: 0.1 }, missing_evidence: { on: false } },
      handoff_outcome: 0.9,
    });
    if (!config.ok) throw new Error("config");
    const r = await rescoreRun(t.pool, { runId: "mix", config: config.config, batchSize: 97 });
    expect(r.rescored).toBeGreaterThan(500);
    expect(r.reward_changed).toBeGreaterThan(0);
    expect(await differences("mix")).toEqual([]);

    const rows = await listStepRollups("mix", {}, createClient(t.url));
    expect(rows.map((x) => x.step)).toEqual([...new Set(rows.map((x) => x.step))].sort((a, b) => a - b));
    const series = await listGuardrailSeries("mix", "unauthorized_write", createClient(t.url));
    expect(series.map((x) => x.step)).toEqual(rows.map((x) => x.step));
    expect(series.map((x) => x.hits)).toEqual(rows.map((x) => x.guardrails.unauthorized_write?.hits ?? 0));
  });
});
