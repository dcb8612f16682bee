import { describe, expect, it } from "vitest";
import { groupAdvantages } from "@/lib/ledger/group-advantage.ts";

describe("groupAdvantages", () => {
  it("computes (r − mean) / population std", () => {
    // rewards 1, 0.5, 0.5, 0 → mean 0.5, std sqrt((0.25+0+0+0.25)/4) = sqrt(0.125) ≈ 0.353553
    const g = groupAdvantages([1, 0.5, 0.5, 0]);
    expect(g.mean).toBeCloseTo(0.5, 12);
    expect(g.std).toBeCloseTo(Math.sqrt(0.125), 12);
    expect(g.advantages.map((a) => Number(a!.toFixed(6)))).toEqual([1.414214, 0, 0, -1.414214]);
  });
  it("gives no gradient (null) when every reward is equal", () => {
    expect(groupAdvantages([0.55, 0.55, 0.55, 0.55])).toEqual({ mean: 0.55, std: 0, advantages: [null, null, null, null] });
  });
  it("leaves error records out", () => {
    const g = groupAdvantages([1, null, 0]);
    expect(g.mean).toBe(0.5);
    expect(g.advantages[1]).toBeNull();
    expect(g.advantages[0]).toBeCloseTo(1, 12);
  });
  it("handles an empty group", () => {
    expect(groupAdvantages([])).toEqual({ mean: null, std: null, advantages: [] });
  });
});
