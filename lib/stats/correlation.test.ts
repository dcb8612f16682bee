import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { averageRanks, completePairs, meanAbsoluteError, pearson, spearman } from "@/lib/stats/correlation.ts";

describe("averageRanks", () => {
  it("gives ties the mean of their ranks", () => {
    expect(averageRanks([10, 20, 20, 30])).toEqual([1, 2.5, 2.5, 4]);
    expect(averageRanks([3, 1, 3, 3])).toEqual([3, 1, 3, 3]);
    expect(averageRanks([])).toEqual([]);
  });

  it("property: ranks sum to n(n + 1)/2", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 40 }), (xs) => {
        const n = xs.length;
        expect(averageRanks(xs).reduce((a, b) => a + b, 0)).toBeCloseTo((n * (n + 1)) / 2, 9);
      }),
    );
  });
});

describe("spearman", () => {
  it("reproduces Wikipedia's worked example (Spearman's rank correlation, IQ vs hours of TV): ρ = −29/165", () => {
    const iq = [106, 100, 86, 101, 99, 103, 97, 113, 112, 110];
    const tv = [7, 27, 2, 50, 28, 29, 20, 12, 6, 17];
    expect(spearman(iq, tv)).toBeCloseTo(-29 / 165, 12);
  });

  it("by hand with ties (scipy.stats.spearmanr agrees: 0.9486833)", () => {
    // ranks x = [1, 2.5, 2.5, 4], y = [1, 3, 2, 4]: Σdxdy = 4.5, Σdx² = 4.5, Σdy² = 5 → 4.5/sqrt(22.5)
    expect(spearman([1, 2, 2, 3], [1, 3, 2, 4])).toBeCloseTo(4.5 / Math.sqrt(22.5), 12);
  });

  it("is ±1 for monotone relations, whatever their shape", () => {
    expect(spearman([1, 2, 3, 4], [1, 8, 27, 64])).toBe(1);
    expect(spearman([1, 2, 3, 4], [0.9, 0.5, 0.2, 0.1])).toBe(-1);
  });

  it("is null when a side is constant or there are fewer than two complete pairs", () => {
    expect(spearman([0.5, 0.5, 0.5], [0.1, 0.2, 0.3])).toBeNull();
    expect(spearman([0.1, 0.2, 0.3], [1, 1, 1])).toBeNull();
    expect(spearman([1], [2])).toBeNull();
    expect(spearman([], [])).toBeNull();
  });

  it("ignores pairs with a missing side (null, undefined, NaN, Infinity)", () => {
    expect(spearman([1, 2, null, 3, NaN, 4], [1, 8, 5, undefined, 2, 64])).toBe(1);
    expect(spearman([1, Infinity, 2], [1, 2, 3])).toBe(1);
  });

  it("throws on arrays of different length", () => {
    expect(() => spearman([1, 2], [1])).toThrow(RangeError);
  });
});

describe("pearson", () => {
  it("by hand", () => {
    // x̄ = 2, ȳ = 13/3: dx = [−1, 0, 1], dy = [−7/3, −1/3, 8/3]
    // Σdxdy = 7/3 + 8/3 = 5, Σdx² = 2, Σdy² = (49 + 1 + 64)/9 = 38/3 → r = 5 / sqrt(2 · 38/3) = 0.99339
    expect(pearson([1, 2, 3], [2, 4, 7])).toBeCloseTo(5 / Math.sqrt(2 * (38 / 3)), 12);
  });

  it("treats equal floats as constant although their float mean is off by an ulp", () => {
    expect(pearson([0.1, 0.1, 0.1], [1, 2, 3])).toBeNull();
  });

  it("property: in [−1, 1]", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.double({ min: -1e6, max: 1e6, noNaN: true }), fc.double({ min: -1e6, max: 1e6, noNaN: true })), { minLength: 2, maxLength: 30 }), (pairs) => {
        const r = pearson(pairs.map((p) => p[0]), pairs.map((p) => p[1]));
        if (r !== null) expect(Math.abs(r)).toBeLessThanOrEqual(1);
      }),
    );
  });
});

describe("meanAbsoluteError and completePairs", () => {
  it("by hand, ignoring incomplete pairs", () => {
    // |0.9 − 0.8| + |0.2 − 0.5| + |1 − 1| = 0.1 + 0.3 + 0 = 0.4 over 3
    expect(meanAbsoluteError([0.9, 0.2, 1, null], [0.8, 0.5, 1, 0.3])).toBeCloseTo(0.4 / 3, 12);
    expect(meanAbsoluteError([], [])).toBeNull();
    expect(meanAbsoluteError([NaN], [1])).toBeNull();
    expect(completePairs([1, NaN, 3], [4, 5, null])).toEqual({ xs: [1], ys: [4] });
  });
});
