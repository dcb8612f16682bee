import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  averageRanks,
  completePairs,
  meanAbsoluteError,
  meanAbsoluteErrorInterval,
  pearson,
  spearman,
  spearmanInterval,
  spearmanIntervalOf,
  spearmanUndefinedReason,
} from "@/lib/stats/correlation.ts";

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
      fc.property(
        fc.array(
          fc.tuple(fc.double({ min: -1e6, max: 1e6, noNaN: true }), fc.double({ min: -1e6, max: 1e6, noNaN: true })),
          { minLength: 2, maxLength: 30 },
        ),
        (pairs) => {
          const r = pearson(
            pairs.map((p) => p[0]),
            pairs.map((p) => p[1]),
          );
          if (r !== null) expect(Math.abs(r)).toBeLessThanOrEqual(1);
        },
      ),
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

describe("spearmanInterval (Fisher z, Bonett–Wright standard error)", () => {
  it("by hand: ρ = 0.8 on 5 pairs", () => {
    // ranks (1..5) against (2,1,4,3,5): Σd² = 4, ρ = 1 − 6·4/(5·24) = 0.8; se = sqrt((1 + 0.32)/2) = 0.8124
    const r = spearmanInterval([1, 2, 3, 4, 5], [2, 1, 4, 3, 5])!;
    expect(r.estimate).toBeCloseTo(0.8, 12);
    expect(r.lower).toBeCloseTo(-0.4571243888, 8);
    expect(r.upper).toBeCloseTo(0.9908429479, 8);
  });
  it("from a known ρ and n (spearmanIntervalOf) is the same interval", () => {
    const xs = [0.1, 0.5, null, 0.3, 0.9, 0.7, 0.2];
    const ys = [0.2, 0.4, 0.5, 0.1, 1, 0.8, NaN];
    expect(spearmanIntervalOf(spearman(xs, ys), 5)).toEqual(spearmanInterval(xs, ys));
    expect(spearmanIntervalOf(null, 10)).toBeNull();
    expect(spearmanIntervalOf(0.5, 3)).toBeNull();
  });
  it("is null below 4 pairs or on a constant side, and a point at |ρ| = 1", () => {
    expect(spearmanInterval([1, 2, 3], [1, 2, 3])).toBeNull();
    expect(spearmanInterval([1, 1, 1, 1], [1, 2, 3, 4])).toBeNull();
    expect(spearmanInterval([], [])).toBeNull();
    expect(spearmanInterval([1, 2, 3, 4], [4, 3, 2, 1])).toEqual({ estimate: -1, lower: -1, upper: -1 });
  });
  it("property: contains ρ and stays in [−1, 1]", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true })), {
          minLength: 4,
          maxLength: 40,
        }),
        (pairs) => {
          const r = spearmanInterval(
            pairs.map((p) => p[0]),
            pairs.map((p) => p[1]),
          );
          if (r === null) return;
          expect(r.lower).toBeGreaterThanOrEqual(-1);
          expect(r.upper).toBeLessThanOrEqual(1);
          expect(r.lower).toBeLessThanOrEqual(r.estimate + 1e-12);
          expect(r.upper).toBeGreaterThanOrEqual(r.estimate - 1e-12);
        },
      ),
    );
  });
});

describe("meanAbsoluteErrorInterval", () => {
  it("by hand: |d| = 0.1, 0.3, 0 → 0.1333 ± 1.96 · 0.0882, clamped at 0", () => {
    const r = meanAbsoluteErrorInterval([0.9, 0.2, 1, null], [0.8, 0.5, 1, 0.3])!;
    expect(r.estimate).toBeCloseTo(0.4 / 3, 12);
    expect(r.lower).toBe(0);
    expect(r.upper).toBeCloseTo(0.3061859094, 8);
  });
  it("is a point when every error is the same, and null below 2 pairs", () => {
    expect(meanAbsoluteErrorInterval([0.5, 0.7], [0.4, 0.6])).toEqual({
      estimate: expect.closeTo(0.1, 12),
      lower: expect.closeTo(0.1, 12),
      upper: expect.closeTo(0.1, 12),
    });
    expect(meanAbsoluteErrorInterval([0.5], [0.4])).toBeNull();
    expect(meanAbsoluteErrorInterval([], [])).toBeNull();
  });
});

describe("spearmanUndefinedReason", () => {
  const names = { a: "the ledger", b: "the human side", what: "outcome score" };
  it("says why ρ is null, exactly when it is", () => {
    expect(spearmanUndefinedReason([1, 1, 1], [0.2, 0.5, 1], names)).toBe(
      "the ledger gives every item the same outcome score",
    );
    expect(spearman([1, 1, 1], [0.2, 0.5, 1])).toBeNull();
    expect(spearmanUndefinedReason([0.2, 0.5, 1], [1, 1, 1], names)).toBe(
      "the human side gives every item the same outcome score",
    );
    expect(spearmanUndefinedReason([1, 1], [1, 1], names)).toBe(
      "the ledger and the human side each give every item the same outcome score",
    );
    expect(spearmanUndefinedReason([1, null], [null, 1], names)).toBe("fewer than two items are scored on both sides");
    expect(spearmanUndefinedReason([0.1, 0.5, 0.9], [0.2, 0.4, 1], names)).toBeNull();
    expect(spearman([0.1, 0.5, 0.9], [0.2, 0.4, 1])).not.toBeNull();
  });
});
