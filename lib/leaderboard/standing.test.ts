// The ledger's standing on a leaderboard: its rank by agreement and, against the best other candidate, McNemar's test.
import { describe, expect, it } from "vitest";
import type { Candidate, LeaderboardInput } from "@/lib/leaderboard/input.ts";
import { ledgerStanding } from "@/lib/leaderboard/standing.ts";

/** 40 items, humans pass the even ones; each candidate right on the items `right` says. */
function input(rights: Record<string, (i: number) => boolean>): LeaderboardInput {
  const items = Array.from({ length: 40 }, (_, i) => ({
    itemId: `i${i}`,
    rolloutId: `r${i}`,
    groupId: null,
    human: { verdict: i % 2 === 0 ? ("pass" as const) : ("fail" as const), reward: i % 2 === 0 ? 1 : 0 },
    guardrails: [],
    category: null,
  }));
  const candidates: Candidate[] = Object.entries(rights).map(([id, right]) => ({
    id,
    label: id,
    kind: id === "ledger" ? "ledger" : "rule",
    results: Object.fromEntries(
      items.map((it, i) => {
        const pass = it.human.verdict === "pass" ? right(i) : !right(i);
        return [it.rolloutId, { reward: pass ? 1 : 0, status: "ok" as const }];
      }),
    ),
  }));
  return { items, candidates, pairwise: [] };
}

describe("ledgerStanding", () => {
  it("ranks the ledger by agreement and says it is significantly worse than a best that is right on 10 more items", () => {
    // ledger wrong on items 0–9, judge right everywhere: b = 0, c = 10, McNemar p = 2/1024
    const s = ledgerStanding(input({ ledger: (i) => i >= 10, judge: () => true, rule: (i) => i >= 5 }))!;
    expect([s.rank, s.of]).toEqual([3, 3]);
    expect(s.best).toMatchObject({ id: "judge", n: 40, difference: -0.25 });
    expect(s.best!.pValue).toBeCloseTo(2 / 1024, 12);
    expect(s.significantlyWorse).toBe(true);
  });

  it("is not worse when the difference is within chance, nor when the ledger leads", () => {
    const close = ledgerStanding(input({ ledger: (i) => i >= 2, judge: () => true }))!;
    expect(close.best!.pValue).toBeCloseTo(0.5, 12);
    expect([close.rank, close.significantlyWorse]).toEqual([2, false]);
    const leads = ledgerStanding(input({ ledger: () => true, judge: (i) => i >= 20 }))!;
    expect([leads.rank, leads.significantlyWorse, leads.best!.id]).toEqual([1, false, "judge"]);
  });

  it("has no best without a reward function, and no standing without a ledger row", () => {
    expect(ledgerStanding(input({ ledger: () => true }))).toMatchObject({ rank: 1, of: 1, best: null });
    expect(ledgerStanding(input({ judge: () => true }))).toBeNull();
  });
});
