import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "@/lib/db/client.ts";
import { computeClusterReport, loadFullReport } from "@/lib/clusters/loaders.ts";
import { demoRunValues } from "@/lib/demo/generate.ts";
import { describeRun } from "@/lib/demo/seed.ts";
import { ingestValues } from "@/lib/ingest/ingest.ts";
import { freshDatabase, type TestDatabase } from "@/lib/testing/ingest-db.ts";

// The demo generator's two variants on the same tickets (a smaller "small" demo size: 48 tickets × 30 steps × 4):
// what a lead should see on the clusters page of the demo data.
let t: TestDatabase;
let client: ReturnType<typeof createClient>;
const spec = { tickets: 48, steps: 30, k: 4, seed: "7" };

beforeAll(async () => {
  t = await freshDatabase("clusters_demo");
  client = createClient(t.url);
  for (const [runId, variant] of [
    ["grpo-main", "normal"],
    ["grpo-hacking", "hacking"],
  ] as const) {
    await describeRun(t.pool, runId, variant);
    const s = await ingestValues(demoRunValues({ runId, variant, ...spec }), { pool: t.pool, batchLines: 4000 });
    if (!s.ok || s.rejected) throw new Error(`demo ingest failed: ${s.error}`);
  }
}, 180_000);
afterAll(async () => {
  await client?.$disconnect();
  await t?.drop();
});

describe("the clusters of the demo runs", () => {
  it("surface empty promises as a cluster of their own, shrinking with training", async () => {
    const r = await computeClusterReport({ runId: "grpo-main", threshold: 0.5 }, client);
    const ep = r.clusters.find((c) => c.key === "empty_promise")!;
    expect(ep.size).toBeGreaterThan(50);
    expect(ep.trend.late!).toBeLessThan(ep.trend.early!);
    expect(ep.signatures.some((s) => s.signature.code === "empty_promise")).toBe(true);
  });

  it("surface missing evidence early in training: present in the population early, rare late, co-firing with writes", async () => {
    const r = await computeClusterReport({ runId: "grpo-main", threshold: 0.5 }, client);
    const me = r.guardrails.find((g) => g.code === "missing_evidence")!;
    expect(me.trend.early!).toBeGreaterThan(3 * me.trend.late!);
    expect(me.deciding).toBe(0); // its 0.55 cap never decides below 0.5: a cheaper cap or nothing does
    expect(r.cofired.some((c) => c.codes.includes("missing_evidence"))).toBe(true);
    const uw = r.clusters.find((c) => c.key === "unauthorized_write")!;
    expect(
      uw.signatures.some(
        (s) => s.signature.code === "missing_evidence" || s.signature.code === "required_read_missing",
      ),
    ).toBe(true);
    // Raise the threshold above its cap and missing evidence is a level-1 cluster of its own, shrinking.
    const wide = await computeClusterReport({ runId: "grpo-main", threshold: 0.6 }, client);
    const own = wide.clusters.find((c) => c.key === "missing_evidence")!;
    expect(own.trend.early!).toBeGreaterThan(own.trend.late!);
  });

  it("show the hand-off blind spot growing late in the hacking run, with one reply phrasing per language, and not in the normal run", async () => {
    const hack = await loadFullReport({ runId: "grpo-hacking", threshold: 0.5 }, { phrasings: true }, client);
    const b = hack.report.blindSpot;
    expect(b.trend.late!).toBeGreaterThan(2 * b.trend.early!);
    expect(b.trend.slope!).toBeGreaterThan(0);
    // Only the hand-offs the verifier still credits (outcome 0.45 on a case that allows them, ~0.58 of reward): the
    // hand-offs on cases that forbid them already score outcome 0 and are in the low-score population instead.
    expect(b.meanReward!).toBeGreaterThan(0.5);
    expect(b.priority!.score).toBeGreaterThan(0);
    // One phrasing per language: every fifth demo customer writes Chinese and is answered in Chinese.
    const phrasings = hack.extras.get(b.key)!.phrasings!.phrasings;
    expect(phrasings).toHaveLength(2);
    expect(phrasings[0].share + phrasings[1].share).toBeCloseTo(1, 9);
    expect(phrasings[0].share).toBeGreaterThan(0.6);
    expect(phrasings.filter((p) => /[\u4e00-\u9fff]/.test(p.text))).toHaveLength(1);
    const main = await computeClusterReport({ runId: "grpo-main", threshold: 0.5 }, client);
    expect(main.blindSpot.trend.late!).toBeLessThan(main.blindSpot.trend.early!);
  });
});
