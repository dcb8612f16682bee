import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { bootstrapCI, normalQuantile, wilson, Z_95, zForLevel } from "@/lib/stats/intervals.ts";

const meanOf = (s: readonly number[]) => s.reduce((a, b) => a + b, 0) / s.length;

describe("normalQuantile and zForLevel", () => {
  it("match standard normal tables (scipy.stats.norm.ppf) to 1e-8", () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963985, 8);
    expect(normalQuantile(0.995)).toBeCloseTo(2.575829304, 8);
    expect(normalQuantile(0.95)).toBeCloseTo(1.644853627, 8);
    expect(normalQuantile(0.5)).toBe(0);
    expect(normalQuantile(0.001)).toBeCloseTo(-3.090232306, 8); // lower tail branch
    expect(normalQuantile(0.999)).toBeCloseTo(3.090232306, 8);
  });

  it("is undefined outside (0, 1)", () => {
    expect(normalQuantile(0)).toBeNull();
    expect(normalQuantile(1)).toBeNull();
    expect(normalQuantile(NaN)).toBeNull();
  });

  it("zForLevel turns a level into z and rejects impossible levels", () => {
    expect(zForLevel(0.95)).toBeCloseTo(Z_95, 8);
    expect(zForLevel(0.99)).toBeCloseTo(2.575829304, 8);
    expect(() => zForLevel(1)).toThrow(RangeError);
    expect(() => zForLevel(0)).toThrow(RangeError);
  });
});

describe("wilson", () => {
  it("reproduces Newcombe (1998), Stat Med 17:857–872, method 3 (score interval) for his worked examples", () => {
    const cases: [number, number, number, number][] = [
      [81, 263, 0.2553, 0.3662],
      [15, 148, 0.0624, 0.1605],
      [0, 20, 0, 0.1611],
      [1, 29, 0.0061, 0.1718],
    ];
    for (const [k, n, lower, upper] of cases) {
      const w = wilson(k, n)!;
      expect(w.estimate).toBe(k / n);
      expect(w.lower).toBeCloseTo(lower, 4);
      expect(w.upper).toBeCloseTo(upper, 4);
    }
  });

  it("by hand: 8 of 10 at z = 1.96", () => {
    // centre = (0.8 + 1.96²/20) / (1 + 1.96²/10) = 0.99208 / 1.38416 = 0.716738
    // half = 1.96 / 1.38416 · sqrt(0.016 + 1.96²/400) = 1.416021 · sqrt(0.025604) = 0.226581
    const w = wilson(8, 10, 1.96)!;
    expect(w.lower).toBeCloseTo(0.490157, 5);
    expect(w.upper).toBeCloseTo(0.943319, 5);
  });

  it("is exactly 0 and 1 at the extremes (none agree, all agree)", () => {
    expect(wilson(0, 50)!.lower).toBe(0);
    expect(wilson(50, 50)!.upper).toBe(1);
    expect(wilson(50, 50)!.lower).toBeCloseTo(0.9287, 4); // 1 − 0.0713, mirror of 0/50
    expect(wilson(0, 50)!.upper).toBeCloseTo(1 - wilson(50, 50)!.lower, 12);
  });

  it("returns null for n = 0 and impossible counts, NaN included", () => {
    expect(wilson(0, 0)).toBeNull();
    expect(wilson(3, 2)).toBeNull();
    expect(wilson(-1, 5)).toBeNull();
    expect(wilson(NaN, 5)).toBeNull();
    expect(wilson(1, NaN)).toBeNull();
    expect(wilson(1, Infinity)).toBeNull();
    expect(() => wilson(1, 2, 0)).toThrow(RangeError);
  });

  it("accepts a fractional count on an effective n", () => {
    const w = wilson(3.24 / 3, 3.24)!;
    expect(w.estimate).toBeCloseTo(1 / 3, 12);
    expect(w.lower).toBeLessThan(1 / 3);
  });

  it("property: contains the estimate, stays in [0, 1], and widens with z", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0.5, max: 4, noNaN: true }),
        (n, f, z) => {
          const k = Math.round(f * n);
          const w = wilson(k, n, z)!;
          expect(w.lower).toBeGreaterThanOrEqual(0);
          expect(w.upper).toBeLessThanOrEqual(1);
          expect(w.lower).toBeLessThanOrEqual(w.estimate);
          expect(w.estimate).toBeLessThanOrEqual(w.upper);
          const wider = wilson(k, n, z + 0.5)!;
          expect(wider.lower).toBeLessThanOrEqual(w.lower + 1e-15);
          expect(wider.upper).toBeGreaterThanOrEqual(w.upper - 1e-15);
        },
      ),
    );
  });
});

describe("bootstrapCI", () => {
  const items = [0.2, 0.4, 0.5, 0.9, 1.0, 0.3, 0.7, 0.8, 0.6, 0.1];

  it("is fixed for a seed (regression: the interval an export shows must not move)", () => {
    const ci = bootstrapCI(items, meanOf, { seed: 42, iterations: 1000 })!;
    expect(ci.estimate).toBeCloseTo(0.55, 12);
    expect(ci.lower).toBeCloseTo(0.37, 12);
    expect(ci.upper).toBeCloseTo(0.73, 12);
    expect(ci).toMatchObject({ level: 0.95, iterations: 1000, valid: 1000 });
  });

  it("is near the normal-theory interval for a mean", () => {
    // x̄ = 0.55, population sd = sqrt(0.0825) = 0.2872; se of the bootstrap mean = 0.2872 / sqrt(10) = 0.0908.
    const ci = bootstrapCI(items, meanOf, { seed: 5, iterations: 4000 })!;
    expect(ci.lower).toBeCloseTo(0.55 - 1.96 * 0.0908, 1);
    expect(ci.upper).toBeCloseTo(0.55 + 1.96 * 0.0908, 1);
  });

  it("narrows with a lower level", () => {
    const wide = bootstrapCI(items, meanOf, { seed: 9, level: 0.95 })!;
    const narrow = bootstrapCI(items, meanOf, { seed: 9, level: 0.5 })!;
    expect(narrow.upper - narrow.lower).toBeLessThan(wide.upper - wide.lower);
  });

  it("collapses on constant data (all agree)", () => {
    const ci = bootstrapCI([1, 1, 1, 1], meanOf, { seed: 1 })!;
    expect([ci.lower, ci.estimate, ci.upper]).toEqual([1, 1, 1]);
  });

  it("returns null with no items, an undefined estimate, or mostly undefined resamples", () => {
    expect(bootstrapCI([], meanOf)).toBeNull();
    expect(bootstrapCI([1, 2], () => null)).toBeNull();
    // Defined only when the resample contains the single 1: P = 1 − (9/10)^10 ≈ 0.65 — enough.
    const someOnes = [1, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    const ci = bootstrapCI(someOnes, (s) => (s.includes(1) ? meanOf(s) : null), { seed: 3 })!;
    expect(ci.valid).toBeGreaterThan(1000);
    expect(ci.valid).toBeLessThan(2000);
    // Defined only when all ten are the same item: almost never.
    expect(bootstrapCI(someOnes, (s) => (s.every((x) => x === s[0]) ? 1 : null), { seed: 3 })).toBeNull();
  });

  it("treats a NaN or infinite statistic like null", () => {
    expect(bootstrapCI([1, 2], () => NaN)).toBeNull();
    expect(bootstrapCI([1, 2], () => Infinity)).toBeNull();
  });

  it("rejects impossible options", () => {
    expect(() => bootstrapCI(items, meanOf, { level: 1 })).toThrow(RangeError);
    expect(() => bootstrapCI(items, meanOf, { iterations: 0 })).toThrow(RangeError);
    expect(() => bootstrapCI(items, meanOf, { iterations: 1.5 })).toThrow(RangeError);
  });

  it("property: deterministic for a seed", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 30 }),
        fc.integer(),
        (xs, seed) => {
          const a = bootstrapCI(xs, meanOf, { seed, iterations: 200 });
          const b = bootstrapCI(xs, meanOf, { seed, iterations: 200 });
          expect(a).toEqual(b);
          expect(a!.lower).toBeLessThanOrEqual(a!.upper);
        },
      ),
      { numRuns: 50 },
    );
  });
});
