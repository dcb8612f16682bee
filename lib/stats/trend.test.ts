import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  earlyVsLate,
  groupAdvantage,
  groupStdFromMoments,
  leastSquaresSlope,
  meanWithinGroupStd,
  noGradientShare,
  slopeInterval,
  type StepPoint,
} from "@/lib/stats/trend.ts";

const series = (values: (number | null)[], n?: number[]): StepPoint[] =>
  values.map((value, i) => ({ step: (i + 1) * 100, value, n: n?.[i] }));

describe("leastSquaresSlope", () => {
  it("by hand", () => {
    // x = 100, 200, 300, 400; y = 0.08, 0.10, 0.15, 0.19: x̄ = 250, ȳ = 0.13;
    // Σdxdy = (−150)(−0.05) + (−50)(−0.03) + (50)(0.02) + (150)(0.06) = 7.5 + 1.5 + 1 + 9 = 19; Σdx² = 50000
    expect(leastSquaresSlope(series([0.08, 0.1, 0.15, 0.19]))).toBeCloseTo(19 / 50000, 12);
  });

  it("is exact on a line and indifferent to point order", () => {
    const pts: StepPoint[] = [
      { step: 30, value: 7 },
      { step: 10, value: 3 },
      { step: 20, value: 5 },
    ];
    expect(leastSquaresSlope(pts)).toBeCloseTo(0.2, 12);
  });

  it("weights by n on request", () => {
    // Unweighted slope of (0, 0), (1, 1), (2, 0) is 0; weighting the middle point does not change symmetry,
    // weighting the last point pulls the line down.
    const pts: StepPoint[] = [
      { step: 0, value: 0, n: 1 },
      { step: 1, value: 1, n: 1 },
      { step: 2, value: 0, n: 10 },
    ];
    expect(leastSquaresSlope(pts)).toBe(0);
    // weights 1, 1, 10: x̄ = 21/12 = 1.75, ȳ = 1/12; Σw dx dy = (−1.75)(−1/12) + (−0.75)(11/12) + 10(0.25)(−1/12) = −0.75
    // Σw dx² = 3.0625 + 0.5625 + 0.625 = 4.25 → −0.75/4.25
    expect(leastSquaresSlope(pts, { weightByN: true })).toBeCloseTo(-0.75 / 4.25, 12);
  });

  it("ignores missing values and n = 0; null with fewer than two points or one step", () => {
    expect(leastSquaresSlope(series([0.1, null, NaN, 0.3], [10, 10, 10, 10]))).toBeCloseTo(0.2 / 300, 12);
    expect(leastSquaresSlope(series([0.1, 0.9], [10, 0]))).toBeNull();
    expect(leastSquaresSlope(series([0.1]))).toBeNull();
    expect(leastSquaresSlope([])).toBeNull();
    expect(
      leastSquaresSlope([
        { step: 5, value: 1 },
        { step: 5, value: 2 },
      ]),
    ).toBeNull();
  });
});

describe("earlyVsLate", () => {
  it("compares the first and last thirds by step", () => {
    // 7 points: thirds of ⌊7/3⌋ = 2 → early mean(0.1, 0.2), late mean(0.6, 0.7)
    const r = earlyVsLate(series([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]))!;
    expect(r.early).toBeCloseTo(0.15, 12);
    expect(r.late).toBeCloseTo(0.65, 12);
    expect(r.change).toBeCloseTo(0.5, 12);
    expect(r.ratio).toBeCloseTo(0.65 / 0.15, 12);
  });

  it("pools shares by n when weighted: hand-off 8% → 41% (domain.md)", () => {
    // early: (8 + 4)/(100 + 50) = 0.08; late: (41 + 82)/(100 + 200) = 0.41
    const r = earlyVsLate(series([0.08, 0.08, 0.2, 0.3, 0.41, 0.41], [100, 50, 100, 100, 100, 200]), {
      weightByN: true,
    })!;
    expect(r.early).toBeCloseTo(0.08, 12);
    expect(r.late).toBeCloseTo(0.41, 12);
  });

  it("ratio is null from a zero start; null below three points", () => {
    expect(earlyVsLate(series([0, 0.1, 0.2]))!.ratio).toBeNull();
    expect(earlyVsLate(series([0.1, 0.2]))).toBeNull();
    expect(earlyVsLate(series([0.1, null, 0.2]))).toBeNull();
  });
});

describe("groupAdvantage", () => {
  it("by hand with the population std", () => {
    // rewards 0, 1: mean 0.5, std 0.5 → −1, 1
    expect(groupAdvantage([0, 1])).toEqual([-1, 1]);
    // 0.2, 0.2, 0.5, 0.9: mean 0.45, deviations −0.25, −0.25, 0.05, 0.45; Σd² = 0.0625 + 0.0625 + 0.0025 + 0.2025 = 0.33; std = sqrt(0.0825)
    const s = Math.sqrt(0.0825);
    const a = groupAdvantage([0.2, 0.2, 0.5, 0.9]);
    [-0.25 / s, -0.25 / s, 0.05 / s, 0.45 / s].forEach((v, i) => expect(a[i]).toBeCloseTo(v, 12));
  });

  it("is null for every member when the group has no spread (no gradient)", () => {
    expect(groupAdvantage([0.3, 0.3, 0.3, 0.3])).toEqual([null, null, null, null]);
    expect(groupAdvantage([0.1, 0.1, 0.1])).toEqual([null, null, null]); // float mean is off by an ulp here
    expect(groupAdvantage([0.7])).toEqual([null]);
    expect(groupAdvantage([])).toEqual([]);
  });

  it("leaves members with a missing reward out, as null", () => {
    expect(groupAdvantage([0, null, 1, NaN])).toEqual([-1, null, 1, null]);
    expect(groupAdvantage([0.5, null])).toEqual([null, null]);
  });

  it("property: advantages have mean 0 and population std 1", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.integer({ min: 0, max: 100 }).map((x) => x / 100),
          { minLength: 2, maxLength: 16 },
        ),
        (rs) => {
          const a = groupAdvantage(rs);
          if (a.every((x) => x === null)) return;
          const xs = a as number[];
          const m = xs.reduce((s, x) => s + x, 0) / xs.length;
          expect(m).toBeCloseTo(0, 9);
          expect(xs.reduce((s, x) => s + (x - m) ** 2, 0) / xs.length).toBeCloseTo(1, 9);
        },
      ),
    );
  });
});

describe("group std from moments", () => {
  const moments = (rs: number[]) => ({
    n: rs.length,
    sum: rs.reduce((a, b) => a + b, 0),
    sumsq: rs.reduce((a, b) => a + b * b, 0),
  });

  it("matches the population std by hand", () => {
    expect(groupStdFromMoments(moments([0, 1]))).toBeCloseTo(0.5, 12);
    expect(groupStdFromMoments(moments([0.2, 0.2, 0.5, 0.9]))).toBeCloseTo(Math.sqrt(0.0825), 12);
  });

  it("is exactly 0 for equal rewards despite cancellation; null for n = 0 or NaN", () => {
    expect(groupStdFromMoments(moments([0.3, 0.3, 0.3, 0.3]))).toBe(0);
    expect(groupStdFromMoments(moments([0.58, 0.58, 0.58, 0.58]))).toBe(0);
    expect(groupStdFromMoments(moments([0, 0]))).toBe(0);
    expect(groupStdFromMoments({ n: 0, sum: 0, sumsq: 0 })).toBeNull();
    expect(groupStdFromMoments({ n: 2, sum: NaN, sumsq: 1 })).toBeNull();
  });

  it("meanWithinGroupStd and noGradientShare over groups", () => {
    const groups = [
      moments([0, 1]),
      moments([0.3, 0.3, 0.3, 0.3]),
      moments([0.2, 0.2, 0.5, 0.9]),
      { n: 0, sum: 0, sumsq: 0 },
    ];
    expect(meanWithinGroupStd(groups)).toBeCloseTo((0.5 + 0 + Math.sqrt(0.0825)) / 3, 12);
    expect(noGradientShare(groups)).toBeCloseTo(1 / 3, 12);
    expect(meanWithinGroupStd([])).toBeNull();
    expect(noGradientShare([{ n: 0, sum: 0, sumsq: 0 }])).toBeNull();
  });

  it("property: agrees with the two-pass std", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.integer({ min: 0, max: 100 }).map((x) => x / 100),
          { minLength: 1, maxLength: 8 },
        ),
        (rs) => {
          const m = rs.reduce((a, b) => a + b, 0) / rs.length;
          const direct = Math.sqrt(rs.reduce((a, r) => a + (r - m) ** 2, 0) / rs.length);
          expect(groupStdFromMoments(moments(rs))).toBeCloseTo(direct, 6);
        },
      ),
    );
  });
});

describe("slopeInterval", () => {
  const pts = [0.1, 0.21, 0.29, 0.42].map((value, i) => ({ step: i * 1000, value }));

  it("is the OLS slope's t interval from the residuals (df = N − 2), reference values computed independently", () => {
    const r = slopeInterval(pts)!;
    expect(r.df).toBe(2);
    expect(r.slope).toBeCloseTo(0.000104, 12);
    expect(r.lower).toBeCloseTo(7.611562334214832e-5, 10);
    expect(r.upper).toBeCloseTo(0.00013188437665785166, 10);
  });

  it("does not depend on the weights' scale, and needs three points", () => {
    const a = slopeInterval(
      pts.map((p) => ({ ...p, n: 10 })),
      { weightByN: true },
    )!;
    const b = slopeInterval(
      pts.map((p) => ({ ...p, n: 40 })),
      { weightByN: true },
    )!;
    expect(a.lower).toBeCloseTo(b.lower, 12);
    expect(a.upper).toBeCloseTo(b.upper, 12);
    expect(slopeInterval(pts.slice(0, 2))).toBeNull();
    // points exactly on a line: a zero-width interval at the slope
    const line = slopeInterval([0, 1, 2].map((i) => ({ step: i, value: 0.5 + 0.1 * i })))!;
    expect(line.upper - line.lower).toBeCloseTo(0, 12);
  });
});
