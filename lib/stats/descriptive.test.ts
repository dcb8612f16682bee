import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isFiniteNumber, mean, populationStd, quantileOfUnsorted, quantileSorted } from "@/lib/stats/descriptive.ts";

describe("descriptive", () => {
  it("isFiniteNumber tells data from missing", () => {
    expect([0, -1.5, 1e300].every(isFiniteNumber)).toBe(true);
    expect([NaN, Infinity, -Infinity, null, undefined, "1"].some(isFiniteNumber)).toBe(false);
  });

  it("mean and population std by hand; null for no data", () => {
    expect(mean([1, 2, 3, 4])).toBe(2.5);
    expect(mean([])).toBeNull();
    // Σ(x − 2.5)² = 2.25 + 0.25 + 0.25 + 2.25 = 5; / 4 = 1.25
    expect(populationStd([1, 2, 3, 4])).toBeCloseTo(Math.sqrt(1.25), 15);
    expect(populationStd([2, 4, 4, 4, 5, 5, 7, 9])).toBe(2); // the textbook example with σ = 2
    expect(populationStd([])).toBeNull();
  });

  it("population std of equal values is exactly 0, even where the float mean is off by an ulp", () => {
    expect(mean([0.1, 0.1, 0.1])).not.toBe(0.1);
    expect(populationStd([0.1, 0.1, 0.1])).toBe(0);
    expect(populationStd([0.7])).toBe(0);
  });

  it("quantile type 7 matches R's quantile() defaults", () => {
    // R: quantile(c(1, 2, 3, 4), c(0, .25, .5, .9, 1)) → 1.00 1.75 2.50 3.70 4.00
    const xs = [1, 2, 3, 4];
    expect(quantileSorted(xs, 0)).toBe(1);
    expect(quantileSorted(xs, 0.25)).toBeCloseTo(1.75, 12);
    expect(quantileSorted(xs, 0.5)).toBeCloseTo(2.5, 12);
    expect(quantileSorted(xs, 0.9)).toBeCloseTo(3.7, 12);
    expect(quantileSorted(xs, 1)).toBe(4);
    expect(quantileSorted([5], 0.3)).toBe(5);
    expect(quantileSorted([], 0.5)).toBeNull();
    expect(quantileSorted(xs, 1.5)).toBeNull();
    expect(quantileSorted(xs, NaN)).toBeNull();
  });

  it("quantileOfUnsorted gives quantileSorted of the values sorted, bit for bit, ties and runs included", () => {
    const values = fc.array(fc.oneof(fc.integer({ min: 0, max: 5 }), fc.double({ min: 0, max: 1e6, noNaN: true })), {
      maxLength: 300,
    });
    const order = fc.constantFrom("as drawn", "ascending", "descending");
    fc.assert(
      fc.property(values, order, fc.double({ min: 0, max: 1, noNaN: true }), (xs, how, p) => {
        const drawn = Float64Array.from(xs);
        const sorted = Float64Array.from(xs).sort();
        const given = how === "ascending" ? sorted.slice() : how === "descending" ? sorted.slice().reverse() : drawn;
        for (const q of [p, 0, 0.5, 1]) expect(quantileOfUnsorted(given.slice(), q)).toBe(quantileSorted(sorted, q));
      }),
    );
    expect(quantileOfUnsorted(Float64Array.from([4, 1, 3, 2]), 0.5)).toBe(2.5);
    expect(quantileOfUnsorted(new Float64Array(0), 0.5)).toBeNull();
    expect(quantileOfUnsorted(Float64Array.from([1]), 1.5)).toBeNull();
  });
});
