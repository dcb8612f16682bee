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
import { applyRollupDelta, RollupDelta, type RollupEntry } from "@/lib/rollups/mutations.ts";
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
    };
    const capped: RollupEntry = {
      ...base,
      reward: 0.3,
      raw_reward: 0.8,
      capped: true,
      guardrail_mask: (1 << 1) | (1 << 5),
      deciding_guardrail: "unauthorized_write",
    };
    const handoff: RollupEntry = { ...base, group_id: "g2", reward: 0.6, raw_reward: 0.6, handoff: true };
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
      await applyRollupDelta(client, first);
      const second = new RollupDelta();
      second.add(handoff, -1);
      second.add({ ...handoff, reward: 0.9, handoff: false }, 1);
      await applyRollupDelta(client, second);
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
