// Test support for the reward leaderboard: the independent reference (lib/testing/leaderboard_reference.py) run on
// an input, and the comparisons of a built leaderboard and a head to head with what it computed — every figure to
// 1e-10, κ's bootstrap interval only checked to contain κ (its resamples are multinomial draws the reference does
// not imitate).
import { spawnSync } from "node:child_process";
import { expect } from "vitest";
import type { Figure, RateFigure } from "@/lib/agreement/figures.ts";
import type { Leaderboard } from "@/lib/leaderboard/build.ts";
import type { HeadToHead } from "@/lib/leaderboard/head-to-head.ts";

type Iv = [number, number] | null;
type Rate = { k: number; n: number; value: number | null; interval: Iv };
export type RefRow = {
  covered: number;
  missing: Record<string, number>;
  failureShare: Rate;
  matrix: number[][];
  coefficients: null | {
    kappa: number | null;
    ac1: number | null;
    ac1_interval: Iv;
    pabak: number | null;
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
export type RefH2H = {
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
type RefRerun = {
  n: number;
  rollouts: number;
  meanShift: number;
  meanShiftInterval: Iv;
  flips: Rate;
  mae: number;
  maeInterval: Iv;
};
export type Reference = {
  rows: Record<string, RefRow>;
  headToHead: Record<string, RefH2H>;
  reruns: Record<string, RefRerun>;
};

export function leaderboardReference(input: unknown): Reference {
  const r = spawnSync("python3", ["lib/testing/leaderboard_reference.py"], { input: JSON.stringify(input) });
  if (r.status !== 0) throw new Error(`the reference failed: ${r.stderr}`);
  return JSON.parse(r.stdout.toString());
}

const CLOSE = 10;

export function expectInterval(actual: { lower: number; upper: number } | null, expected: Iv) {
  if (expected === null) return expect(actual).toBeNull();
  expect(actual!.lower).toBeCloseTo(expected[0], CLOSE);
  expect(actual!.upper).toBeCloseTo(expected[1], CLOSE);
}

export function expectRate(actual: RateFigure, expected: Rate) {
  expect([actual.k, actual.n]).toEqual([expected.k, expected.n]);
  if (expected.value === null) expect(actual.value).toBeNull();
  else expect(actual.value).toBeCloseTo(expected.value, CLOSE);
  expectInterval(actual.interval, expected.interval);
}

export function expectStat(actual: Figure, value: number | null, interval: Iv) {
  if (value === null) return expect(actual.value).toBeNull();
  expect(actual.value).toBeCloseTo(value, CLOSE);
  expectInterval(actual.interval, interval);
}

/** κ (its interval containing it), AC1, PABAK, positive and negative agreement; each null where the reference's is. */
function expectCoefficients(row: Leaderboard["rows"][number], k: RefRow["coefficients"] | null) {
  if (k === null) return expect(row.verdict.kappa.value).toBeNull();
  if (k.kappa === null) expect(row.verdict.kappa.value).toBeNull();
  else {
    expect(row.verdict.kappa.value).toBeCloseTo(k.kappa, CLOSE);
    expect(row.verdict.kappa.interval!.lower).toBeLessThanOrEqual(k.kappa);
    expect(row.verdict.kappa.interval!.upper).toBeGreaterThanOrEqual(k.kappa);
  }
  expectStat(row.verdict.ac1, k.ac1, k.ac1_interval);
  expectStat(row.verdict.pabak, k.pabak, k.pabak_interval);
  for (const [mine, theirs] of [
    [row.verdict.positiveAgreement, k.pa],
    [row.verdict.negativeAgreement, k.na],
  ] as const)
    if (theirs === null) expect(mine.value).toBeNull();
    else expect(mine.value).toBeCloseTo(theirs.value, CLOSE);
}

/** Every row's coverage, verdict, reward, ordering and cost figures equal the reference's. */
export function expectRowsMatch(board: Leaderboard, ref: Reference) {
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
    expectCoefficients(row, e.coefficients);
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
}

/** Every row's guardrail and category slices equal the reference's. */
export function expectSlicesMatch(board: Leaderboard, ref: Reference) {
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
}

/** The head to head equals the reference's: McNemar, Newcombe and the paired bootstrap with the same seed. */
export function expectHeadToHeadMatches(h: HeadToHead, e: RefH2H) {
  expect(h.n).toBe(e.n);
  expect([h.table.both, h.table.firstOnly, h.table.secondOnly, h.table.neither]).toEqual(e.table);
  expect(h.agreement!.difference).toBeCloseTo(e.difference, CLOSE);
  expectInterval(h.agreement!.interval, e.interval);
  expect(h.agreement!.pValue).toBeCloseTo(e.pValue, 12);
  expect(h.mae!.estimate).toBeCloseTo(e.mae, CLOSE);
  expectInterval(h.mae, e.maeInterval);
  if (e.spearman === null) expect(h.spearman).toBeNull();
  else {
    expect(h.spearman!.estimate).toBeCloseTo(e.spearman, CLOSE);
    expectInterval(h.spearman, e.spearmanInterval);
  }
}
