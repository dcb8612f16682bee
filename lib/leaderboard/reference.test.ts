// Every figure of the leaderboard, its head-to-head comparisons and its probe and retest summaries, on a generated
// input (four candidates with failed and missing results, guardrails, categories, pairwise judgements), against an
// independent implementation (lib/testing/leaderboard_reference.py: Python, standard library only, with its own
// mulberry32, so even the paired bootstrap's intervals are compared to the digit). κ's interval is the one figure not
// recomputed — its bootstrap draws multinomial cell counts, which the reference does not imitate — so the reference
// checks κ itself and the interval is checked to contain it.
import { describe, expect, it } from "vitest";
import { buildLeaderboard } from "@/lib/leaderboard/build.ts";
import { headToHead } from "@/lib/leaderboard/head-to-head.ts";
import { leaderboardInput } from "@/lib/testing/leaderboard-data.ts";
import {
  expectHeadToHeadMatches,
  expectRate,
  expectRowsMatch,
  expectSlicesMatch,
  expectStat,
  leaderboardReference,
} from "@/lib/testing/leaderboard-reference.ts";

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
  const ref = leaderboardReference({ input, headToHead: PAIRS, seed: SEED, iterations: ITERATIONS });

  it("generates what the test needs: failures of every kind, missing items, slices and pairwise judgements", () => {
    const missing = board.rows.map((r) => r.coverage.missing);
    for (const reason of ["not_run", "error", "timeout", "invalid_output", "unavailable"] as const)
      expect(missing.some((m) => m[reason] > 0)).toBe(true);
    expect(board.rows[0].guardrails.length).toBeGreaterThanOrEqual(3);
    expect(board.rows[0].categories.length).toBeGreaterThanOrEqual(3);
    expect(input.pairwise.length).toBeGreaterThan(20);
  });

  it("equals it on every row's coverage, verdict, reward, ordering and cost figures", () => {
    expectRowsMatch(board, ref);
  });

  it("equals it on every guardrail and category slice", () => {
    expectSlicesMatch(board, ref);
  });

  it("equals it head to head: McNemar, Newcombe and the paired bootstrap with the same seed", () => {
    for (const [a, b] of PAIRS) {
      const h = headToHead(input, a, b, { seed: SEED, iterations: ITERATIONS });
      expectHeadToHeadMatches(h, ref.headToHead[`${a}|${b}`]);
    }
  });

  it("equals it on the probe and retest summaries", () => {
    const reruns = board.rows.flatMap((r) => [
      ...(r.probe ? [[`${r.id}|probe`, r.probe] as const] : []),
      ...(r.retest ? [[`${r.id}|retest`, r.retest] as const] : []),
    ]);
    expect(reruns.length).toBe(Object.keys(ref.reruns).length);
    expect(reruns.length).toBeGreaterThanOrEqual(3);
    // the probes' pairs come eight to a rollout, the retest's one: both kinds of interval are compared
    expect(reruns.some(([, s]) => s.rollouts < s.n)).toBe(true);
    expect(reruns.some(([, s]) => s.rollouts === s.n)).toBe(true);
    for (const [key, s] of reruns) {
      const e = ref.reruns[key];
      expect([s.n, s.rollouts]).toEqual([e.n, e.rollouts]);
      expectStat(s.meanShift, e.meanShift, e.meanShiftInterval);
      expectRate(s.flips, e.flips);
      expectStat(s.mae, e.mae, e.maeInterval);
    }
  });
});
