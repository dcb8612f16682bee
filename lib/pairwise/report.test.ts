import { describe, expect, it } from "vitest";
import type { PairJudgementRow, PairReportItem } from "@/lib/pairwise/report-data.ts";
import { buildPairReport, inversionRows, stepWindow } from "@/lib/pairwise/report.ts";

let nextId = 1n;
const judgement = (
  preferred: "A" | "B" | null,
  choice: "left" | "right" | "tie",
  over: Partial<PairJudgementRow> = {},
): { preferred: "A" | "B" | null; row: Omit<PairJudgementRow, "preferredTrajectoryId"> } => ({
  preferred,
  row: {
    reviewId: nextId++,
    reviewerId: 1,
    reviewerEmail: "a@x",
    choice,
    reason: null,
    excludedReason: null,
    createdAt: new Date(0),
    ...over,
  },
});

/** A pair with rewards A/B (as reviewed; `now` optional) and its judgements. */
function pair(
  id: number,
  rewards: [number | null, number | null],
  js: ReturnType<typeof judgement>[],
  over: Partial<Omit<PairReportItem, "a" | "b" | "judgements">> & { now?: [number, number] } = {},
): PairReportItem {
  const a = `t${id}/a`;
  const b = `t${id}/b`;
  const { now, ...rest } = over;
  return {
    itemId: BigInt(id),
    batchId: 1,
    ticketId: `T${id}`,
    step: 10,
    category: "refund",
    stratum: "none+none",
    inclusionProb: 0.5,
    bOnLeft: false,
    disputedAt: null,
    adjudication: null,
    ...rest,
    a: {
      trajectoryId: a,
      reviewed: { ledgerId: 1n, reward: rewards[0], decidingGuardrail: null },
      now: now ? { ledgerId: 2n, reward: now[0], decidingGuardrail: null } : null,
    },
    b: {
      trajectoryId: b,
      reviewed: { ledgerId: 3n, reward: rewards[1], decidingGuardrail: null },
      now: now ? { ledgerId: 4n, reward: now[1], decidingGuardrail: null } : null,
    },
    judgements: js.map((j) => ({
      ...j.row,
      preferredTrajectoryId: j.preferred === null ? null : `t${id}/${j.preferred.toLowerCase()}`,
    })),
  };
}

const OPTS = { basis: "reviewed" as const, delta: 0.1, window: 500 };

describe("buildPairReport", () => {
  it("counts each pair once through its first counted judgement; the rest feed only the between-annotator figures", () => {
    const items = [
      // the excluded lead judgement is skipped: the primary one is the annotator's inversion
      pair(1, [1, 0.2], [judgement("A", "left", { excludedReason: "lead" }), judgement("B", "right")]),
      // overlap: first agrees, second is a tie — the pair counts as agree once
      pair(2, [0.9, 0.4], [judgement("A", "left"), judgement(null, "tie", { reviewerId: 2 })]),
      pair(3, [0.5, 0.45], [judgement(null, "tie")]),
      pair(4, [0.3, 0.3], [judgement("B", "right")]),
      pair(5, [null, 0.3], [judgement("A", "left", { excludedReason: "lead" })]),
    ];
    const r = buildPairReport(items, OPTS);
    expect(r.pairs).toBe(4);
    expect(r.excluded).toBe(2);
    expect([r.overall.agree, r.overall.inversions, r.overall.ties, r.overall.unordered]).toEqual([1, 1, 1, 1]);
    expect(r.overall.agreement.value).toBe(0.5);
    expect(r.overall.agreement.label).toBe("too few to say");
    expect(r.overall.tieShare.value).toBeCloseTo(1 / 3, 12);
    // left: pair 2; right: pairs 1 and 4 (a ledger tie still chose a side)
    expect(r.position.leftShare.value).toBeCloseTo(1 / 3, 12);
    expect(r.position.containsHalf).toBe(true);
    expect(r.byGap.map((g) => [g.key, g.judgements])).toEqual([
      ["≤ 0.1", 2],
      ["0.25–0.5", 1],
      ["> 0.5", 1],
    ]);
    expect(r.betweenAnnotators.pairs).toBe(1);
    expect(r.betweenAnnotators.table).toEqual([
      [0, 0, 1],
      [0, 0, 0],
      [0, 0, 0],
    ]);
    expect(r.stratified).toBe(false);
    expect(r.overall.weighted).toBeNull();
  });

  it("counts a human tie on a pair the ledger scores equal as unordered, not as a tie", () => {
    const items = [
      pair(1, [0.7, 0.7], [judgement(null, "tie")]),
      pair(2, [0.7, 0.7], [judgement("A", "left")]),
      pair(3, [0.9, 0.2], [judgement(null, "tie")]),
      pair(4, [0.9, 0.2], [judgement("A", "left")]),
      pair(5, [0.9, 0.2], [judgement("B", "right")]),
    ];
    const r = buildPairReport(items, OPTS);
    expect([r.overall.agree, r.overall.inversions, r.overall.ties, r.overall.unordered]).toEqual([1, 1, 1, 2]);
    // ties over the pairs the ledger orders (agree + inversions + ties): 1 / 3, not 2 / 4
    expect(r.overall.tieShare.value).toBeCloseTo(1 / 3, 12);
    expect(r.overall.tieShare.n).toBe(3);
  });

  it("has no between-annotator AC1 when every overlap choice is the same: nothing to tell apart", () => {
    const items = [1, 2, 3].map((id) =>
      pair(id, [0.9, 0.2], [judgement("A", "left"), judgement("A", "left", { reviewerId: 2 })]),
    );
    const b = buildPairReport(items, OPTS).betweenAnnotators;
    expect(b.pairs).toBe(3);
    expect(b.ac1.value).toBeNull();
    expect(b.ac1.label).toBe(
      "not defined: the two annotators' choices all fall in one category: nothing to tell apart",
    );
    expect(b.ac1.interval).toBeNull();
  });

  it("ranks inversions by reward gap, tallies verdicts, and the 'now' basis reorders a re-scored pair", () => {
    const items = [
      pair(1, [0.6, 0.5], [judgement("B", "right")]),
      pair(2, [0.1, 0.95], [judgement("A", "left"), judgement("B", "right", { reviewerId: 2 })], {
        adjudication: { cause: "spec_wrong", guardrail: null },
      }),
      // re-scored since: now B is higher, so preferring B agrees
      pair(3, [0.9, 0.2], [judgement("B", "right")], { now: [0.2, 0.9] }),
    ];
    const rows = inversionRows(items, "reviewed");
    expect(rows.map((x) => x.itemId)).toEqual(["2", "3", "1"]);
    expect(rows[0]).toMatchObject({
      gap: expect.closeTo(0.85, 12),
      higher: { trajectoryId: "t2/b", reward: 0.95 },
      lower: { trajectoryId: "t2/a", reward: 0.1 },
      inverted: 1,
      counted: 2,
      cause: "spec_wrong",
    });
    const r = buildPairReport(items, OPTS);
    expect(r.tally).toMatchObject({ total: 1, pending: 2, byCause: { spec_wrong: 1, annotator_wrong: 0 } });
    const now = buildPairReport(items, { ...OPTS, basis: "now" });
    expect(now.inversions.map((x) => x.itemId)).toEqual(["2", "1"]);
    expect([now.overall.agree, now.overall.inversions]).toEqual([1, 2]);
  });

  it("weights by 1/π when pairs had unequal inclusion probabilities, and breaks down by stratum, category, window", () => {
    const items = [
      ...Array.from({ length: 30 }, (_, i) =>
        pair(100 + i, [1, 0.2], [judgement("A", i % 2 ? "left" : "right")], { inclusionProb: 0.1, step: 40 }),
      ),
      ...Array.from({ length: 10 }, (_, i) =>
        pair(200 + i, [1, 0.2], [judgement("B", "left")], {
          inclusionProb: 1,
          stratum: "empty_promise+none",
          category: null,
          step: 1200,
        }),
      ),
    ];
    const r = buildPairReport(items, OPTS);
    expect(r.stratified).toBe(true);
    expect(r.overall.agreement.value).toBe(0.75);
    expect(r.overall.agreement.label).toBe("75%");
    // weights 10 and 1: 300 / 310
    expect(r.overall.weighted!.value).toBeCloseTo(300 / 310, 12);
    expect(r.byStratum.map((s) => [s.key, s.agreement.value])).toEqual([
      ["empty_promise+none", 0],
      ["none+none", 1],
    ]);
    expect(r.byCategory.map((s) => s.key)).toEqual(["refund", "uncategorised"]);
    expect(r.byWindow.map((s) => [s.key, s.judgements])).toEqual([
      ["0–499", 30],
      ["1000–1499", 10],
    ]);
    // 25 left of 40: interval 47–76% contains ½
    expect(r.position.leftShare.value).toBe(25 / 40);
    expect(r.position.containsHalf).toBe(true);
  });

  it("says when position bias is beyond chance, and is empty without judgements", () => {
    const items = Array.from({ length: 40 }, (_, i) => pair(300 + i, [1, 0.2], [judgement("A", "left")]));
    expect(buildPairReport(items, OPTS).position.containsHalf).toBe(false);
    const empty = buildPairReport([], OPTS);
    expect(empty.pairs).toBe(0);
    expect(empty.overall.agreement.detail).toBe("no data");
    expect(empty.position.containsHalf).toBeNull();
    expect(empty.betweenAnnotators.kappa.label).toBe("not defined: no pair was judged by two annotators");
  });

  it("names step windows by their first and last step", () => {
    expect(stepWindow(0, 500)).toBe("0–499");
    expect(stepWindow(999, 500)).toBe("500–999");
    expect(stepWindow(1000, 500)).toBe("1000–1499");
  });
});
