import { describe, expect, it } from "vitest";
import { disagreementsBySide, headToHead, verdictOf } from "@/lib/leaderboard/head-to-head.ts";
import type { AuditedItem, Candidate, LeaderboardInput } from "@/lib/leaderboard/input.ts";
import { itemsForHalfWidth } from "@/lib/stats/audit-plan.ts";

const item = (i: number, verdict: "pass" | "fail"): AuditedItem => ({
  itemId: `i${i}`,
  rolloutId: `r${i}`,
  groupId: `g${i}`,
  human: { verdict, reward: verdict === "pass" ? 1 : 0 },
  guardrails: [],
  category: null,
});

/** Items where A is right on `aOnly`, B on `bOnly`, both on `both`; the human passes every item. */
function input(both: number, aOnly: number, bOnly: number, extra = 0): LeaderboardInput {
  const n = both + aOnly + bOnly;
  const items = Array.from({ length: n + extra }, (_, i) => item(i, "pass"));
  const res = (right: (i: number) => boolean) =>
    Object.fromEntries(
      items
        .slice(0, n)
        .map((it, i) => [
          it.rolloutId,
          { reward: right(i) ? 0.95 : 0.3, status: "ok" as const, components: { outcome: right(i) ? 1 : 0 } },
        ]),
    );
  const a: Candidate = { id: "a", label: "rule A", kind: "rule", results: res((i) => i < both + aOnly) };
  const b: Candidate = {
    id: "b",
    label: "judge B",
    kind: "judge",
    results: { ...res((i) => i < both || i >= both + aOnly), [`r${n}`]: { reward: 1, status: "ok" } },
  };
  return { items, candidates: [a, b], pairwise: [] };
}

describe("headToHead", () => {
  it("says which agrees more often when McNemar separates them", () => {
    const h = headToHead(input(30, 10, 1, 2), "a", "b", { iterations: 100 });
    expect(h.n).toBe(41);
    expect(h.tooFew).toBe(false);
    // item 41 scored by B only, item 42 by neither
    expect(h.onlyOne).toBe(1);
    expect(h.table).toEqual({ both: 30, firstOnly: 10, secondOnly: 1, neither: 0 });
    expect(h.agreement!.pValue).toBeCloseTo((2 * 12) / 2048, 12);
    expect(h.verdict).toEqual({ better: "a", moreItems: null, text: "rule A agrees more often than judge B" });
    expect(headToHead(input(30, 1, 10), "a", "b", { iterations: 100 }).verdict.text).toBe(
      "judge B agrees more often than rule A",
    );
  });

  it("lists the disagreements with both rewards, components and the side the human took", () => {
    const h = headToHead(input(30, 3, 2), "a", "b", { iterations: 100 });
    expect(h.disagreements).toHaveLength(5);
    // 35 items compared; at 23 the differences are below the agreement report's minimum
    expect(h.tooFew).toBe(false);
    expect(headToHead(input(20, 2, 1), "a", "b", { iterations: 50 }).tooFew).toBe(true);
    expect(disagreementsBySide(h, "a").map((d) => d.itemId)).toEqual(["i30", "i31", "i32"]);
    expect(disagreementsBySide(h, "b").map((d) => d.itemId)).toEqual(["i33", "i34"]);
    expect(disagreementsBySide(h, "any")).toHaveLength(5);
    expect(h.disagreements[0]).toEqual({
      itemId: "i30",
      rolloutId: "r30",
      groupId: "g30",
      human: { verdict: "pass", reward: 1 },
      a: { reward: 0.95, pass: true, components: { outcome: 1 } },
      b: { reward: 0.3, pass: false, components: { outcome: 0 } },
      humanSide: "a",
    });
  });

  it("refuses an unknown candidate", () => {
    expect(() => headToHead(input(1, 0, 0), "a", "nope")).toThrow(/no candidate nope/);
  });
});

describe("verdictOf", () => {
  it("asks the audit planner how many more items the difference seen would need", () => {
    // 3 against 2 of 35: π = 0.6, half-width 0.1 → the planner's discordant items, over a discordant share of 5/35
    const need = itemsForHalfWidth(0.6, 0.1);
    const v = verdictOf("A", "B", 3, 2, 35, 1);
    expect(v.better).toBeNull();
    expect(v.moreItems).toBe(Math.ceil(need / (5 / 35)) - 35);
    expect(v.text).toBe(`the audit cannot tell them apart yet: about ${v.moreItems} more audited items would`);
  });

  it("needs at least six discordant items, the fewest an exact test can separate", () => {
    // 2 against 0 of 40: the planner alone would ask for 1 discordant item; six at a discordant share of 1/20
    expect(verdictOf("A", "B", 2, 0, 40, 0.5).moreItems).toBe(120 - 40);
  });

  it("gives no number when nothing separates them", () => {
    expect(verdictOf("A", "B", 0, 0, 12, 1)).toEqual({
      better: null,
      moreItems: null,
      text: "the audit cannot tell them apart: on 12 audited items they give the same verdict on every item",
    });
    expect(verdictOf("A", "B", 4, 4, 12, 1).text).toMatch(/each is right as often as the other/);
  });
});
