import { describe, expect, it } from "vitest";
import type { Bin } from "@/lib/clusters/bins.ts";
import type { BlindSpotFacts, LevelOneFacts, SignatureFacts } from "@/lib/clusters/data.ts";
import { signatureTicketKey } from "@/lib/clusters/data.ts";
import { buildReport, unscoredLine } from "@/lib/clusters/report.ts";
import { priorityScore } from "@/lib/stats/priority.ts";

// Two bins of 100 rollouts. Empty promise: 20 then 10 (shrinking); unauthorized write: 5 then 15 (growing), of which
// 4 co-fire with missing_evidence (mask 2|32). Level 2 read on a half sample of unauthorized_write.
const bins: Bin[] = [
  { from: 0, to: 0, step: 0, rollouts: 100 },
  { from: 1000, to: 1000, step: 1000, rollouts: 100 },
];
const EP = 8; // 1 << 3
const UW = 2;
const ME = 32;
const levelOne: LevelOneFacts = {
  cells: [
    { key: "empty_promise", mask: EP, category: "refund", bin: 1, n: 20, rewardSum: 20 * 0.2, removedSum: 0 },
    { key: "empty_promise", mask: EP, category: "refund", bin: 2, n: 10, rewardSum: 10 * 0.2, removedSum: 0 },
    { key: "unauthorized_write", mask: UW, category: "cancel", bin: 1, n: 5, rewardSum: 5 * 0.3, removedSum: 5 * 0.7 },
    {
      key: "unauthorized_write",
      mask: UW,
      category: "refund",
      bin: 2,
      n: 11,
      rewardSum: 11 * 0.3,
      removedSum: 11 * 0.7,
    },
    {
      key: "unauthorized_write",
      mask: UW | ME,
      category: "refund",
      bin: 2,
      n: 4,
      rewardSum: 4 * 0.3,
      removedSum: 4 * 0.5,
    },
  ],
  ticketsByKey: new Map([
    ["empty_promise", 7],
    ["unauthorized_write", 3],
  ]),
  ticketsByMask: new Map([[UW | ME, 2]]),
};
const signatures: SignatureFacts = {
  cells: [
    {
      key: "unauthorized_write",
      code: "required_read_missing",
      tool: "order.get",
      field: "required_reads.0",
      category: "refund",
      bin: 2,
      n: 2,
      rewardSum: 0.6,
      removedSum: 1,
    },
    {
      key: "unauthorized_write",
      code: "unauthorized_write",
      tool: "order.cancel",
      field: null,
      category: "cancel",
      bin: 1,
      n: 2,
      rewardSum: 0.6,
      removedSum: 1.4,
    },
    {
      key: "empty_promise",
      code: "empty_promise",
      tool: "finance.issue_refund",
      field: null,
      category: "refund",
      bin: 1,
      n: 20,
      rewardSum: 4,
      removedSum: 0,
    },
    {
      key: "empty_promise",
      code: "empty_promise",
      tool: "finance.issue_refund",
      field: null,
      category: "refund",
      bin: 2,
      n: 10,
      rewardSum: 2,
      removedSum: 0,
    },
  ],
  tickets: new Map([[signatureTicketKey("empty_promise", "empty_promise", "finance.issue_refund", null), 7]]),
  rates: new Map([
    ["empty_promise", 1],
    ["unauthorized_write", 0.5],
  ]),
  sampled: new Map([
    ["empty_promise", 30],
    ["unauthorized_write", 10],
  ]),
};
const blindSpot: BlindSpotFacts = {
  cells: [
    { category: "refund", bin: 1, n: 5, rewarded: 5, rewardSum: 3, removedSum: 0 },
    { category: "refund", bin: 2, n: 25, rewarded: 25, rewardSum: 15, removedSum: 0 },
  ],
  tickets: 9,
};
const report = buildReport({ runId: "r", threshold: 0.5, bins, levelOne, signatures, blindSpot });

describe("buildReport", () => {
  it("sums the cells into level-1 clusters with exact sizes, shares, tickets, means and removed reward", () => {
    expect(report.rollouts).toBe(200);
    expect(report.population).toBe(50);
    const uw = report.clusters.find((c) => c.key === "unauthorized_write")!;
    expect(uw).toMatchObject({ size: 20, share: 0.1, tickets: 3, estimated: false, sampleRate: 10 / 20 });
    expect(uw.meanReward).toBeCloseTo(0.3, 12);
    expect(uw.removedByCap).toBeCloseTo((16 * 0.7 + 4 * 0.5) / 20, 12);
    expect(uw.trend.shares).toEqual([0.05, 0.15]);
    expect(uw.categories.map((c) => [c.category, c.size, c.ofParent])).toEqual([
      ["refund", 15, 0.75],
      ["cancel", 5, 0.25],
    ]);
  });

  it("ranks by priority.ts: a growing cluster with a smaller gap can outrank a bigger shrinking one", () => {
    const ep = report.clusters.find((c) => c.key === "empty_promise")!;
    const uw = report.clusters.find((c) => c.key === "unauthorized_write")!;
    expect(ep.priority).toEqual(priorityScore({ share: 0.15, meanReward: ep.meanReward, slope: ep.trend.slope }));
    expect(ep.priority!.score).toBeCloseTo(0.7 * 0.15, 12); // shrinking: no growth term
    expect(uw.priority!.score).toBeCloseTo(0.6 * (0.1 + 1e-4 * 1000), 9); // slope 0.1 per 1,000 steps
    expect(report.clusters.map((c) => c.key)).toEqual(["unauthorized_write", "empty_promise"]);
  });

  it("scales sampled level-2 counts by the realised sampling rate and marks them estimated", () => {
    const uw = report.clusters.find((c) => c.key === "unauthorized_write")!;
    const sig = uw.signatures.find(
      (s) => s.key === "unauthorized_write|required_read_missing@order.get#required_reads.0",
    )!;
    expect(sig).toMatchObject({ size: 4, estimated: true, tickets: null, ofParent: 0.2 });
    expect(sig.categories).toEqual([
      expect.objectContaining({
        key: "unauthorized_write|required_read_missing@order.get#required_reads.0|refund",
        size: 4,
        estimated: true,
      }),
    ]);
    const ep = report.clusters.find((c) => c.key === "empty_promise")!;
    expect(ep.signatures[0]).toMatchObject({ size: 30, estimated: false, tickets: 7, ofParent: 1 });
  });

  it("lists co-fired sets, guardrail presence and the blind spot", () => {
    expect(report.cofired.map((c) => [c.key, c.size, c.tickets, c.codes])).toEqual([
      ["cofired:unauthorized_write+missing_evidence", 4, 2, ["unauthorized_write", "missing_evidence"]],
    ]);
    expect(report.guardrails.map((g) => [g.code, g.size, g.deciding])).toEqual([
      ["empty_promise", 30, 30],
      ["unauthorized_write", 20, 20],
      ["missing_evidence", 4, 0],
    ]);
    expect(report.blindSpot).toMatchObject({ size: 30, tickets: 9, share: 0.15, meanReward: 0.6 });
    expect(report.blindSpot.trend.shares).toEqual([0.05, 0.25]);
    expect(report.from).toBe(0);
    expect(report.to).toBe(1000);
  });

  it("is empty but well-formed for an empty window", () => {
    const empty = buildReport({
      runId: "r",
      threshold: 0.5,
      bins: [],
      levelOne: { cells: [], ticketsByKey: new Map(), ticketsByMask: new Map() },
      signatures: { cells: [], tickets: new Map(), rates: new Map(), sampled: new Map() },
      blindSpot: { cells: [], tickets: 0 },
    });
    expect(empty).toMatchObject({
      rollouts: 0,
      population: 0,
      clusters: [],
      cofired: [],
      guardrails: [],
      from: null,
      to: null,
    });
    expect(empty.blindSpot).toMatchObject({ size: 0, share: 0, meanReward: null });
  });
});

describe("a run scored outside Verity", () => {
  it("forms no 'weakest unknown' cluster: its entries are counted as without verifier detail and the report says so", () => {
    const external: LevelOneFacts = {
      cells: [
        { key: "weakest:unknown", mask: 0, category: null, bin: 1, n: 30, rewardSum: 30 * 0.2, removedSum: 0 },
        { key: "weakest:unknown", mask: 0, category: null, bin: 2, n: 10, rewardSum: 10 * 0.2, removedSum: 0 },
      ],
      ticketsByKey: new Map([["weakest:unknown", 12]]),
      ticketsByMask: new Map(),
    };
    const none: SignatureFacts = { cells: [], tickets: new Map(), rates: new Map(), sampled: new Map() };
    const r = buildReport({
      runId: "tau2",
      threshold: 0.9,
      bins,
      levelOne: external,
      signatures: none,
      blindSpot: { cells: [], tickets: 0 },
    });
    expect(r).toMatchObject({ population: 40, unscored: 40, clusters: [], guardrails: [] });
    expect(unscoredLine(r)).toBe(
      "No verifier detail: the 40 low-scoring rollouts of this window were scored outside Verity (no guardrails, no sub-scores), so nothing is clustered.",
    );
    const mixed = buildReport({
      runId: "mixed",
      threshold: 0.9,
      bins,
      levelOne: { ...levelOne, cells: [...levelOne.cells, ...external.cells] },
      signatures,
      blindSpot: { cells: [], tickets: 0 },
    });
    expect(mixed.clusters.map((c) => c.key).sort()).toEqual(["empty_promise", "unauthorized_write"]);
    expect(unscoredLine(mixed)).toMatch(/^40 of the low-scoring rollouts have no verifier detail/);
    expect(unscoredLine({ unscored: 0, population: 3 })).toBeNull();
  });
});
