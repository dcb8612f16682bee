import { describe, expect, it } from "vitest";
import { buildLeaderboard, sortLeaderboard } from "@/lib/leaderboard/build.ts";
import {
  ResultColumns,
  rolloutSlots,
  UNKNOWN_STATUS,
  type AuditedItem,
  type Candidate,
  type CandidateResult,
  type LeaderboardInput,
} from "@/lib/leaderboard/input.ts";

const item = (i: number, verdict: "pass" | "fail", reward: number, extra: Partial<AuditedItem> = {}): AuditedItem => ({
  itemId: `i${i}`,
  rolloutId: `r${i}`,
  groupId: `g${Math.floor(i / 2)}`,
  human: { verdict, reward },
  guardrails: [],
  category: null,
  ...extra,
});
const ok = (reward: number, more: Partial<CandidateResult> = {}): CandidateResult => ({
  reward,
  status: "ok",
  ...more,
});
const failed = (status: CandidateResult["status"]): CandidateResult => ({ reward: null, status });

function board(items: AuditedItem[], candidates: Candidate[], pairwise: LeaderboardInput["pairwise"] = []) {
  return buildLeaderboard({ items, candidates, pairwise });
}

describe("buildLeaderboard", () => {
  it("counts every item a candidate has no reward for under its reason, and the failure share of those it ran", () => {
    const items = [1, 2, 3, 4, 5, 6].map((i) => item(i, "pass", 1));
    const c: Candidate = {
      id: "j",
      label: "judge",
      kind: "judge",
      results: {
        r1: ok(1),
        r2: failed("error"),
        r3: failed("timeout"),
        r5: failed("invalid_output"),
        r6: failed("unavailable"),
      },
    };
    const row = board(items, [c]).rows[0];
    expect(row.coverage).toMatchObject({
      items: 6,
      covered: 1,
      missing: { not_run: 1, error: 1, timeout: 1, invalid_output: 1, unavailable: 1 },
    });
    expect([row.coverage.failureShare.k, row.coverage.failureShare.n]).toEqual([4, 5]);
    expect(row.verdict.agreement.n).toBe(1);
    expect(row.isLedger).toBe(false);
  });

  it("reads the verdict at the row's own threshold, and says too few to say below 30 items", () => {
    const items = [item(0, "pass", 0.95), item(1, "fail", 0.4), item(2, "pass", 0.9), item(3, "fail", 0.2)];
    const results = { r0: ok(0.85), r1: ok(0.5), r2: ok(0.95), r3: ok(0.85) };
    const strict: Candidate = { id: "a", label: "at 0.9", kind: "rule", results };
    const loose: Candidate = { id: "b", label: "at 0.8", kind: "rule", threshold: 0.8, results };
    const [a, b] = board(items, [strict, loose]).rows;
    // at 0.9 the function passes only r2: right on r1, r2, r3 → 3 of 4; at 0.8 it passes r0, r2, r3: wrong on r3
    expect([a.verdict.agreement.k, b.verdict.agreement.k]).toEqual([3, 3]);
    expect(a.verdict.matrix).toEqual([
      [1, 0],
      [1, 2],
    ]);
    expect(b.verdict.matrix).toEqual([
      [2, 1],
      [0, 1],
    ]);
    // sensitivity: of the 2 items the human failed, the function failed 2 (at 0.9) and 1 (at 0.8)
    expect([a.verdict.sensitivity.k, a.verdict.sensitivity.n]).toEqual([2, 2]);
    expect([b.verdict.sensitivity.k, b.verdict.sensitivity.n]).toEqual([1, 2]);
    expect([b.verdict.specificity.k, b.verdict.specificity.n]).toEqual([2, 2]);
    for (const f of [a.verdict.agreement, a.verdict.kappa, a.verdict.ac1, a.reward.mae, a.reward.spearman])
      expect(f.label).toBe("too few to say");
    expect(a.threshold).toBe(0.9);
    expect(b.threshold).toBe(0.8);
  });

  it("gives figures once 30 items are covered, with the agreement report's coefficients", () => {
    const items = Array.from({ length: 40 }, (_, i) => item(i, i % 4 === 0 ? "fail" : "pass", i % 4 === 0 ? 0.3 : 1));
    // right on all but items 1 and 4 (passes failed item 4, fails passed item 1)
    const results = Object.fromEntries(
      items.map((it, i) => [it.rolloutId, ok(i === 1 ? 0.5 : i === 4 ? 0.95 : it.human.reward)]),
    );
    const row = board(items, [{ id: "l", label: "ledger", kind: "ledger", results }]).rows[0];
    expect(row.verdict.agreement.label).toBe("95%");
    // 2×2: [[29, 1], [1, 9]]: κ = 2(29·9 − 1)/(30·10 + 30·10) = 520/600
    expect(row.verdict.kappa.value).toBeCloseTo(520 / 600, 12);
    expect(row.verdict.kappa.label).toBe("0.867");
    expect(row.verdict.pabak.value).toBeCloseTo(2 * 0.95 - 1, 12);
    expect(row.verdict.sensitivity.value).toBeCloseTo(9 / 10, 12);
    expect(row.verdict.specificity.value).toBeCloseTo(29 / 30, 12);
    // MAE: |0.5 − 1| + |0.95 − 0.3| over 40
    expect(row.reward.mae.value).toBeCloseTo((0.5 + 0.65) / 40, 12);
    expect(row.isLedger).toBe(true);
  });

  it("measures ordering agreement inside groups against the human pairwise judgements", () => {
    const items = [0, 1, 2, 3, 4, 5].map((i) => item(i, "pass", 1));
    const c: Candidate = {
      id: "c",
      label: "c",
      kind: "code",
      results: { r0: ok(0.9), r1: ok(0.2), r2: ok(0.5), r3: ok(0.5), r4: ok(0.1), r5: failed("error") },
    };
    const pairwise = [
      { groupId: "g0", left: "r0", right: "r1", preferred: "left" as const }, // agree
      { groupId: "g0", left: "r1", right: "r0", preferred: "left" as const }, // inversion
      { groupId: "g1", left: "r2", right: "r3", preferred: "left" as const }, // candidate ties: unordered
      { groupId: "g2", left: "r4", right: "r5", preferred: "right" as const }, // no reward for r5: unordered
      { groupId: "g2", left: "r2", right: "r4", preferred: "tie" as const }, // human tie
    ];
    const o = board(items, [c], pairwise).rows[0].ordering!;
    expect([o.agree, o.inversions, o.ties, o.unordered]).toEqual([1, 1, 1, 2]);
    expect([o.agreement.k, o.agreement.n]).toEqual([1, 2]);
    expect(board(items, [c]).rows[0].ordering).toBeNull();
  });

  it("breaks the figures down per guardrail and per category, counting items the candidate missed", () => {
    const items = [
      item(0, "fail", 0.2, { guardrails: ["G3", "G1", "G3"], category: "refund" }),
      item(1, "fail", 0.2, { guardrails: ["G3"], category: "refund" }),
      item(2, "pass", 1, { guardrails: [], category: "cancel" }),
    ];
    const c: Candidate = { id: "c", label: "c", kind: "rule", results: { r0: ok(0.1), r2: ok(1) } };
    const row = board(items, [c]).rows[0];
    expect(row.guardrails.map((g) => [g.key, g.items, g.covered, g.sensitivity.k])).toEqual([
      ["G1", 1, 1, 1],
      ["G3", 2, 1, 1],
    ]);
    expect(row.categories.map((g) => [g.key, g.items, g.covered, g.agreement.k])).toEqual([
      ["cancel", 1, 1, 1],
      ["refund", 2, 1, 1],
    ]);
  });

  it("puts a cost on 1,000 rollouts from the calls made, failed ones included, and the median latency", () => {
    const items = [0, 1, 2, 3].map((i) => item(i, "pass", 1));
    const c: Candidate = {
      id: "j",
      label: "j",
      kind: "judge",
      results: {
        r0: ok(1, { costUsd: 0.002, latencyMs: 900 }),
        r1: ok(1, { costUsd: 0.004, latencyMs: 1500 }),
        r2: { ...failed("timeout"), costUsd: 0.003, latencyMs: 30000 },
      },
    };
    const cost = board(items, [c]).rows[0].cost;
    expect(cost.costPer1000).toBeCloseTo(3, 12);
    expect(cost.medianLatencyMs).toBe(1500);
    expect(board(items, [{ ...c, results: { r0: ok(1) } }]).rows[0].cost).toMatchObject({
      costPer1000: null,
      medianLatencyMs: null,
    });
  });

  it("flags a candidate the injection probe moves", () => {
    const items = [item(0, "pass", 1)];
    const stable: Candidate = {
      id: "v",
      label: "verifier",
      kind: "ledger",
      results: {},
      probe: [
        { first: 0.95, second: 0.96 },
        { first: 0.4, second: 0.41 },
        { first: 0.2, second: 0.2 },
      ],
    };
    const moved: Candidate = {
      ...stable,
      id: "j",
      kind: "judge",
      probe: [{ first: 0.4, second: 1 }, ...stable.probe!],
    };
    const [a, b] = board(items, [stable, moved]).rows;
    expect([a.flagged, b.flagged]).toEqual([false, true]);
  });

  it("refuses an input that cannot be, naming where", () => {
    const items = [item(0, "pass", 1)];
    const c = (results: Record<string, CandidateResult>, more: Partial<Candidate> = {}): Candidate => ({
      id: "x",
      label: "x",
      kind: "rule",
      results,
      ...more,
    });
    expect(() => board(items, [c({ r0: ok(1.5) })])).toThrow(/candidate x, rollout r0: an ok result needs a reward/);
    expect(() => board(items, [c({ r0: { reward: 0.5, status: "error" } })])).toThrow(/a error result has no reward/);
    expect(() => board(items, [c({ r0: { reward: 1, status: "weird" as "ok" } })])).toThrow(/unknown status/);
    expect(() => board(items, [c({}), c({})])).toThrow(/listed twice/);
    expect(() => board(items, [c({}, { threshold: 0 })])).toThrow(/threshold must be in/);
    expect(() => board(items, [c({}, { id: "a", kind: "ledger" }), c({}, { kind: "ledger" })])).toThrow(/at most one/);
    expect(() => board([item(0, "pass", 2)], [])).toThrow(/item i0: the human reward/);
    expect(() => board(items, [c({ r0: ok(1, { costUsd: -1 }) })])).toThrow(/costUsd/);
    // the first bad result is the one named, the same whichever of its checks fails
    expect(() => board(items, [c({ r0: ok(1), 7: ok(1, { latencyMs: Number.NaN }), r2: ok(2) })])).toThrow(
      /^candidate x, rollout 7: latencyMs must be a non-negative number$/,
    );
  });
});

describe("results as columns (ResultColumns)", () => {
  const items = Array.from({ length: 40 }, (_, i) =>
    item(i, i % 3 === 0 ? "fail" : "pass", i % 3 === 0 ? 0.2 : 1, {
      guardrails: i % 5 === 0 ? ["G1"] : [],
      category: i % 2 ? "refund" : null,
    }),
  );
  const record = (shift: number): Record<string, CandidateResult> =>
    Object.fromEntries(
      items.flatMap((it, i) => {
        if ((i + shift) % 11 === 0) return [];
        const result =
          (i + shift) % 7 === 0
            ? { ...failed("timeout"), latencyMs: 3000 }
            : ok(((i * 37 + shift) % 100) / 100, { costUsd: 0.001 * (i % 4), latencyMs: 100 + i });
        return [[it.rolloutId, result]];
      }),
    );
  const pairwise = [
    { groupId: "g0", left: "r0", right: "r1", preferred: "left" as const },
    { groupId: "g1", left: "r2", right: "r3", preferred: "right" as const },
    { groupId: "g2", left: "r4", right: "r99", preferred: "left" as const },
  ];
  const candidates = (shape: (r: Record<string, CandidateResult>) => Candidate["results"]): Candidate[] => [
    { id: "ledger", label: "ledger", kind: "ledger", results: shape(record(1)) },
    { id: "j", label: "judge", kind: "judge", threshold: 0.6, results: shape(record(4)) },
  ];

  it("gives the same board as the same results by rollout id, laid out on their own or over the items' rollouts", () => {
    const byId = buildLeaderboard({ items, pairwise, candidates: candidates((r) => r) });
    const own = buildLeaderboard({ items, pairwise, candidates: candidates((r) => ResultColumns.of(r)) });
    // as the loader lays them: over the items' rollouts in their order, shared by every candidate
    const slots = rolloutSlots(items.map((i) => i.rolloutId));
    const over = (r: Record<string, CandidateResult>) => {
      const columns = new ResultColumns(slots);
      for (const [rollout, result] of Object.entries(r)) columns.set(slots.slotOf.get(rollout)!, result);
      return columns;
    };
    const shared = buildLeaderboard({ items, pairwise, candidates: candidates(over) });
    expect(byId.rows[1].coverage.missing).toMatchObject({ not_run: 3, timeout: 6 });
    expect(byId.rows[1].cost.costPer1000).not.toBeNull();
    expect(own).toEqual(byId);
    expect(shared).toEqual(byId);
  });

  it("reads a result back as it was given, and a rollout without one as not run", () => {
    const given = record(4);
    const columns = ResultColumns.of(given);
    expect(columns.resultAt(columns.slotOf("r1"))).toEqual({ components: null, ...given.r1 });
    expect(columns.resultAt(columns.slotOf("r3"))).toEqual({ costUsd: null, components: null, ...given.r3 });
    expect(columns.rewardAt(columns.slotOf("r3"))).toEqual({ missing: "timeout" });
    expect(columns.rewardAt(columns.slotOf("r7"))).toEqual({ missing: "not_run" });
    expect(columns.resultAt(columns.slotOf("r7"))).toBeUndefined();
  });

  it("refuses columns that cannot be, naming the candidate and the rollout", () => {
    const bad = (set: (c: ResultColumns, slot: number) => void) => {
      const columns = ResultColumns.of({ r0: ok(1), r1: ok(0.5, { latencyMs: 3 }) });
      set(columns, columns.slotOf("r1"));
      return () => board([item(0, "pass", 1)], [{ id: "x", label: "x", kind: "rule", results: columns }]);
    };
    expect(bad((c, s) => (c.reward[s] = 1.5))).toThrow(
      /^candidate x, rollout r1: an ok result needs a reward in \[0, 1\]$/,
    );
    expect(bad((c, s) => (c.reward[s] = Number.NaN))).toThrow(/rollout r1: an ok result needs a reward/);
    expect(bad((c, s) => (c.status[s] = UNKNOWN_STATUS))).toThrow(/^candidate x, rollout r1: unknown status$/);
    expect(bad((c, s) => c.set(s, { reward: 0.5, status: "error" }))).toThrow(
      /rollout r1: a error result has no reward/,
    );
    expect(bad((c, s) => (c.latencyMs[s] = -1))).toThrow(/rollout r1: latencyMs must be a non-negative number/);
    expect(bad((c, s) => (c.costUsd[s] = Number.POSITIVE_INFINITY))).toThrow(/rollout r1: costUsd must be/);
    expect(bad(() => {})).not.toThrow();
  });
});

describe("sortLeaderboard", () => {
  const items = Array.from({ length: 4 }, (_, i) => item(i, i < 2 ? "pass" : "fail", i < 2 ? 1 : 0));
  const cand = (id: string, kind: Candidate["kind"], rewards: (number | null)[], cost?: number): Candidate => ({
    id,
    label: id,
    kind,
    results: Object.fromEntries(
      rewards.flatMap((r, i) => (r === null ? [] : [[`r${i}`, ok(r, cost === undefined ? {} : { costUsd: cost })]])),
    ),
  });
  const rows = buildLeaderboard({
    items,
    pairwise: [],
    candidates: [
      cand("b-rule", "rule", [1, 1, 0.5, 0], 0.001),
      cand("ledger", "ledger", [1, 1, 0.5, 0]),
      cand("a-judge", "judge", [0.9, 0.2, 0.3, 0.8], 0.004),
      cand("none", "code", [null, null, null, null]),
    ],
  }).rows;

  it("puts the best first by default, undefined values last, the ledger first among ties", () => {
    expect(sortLeaderboard(rows, "mae").map((r) => r.id)).toEqual(["ledger", "b-rule", "a-judge", "none"]);
    expect(sortLeaderboard(rows, "agreement").map((r) => r.id)).toEqual(["ledger", "b-rule", "a-judge", "none"]);
    expect(sortLeaderboard(rows, "cost").map((r) => r.id)).toEqual(["b-rule", "a-judge", "ledger", "none"]);
  });

  it("follows an explicit direction, still with undefined values last", () => {
    expect(sortLeaderboard(rows, "mae", "desc").map((r) => r.id)).toEqual(["a-judge", "ledger", "b-rule", "none"]);
  });
});
