// Every figure of the leaderboard, its head-to-head comparisons and its probe and retest summaries, on a generated
// input (four candidates with failed and missing results, guardrails, categories, pairwise judgements), against an
// independent implementation (lib/testing/leaderboard_reference.py: Python, standard library only, with its own
// mulberry32, so even the paired bootstrap's intervals are compared to the digit). κ's interval is the one figure not
// recomputed — its bootstrap draws multinomial cell counts, which the reference does not imitate — so the reference
// checks κ itself and the interval is checked to contain it.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import type { Figure, RateFigure } from "@/lib/agreement/figures.ts";
import { buildLeaderboard } from "@/lib/leaderboard/build.ts";
import { headToHead } from "@/lib/leaderboard/head-to-head.ts";
import { leaderboardInput } from "@/lib/testing/leaderboard-data.ts";

type Iv = [number, number] | null;
type Rate = { k: number; n: number; value: number | null; interval: Iv };
type RefRow = {
  covered: number;
  missing: Record<string, number>;
  failureShare: Rate;
  matrix: number[][];
  coefficients: {
    kappa: number | null;
    ac1: number;
    ac1_interval: Iv;
    pabak: number;
    pabak_interval: Iv;
    pa: { value: number; interval: Iv } | null;
    na: { value: number; interval: Iv } | null;
  };
  agreement: Rate;
  sensitivity: Rate;
  specificity: Rate;
  mae: number | null;
  maeInterval: Iv;
  spearman: number | null;
  spearmanInterval: Iv;
  ordering: { agreement: Rate; agree: number; inversions: number; ties: number; unordered: number } | null;
  guardrails: Record<string, { items: number; covered: number; agreement: Rate; sensitivity: Rate; specificity: Rate }>;
  categories: Record<string, { items: number; covered: number; agreement: Rate; sensitivity: Rate; specificity: Rate }>;
  costPer1000: number | null;
  medianLatencyMs: number | null;
};
type RefH2H = {
  n: number;
  table: number[];
  difference: number;
  interval: Iv;
  pValue: number;
  mae: number;
  maeInterval: Iv;
  spearman: number | null;
  spearmanInterval: Iv;
};
type RefRerun = { n: number; meanShift: number; meanShiftInterval: Iv; flips: Rate; mae: number; maeInterval: Iv };
type Reference = {
  rows: Record<string, RefRow>;
  headToHead: Record<string, RefH2H>;
  reruns: Record<string, RefRerun>;
};

function reference(input: unknown): Reference {
  const r = spawnSync("python3", ["lib/testing/leaderboard_reference.py"], { input: JSON.stringify(input) });
  if (r.status !== 0) throw new Error(`the reference failed: ${r.stderr}`);
  return JSON.parse(r.stdout.toString());
}

const CLOSE = 10;

function expectInterval(actual: { lower: number; upper: number } | null, expected: Iv) {
  if (expected === null) return expect(actual).toBeNull();
  expect(actual!.lower).toBeCloseTo(expected[0], CLOSE);
  expect(actual!.upper).toBeCloseTo(expected[1], CLOSE);
}

function expectRate(actual: RateFigure, expected: Rate) {
  expect([actual.k, actual.n]).toEqual([expected.k, expected.n]);
  if (expected.value === null) expect(actual.value).toBeNull();
  else expect(actual.value).toBeCloseTo(expected.value, CLOSE);
  expectInterval(actual.interval, expected.interval);
}

function expectStat(actual: Figure, value: number | null, interval: Iv) {
  if (value === null) return expect(actual.value).toBeNull();
  expect(actual.value).toBeCloseTo(value, CLOSE);
  expectInterval(actual.interval, interval);
}

const SEED = 4242;
const ITERATIONS = 400;
const PAIRS: [string, string][] = [
  ["ledger", "judge-v3"],
  ["ledger", "code-v2"],
  ["rule-v1", "code-v2"],
];

describe("the leaderboard against an independent implementation", () => {
  const input = leaderboardInput(7, 180, 4);
  const board = buildLeaderboard(input);
  const ref = reference({ input, headToHead: PAIRS, seed: SEED, iterations: ITERATIONS });

  it("generates what the test needs: failures of every kind, missing items, slices and pairwise judgements", () => {
    const missing = board.rows.map((r) => r.coverage.missing);
    for (const reason of ["not_run", "error", "timeout", "invalid_output", "unavailable"] as const)
      expect(missing.some((m) => m[reason] > 0)).toBe(true);
    expect(board.rows[0].guardrails.length).toBeGreaterThanOrEqual(3);
    expect(board.rows[0].categories.length).toBeGreaterThanOrEqual(3);
    expect(input.pairwise.length).toBeGreaterThan(20);
  });

  it("equals it on every row's coverage, verdict, reward, ordering and cost figures", () => {
    for (const row of board.rows) {
      const e = ref.rows[row.id];
      expect(row.coverage.covered).toBe(e.covered);
      expect(row.coverage.missing).toEqual(e.missing);
      expect(row.coverage.covered + Object.values(row.coverage.missing).reduce((s, x) => s + x, 0)).toBe(board.items);
      expectRate(row.coverage.failureShare, e.failureShare);
      expect(row.verdict.matrix).toEqual(e.matrix);
      expectRate(row.verdict.agreement, e.agreement);
      expectRate(row.verdict.sensitivity, e.sensitivity);
      expectRate(row.verdict.specificity, e.specificity);
      const k = e.coefficients;
      expect(row.verdict.kappa.value).toBeCloseTo(k.kappa!, CLOSE);
      expect(row.verdict.kappa.interval!.lower).toBeLessThanOrEqual(k.kappa!);
      expect(row.verdict.kappa.interval!.upper).toBeGreaterThanOrEqual(k.kappa!);
      expectStat(row.verdict.ac1, k.ac1, k.ac1_interval);
      expectStat(row.verdict.pabak, k.pabak, k.pabak_interval);
      expect(row.verdict.positiveAgreement.value).toBeCloseTo(k.pa!.value, CLOSE);
      expect(row.verdict.negativeAgreement.value).toBeCloseTo(k.na!.value, CLOSE);
      expectStat(row.reward.mae, e.mae, e.maeInterval);
      expectStat(row.reward.spearman, e.spearman, e.spearmanInterval);
      expect(row.ordering).not.toBeNull();
      expectRate(row.ordering!.agreement, e.ordering!.agreement);
      expect([row.ordering!.agree, row.ordering!.inversions, row.ordering!.ties, row.ordering!.unordered]).toEqual([
        e.ordering!.agree,
        e.ordering!.inversions,
        e.ordering!.ties,
        e.ordering!.unordered,
      ]);
      if (e.costPer1000 === null) expect(row.cost.costPer1000).toBeNull();
      else expect(row.cost.costPer1000).toBeCloseTo(e.costPer1000, CLOSE);
      expect(row.cost.medianLatencyMs).toBe(e.medianLatencyMs);
    }
  });

  it("equals it on every guardrail and category slice", () => {
    for (const row of board.rows) {
      for (const [mine, theirs] of [
        [row.guardrails, ref.rows[row.id].guardrails],
        [row.categories, ref.rows[row.id].categories],
      ] as const) {
        expect(mine.map((s) => s.key)).toEqual(Object.keys(theirs).sort());
        for (const s of mine) {
          const e = theirs[s.key];
          expect([s.items, s.covered]).toEqual([e.items, e.covered]);
          expectRate(s.agreement, e.agreement);
          expectRate(s.sensitivity, e.sensitivity);
          expectRate(s.specificity, e.specificity);
        }
      }
    }
  });

  it("equals it head to head: McNemar, Newcombe and the paired bootstrap with the same seed", () => {
    for (const [a, b] of PAIRS) {
      const h = headToHead(input, a, b, { seed: SEED, iterations: ITERATIONS });
      const e = ref.headToHead[`${a}|${b}`];
      expect(h.n).toBe(e.n);
      expect([h.table.both, h.table.firstOnly, h.table.secondOnly, h.table.neither]).toEqual(e.table);
      expect(h.agreement!.difference).toBeCloseTo(e.difference, CLOSE);
      expectInterval(h.agreement!.interval, e.interval);
      expect(h.agreement!.pValue).toBeCloseTo(e.pValue, 12);
      expect(h.mae!.estimate).toBeCloseTo(e.mae, CLOSE);
      expectInterval(h.mae, e.maeInterval);
      expect(h.spearman!.estimate).toBeCloseTo(e.spearman!, CLOSE);
      expectInterval(h.spearman, e.spearmanInterval);
    }
  });

  it("equals it on the probe and retest summaries", () => {
    const reruns = board.rows.flatMap((r) => [
      ...(r.probe ? [[`${r.id}|probe`, r.probe] as const] : []),
      ...(r.retest ? [[`${r.id}|retest`, r.retest] as const] : []),
    ]);
    expect(reruns.length).toBe(Object.keys(ref.reruns).length);
    expect(reruns.length).toBeGreaterThanOrEqual(3);
    for (const [key, s] of reruns) {
      const e = ref.reruns[key];
      expect(s.n).toBe(e.n);
      expectStat(s.meanShift, e.meanShift, e.meanShiftInterval);
      expectRate(s.flips, e.flips);
      expectStat(s.mae, e.mae, e.maeInterval);
    }
  });
});
