import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "@/lib/db/client.ts";
import { binSteps } from "@/lib/clusters/bins.ts";
import { rollupFingerprint } from "@/lib/clusters/cache.ts";
import { readBlindSpotFacts, readLevelOneFacts, readSignatureSample, readWindowSteps } from "@/lib/clusters/data.ts";
import {
  listClusterExamples,
  listClusterSignatures,
  listClusterTickets,
  sampleClusterReplies,
} from "@/lib/clusters/detail-data.ts";
import { BLIND_SPOT_KEY, parseKey } from "@/lib/clusters/keys.ts";
import { computeClusterReport, findCluster, loadClustersPage, loadFullReport } from "@/lib/clusters/loaders.ts";
import { BLIND, EMPTY_PROMISE, ingestKnownLedger, PROMISES, RUN, STEPS, TOTALS } from "@/lib/testing/clusters-data.ts";
import { freshDatabase, type TestDatabase } from "@/lib/testing/ingest-db.ts";
import { priorityScore } from "@/lib/stats/priority.ts";
import { leastSquaresSlope } from "@/lib/stats/trend.ts";

let t: TestDatabase;
let client: ReturnType<typeof createClient>;
const N = TOTALS.reduce((a, b) => a + b, 0);
const w = { runId: RUN, threshold: 0.5 };

beforeAll(async () => {
  t = await freshDatabase("clusters");
  client = createClient(t.url);
  await ingestKnownLedger(t.pool);
});
afterAll(async () => {
  await client?.$disconnect();
  await t?.drop();
});

describe("the clustering reads return small aggregates of the known ledger", () => {
  it("readWindowSteps: the rollups' current entries per step", async () => {
    expect(await readWindowSteps(w, client)).toEqual(STEPS.map((step, i) => ({ step, rollouts: TOTALS[i] })));
    expect(await readWindowSteps({ ...w, from: 500, to: 2500 }, client)).toEqual([
      { step: 1000, rollouts: TOTALS[1] },
      { step: 2000, rollouts: TOTALS[2] },
    ]);
    // The report cache's key: rollup rows, rollouts, … (cache.ts); a run without rollups has none.
    expect(await rollupFingerprint(client, RUN)).toMatch(new RegExp(`^4/${N}/`));
    expect(await rollupFingerprint(client, "no-such-run")).toBeNull();
  });

  it("readLevelOneFacts: cells by key, mask, category and bin, with tickets per key and per mask", async () => {
    const { edges } = binSteps(await readWindowSteps(w, client));
    const f = await readLevelOneFacts(w, edges, client);
    const cell = f.cells.find((c) => c.key === "empty_promise" && c.bin === 1)!;
    expect(cell).toEqual({
      key: "empty_promise",
      mask: 8,
      category: "refund_damaged",
      bin: 1,
      n: 3,
      rewardSum: expect.closeTo(0.6, 9),
      removedSum: expect.closeTo(0, 9),
    });
    expect(f.cells.reduce((s, c) => s + c.n, 0)).toBe(14);
    expect(Object.fromEntries(f.ticketsByKey)).toEqual({
      empty_promise: 1,
      unauthorized_write: 1,
      "weakest:outcome": 1,
      "weakest:unknown": 1,
    });
    expect(f.ticketsByMask.get(2 | 32)).toBe(1);
  });

  it("readSignatureSample: every entry of a small cluster, scaled estimates on a sample", async () => {
    const { edges } = binSteps(await readWindowSteps(w, client));
    const all = await readSignatureSample(w, edges, client);
    expect(all.rates.get("empty_promise")).toBe(1);
    expect(all.sampled.get("empty_promise")).toBe(6);
    const cell = all.cells.find((c) => c.key === "unauthorized_write" && c.code === "required_read_missing")!;
    expect(cell).toMatchObject({ tool: "order.get", field: "required_reads.0", category: "cancel_order", n: 1 });
    // A sample of 2 per cluster: the empty-promise cluster (6 entries) is read at rate 1/3.
    const some = await readSignatureSample(w, edges, client, 2);
    expect(some.rates.get("empty_promise")).toBeCloseTo(1 / 3, 9);
    expect(some.sampled.get("empty_promise")).toBeLessThanOrEqual(6);
    expect(some.tickets.size).toBeLessThan(all.tickets.size);
  });

  it("readBlindSpotFacts: hand-offs without a write or guardrail, whatever their reward", async () => {
    const { edges } = binSteps(await readWindowSteps(w, client));
    const f = await readBlindSpotFacts(w, edges, client);
    expect(f.tickets).toBe(1);
    expect(f.cells.map((c) => [c.bin, c.n])).toEqual(
      expect.arrayContaining(BLIND.map((n, i) => [i + 1, n]).filter(([, n]) => n > 0)),
    );
    expect(f.cells.reduce((s, c) => s + c.n, 0)).toBe(6); // the hand-off after a refund (T-HW) is not in it
  });
});

describe("the report of the known ledger", () => {
  it("has the level-1 clusters with sizes, shares, tickets, mean reward and reward removed by the cap", async () => {
    const r = await computeClusterReport(w, client);
    expect(r.rollouts).toBe(N);
    expect(r.population).toBe(14);
    const by = Object.fromEntries(r.clusters.map((c) => [c.key, c]));
    expect(by.empty_promise).toMatchObject({ size: 6, tickets: 1, estimated: false, share: 6 / N });
    expect(by.empty_promise.meanReward).toBeCloseTo(0.2, 9);
    expect(by.empty_promise.removedByCap).toBeCloseTo(0, 9);
    expect(by.unauthorized_write).toMatchObject({ size: 6, tickets: 1 });
    expect(by.unauthorized_write.meanReward).toBeCloseTo(0.3, 9);
    expect(by.unauthorized_write.removedByCap).toBeCloseTo((4 * 0.7 + 2 * 0.5) / 6, 6);
    expect(by["weakest:outcome"]).toMatchObject({ size: 1 });
    // the external record without sub-scores is in the population but forms no cluster: it has no verifier detail
    expect(r.unscored).toBe(1);
    expect(Object.keys(by).sort()).toEqual(["empty_promise", "unauthorized_write", "weakest:outcome"]);
  });

  it("has trends: per-step shares, the fitted slope, early against late", async () => {
    const r = await computeClusterReport(w, client);
    const ep = r.clusters.find((c) => c.key === "empty_promise")!;
    expect(ep.trend.shares).toEqual(EMPTY_PROMISE.map((n, i) => n / TOTALS[i]));
    const slope = leastSquaresSlope(
      STEPS.map((step, i) => ({ step, value: EMPTY_PROMISE[i] / TOTALS[i], n: TOTALS[i] })),
      { weightByN: true },
    );
    expect(ep.trend.slope).toBeCloseTo(slope!, 12);
    expect(ep.trend.slope!).toBeLessThan(0);
    expect(ep.trend.early).toBeCloseTo(3 / 9, 9);
    expect(ep.trend.late).toBeCloseTo(0, 9);
    expect(r.blindSpot.trend.shares).toEqual(BLIND.map((n, i) => n / TOTALS[i]));
    expect(r.blindSpot.trend.slope!).toBeGreaterThan(0);
  });

  it("ranks by the documented priority score", async () => {
    const r = await computeClusterReport(w, client);
    const scores = r.clusters.map(
      (c) => priorityScore({ share: c.share, meanReward: c.meanReward, slope: c.trend.slope })!.score,
    );
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(r.clusters.map((c) => c.key)).toEqual(["empty_promise", "unauthorized_write", "weakest:outcome"]);
    expect(r.clusters[0].priority!.gap).toBeCloseTo(0.7, 9);
  });

  it("drills down: level-2 reason signatures and level-3 categories, exact when the cluster is small", async () => {
    const r = await computeClusterReport(w, client);
    const uw = r.clusters.find((c) => c.key === "unauthorized_write")!;
    const sig = uw.signatures.find(
      (s) => s.key === "unauthorized_write|required_read_missing@order.get#required_reads.0",
    )!;
    expect(sig).toMatchObject({ size: 2, tickets: 1, estimated: false, ofParent: 2 / 6 });
    expect(sig.categories).toEqual([
      expect.objectContaining({
        category: "cancel_order",
        size: 2,
        key: "unauthorized_write|required_read_missing@order.get#required_reads.0|cancel_order",
      }),
    ]);
    const own = uw.signatures.find((s) => s.signature.code === "unauthorized_write")!;
    expect(own.size).toBe(4); // the verifier's own reason; the external records carry only the evidence reason
    const ep = r.clusters.find((c) => c.key === "empty_promise")!;
    expect(ep.signatures.find((s) => s.signature.code === "empty_promise")!.size).toBe(6);
    const found = findCluster(r, "unauthorized_write|required_read_missing@order.get#required_reads.0|cancel_order")!;
    expect(found.part).toMatchObject({ size: 2 });
    expect(found.levelOne?.key).toBe("unauthorized_write");
  });

  it("has the co-fired guardrail sets, the guardrails present in the population, and the blind spot", async () => {
    const r = await computeClusterReport(w, client);
    expect(r.cofired.map((c) => [c.key, c.size, c.tickets])).toEqual([
      ["cofired:unauthorized_write+missing_evidence", 2, 1],
    ]);
    expect(r.guardrails.map((g) => [g.code, g.size, g.deciding])).toEqual([
      ["unauthorized_write", 6, 6],
      ["empty_promise", 6, 6],
      ["missing_evidence", 2, 0],
    ]);
    expect(r.blindSpot).toMatchObject({ key: BLIND_SPOT_KEY, size: 6, tickets: 1, share: 6 / N });
    expect(r.blindSpot.meanReward).toBeCloseTo(0.619167, 6);
  });

  it("narrows to a step window and a threshold", async () => {
    const r = await computeClusterReport({ ...w, from: 1000, to: 2000, threshold: 0.25 }, client);
    expect(r.rollouts).toBe(TOTALS[1] + TOTALS[2]);
    expect(r.clusters.map((c) => [c.key, c.size])).toEqual([["empty_promise", 3]]);
    expect(r.blindSpot.size).toBe(3);
    expect(r.from).toBe(1000);
    expect(r.to).toBe(2000);
  });
});

describe("one cluster's members", () => {
  it("examples come lowest reward first; the unknown-key cluster is the 0.4 external record", async () => {
    const ex = await listClusterExamples(w, parseKey("unauthorized_write")!, 3, client);
    expect(ex.map((e) => e.reward)).toEqual([0.3, 0.3, 0.3]);
    expect(ex.map((e) => e.trajectoryId)).toEqual([`${RUN}/s0/uw0`, `${RUN}/s1000/uw0`, `${RUN}/s2000/uw0`]); // ties by ledger id: the external records came last
    const unknown = await listClusterExamples(w, parseKey("weakest:unknown")!, 5, client);
    expect(unknown.map((e) => [e.trajectoryId, e.reward])).toEqual([[`${RUN}/s1000/x-unknown`, 0.4]]);
    const blind = await listClusterExamples(w, parseKey(BLIND_SPOT_KEY)!, 10, client);
    expect(blind).toHaveLength(6);
    expect(blind.every((e) => e.trajectoryId.includes("/ho"))).toBe(true);
  });

  it("reply samples, tickets and exact signatures", async () => {
    const replies = await sampleClusterReplies(w, parseKey("empty_promise")!, 6, 2000, client);
    expect(replies.map((r) => r.reply).sort()).toEqual([...PROMISES, ...PROMISES].sort());
    expect(await listClusterTickets(w, parseKey("empty_promise")!, client)).toEqual([
      { ticketId: "T-EP", category: "refund_damaged", rollouts: 6, meanReward: expect.closeTo(0.2, 9) },
    ]);
    const sigs = await listClusterSignatures(w, parseKey("cofired:unauthorized_write+missing_evidence")!, client);
    expect(sigs).toEqual([
      { code: "required_read_missing", tool: "order.get", field: "required_reads.0", rollouts: 2 },
    ]);
  });

  it("the full report groups an empty promise's near-duplicate replies into one phrasing", async () => {
    const full = await loadFullReport(w, { phrasings: true }, client);
    const ph = full.extras.get("empty_promise")!.phrasings!;
    expect(ph.sampled).toBe(6);
    expect(ph.phrasings[0]).toMatchObject({ count: 4, share: 4 / 6 });
    expect(ph.phrasings[0].text.toLowerCase()).toContain("your refund has been arranged");
    expect(full.extras.get(BLIND_SPOT_KEY)!.phrasings!.phrasings[0]).toMatchObject({
      text: "A colleague will take over your case.",
      count: 6,
    });
  });
});

describe("the page loader", () => {
  it("reads the window and the drilled-into cluster from the URL", async () => {
    const page = await loadClustersPage(
      { run: RUN, step_from: "1000", c: "empty_promise|empty_promise@finance.issue_refund" },
      {},
      client,
    );
    expect(page.errors).toEqual([]);
    expect(page.window).toEqual({ runId: RUN, from: 1000, to: undefined, threshold: 0.5 });
    expect(page.selected?.found?.stats).toMatchObject({ size: 3 });
    expect(page.selected?.extras.examples).toHaveLength(3);
    expect(page.blindSpot?.phrasings?.sampled).toBe(6);
  });

  it("explains a bad window and shows the whole run that was asked for", async () => {
    const page = await loadClustersPage({ run: RUN, step_from: "9", step_to: "1" }, {}, client);
    expect(page.errors).toEqual(["step_from: must not be after step_to"]);
    expect(page.window).toEqual({ runId: RUN, from: undefined, to: undefined, threshold: 0.5 });
    const bad = await loadClustersPage({ run: RUN, c: "nonsense" }, {}, client);
    expect(bad.errors).toEqual(["c: is not a cluster key"]);
    expect(bad.selected).toBeNull();
    expect((await loadClustersPage({ run: "no-such-run" }, {}, client)).errors).toEqual([
      'run: there is no run "no-such-run"',
    ]);
  });
});
