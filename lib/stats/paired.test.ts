import { describe, expect, it } from "vitest";
import {
  maeDifference,
  mcnemarExact,
  meanDifferenceInterval,
  pairedDifference,
  pairedScoreDifferences,
  pairedTable,
  spearmanDifference,
} from "@/lib/stats/paired.ts";

describe("mcnemarExact", () => {
  it("reproduces the published exact conditional p-values", () => {
    // Bentur et al. 2009 (airway hyper-responsiveness before/after transplant: 1, 1, 7, 12), as worked by Fagerland,
    // Lydersen & Laake, BMC Med Res Methodol 2013, 13:91: exact conditional p = 0.070 (= 18/256)
    expect(mcnemarExact(1, 7)).toBeCloseTo(0.0703125, 12);
    // Cavo et al. 2012 (complete response before/after consolidation: 59, 6, 16, 80): p = 0.052
    expect(mcnemarExact(6, 16)).toBeCloseTo(0.0524788, 6);
    expect(mcnemarExact(16, 6)).toBe(mcnemarExact(6, 16));
  });

  it("is 1 with no discordant item or equal discordant counts, and exact by hand on small tables", () => {
    expect(mcnemarExact(0, 0)).toBe(1);
    expect(mcnemarExact(5, 5)).toBe(1);
    // 0 of 5: 2 · (1/32)
    expect(mcnemarExact(0, 5)).toBeCloseTo(1 / 16, 15);
    // 1 of 10: 2 · (1 + 10)/1024
    expect(mcnemarExact(1, 9)).toBeCloseTo(22 / 1024, 15);
    // capped at 1: 4 of 9 gives 2 · 0.5 = 1
    expect(mcnemarExact(4, 5)).toBe(1);
  });

  it("stays finite on tens of thousands of discordant items", () => {
    const p = mcnemarExact(10_000, 10_400);
    expect(p).toBeGreaterThan(0);
    expect(p).toBeLessThan(0.01);
    expect(mcnemarExact(10_000, 10_001)).toBeGreaterThan(0.99);
  });

  it("refuses counts that are not counts", () => {
    expect(() => mcnemarExact(-1, 3)).toThrow(RangeError);
    expect(() => mcnemarExact(1.5, 3)).toThrow(RangeError);
  });
});

describe("pairedDifference (Newcombe 1998, method 10)", () => {
  it("reproduces the published intervals", () => {
    // Cavo et al. 2012 in Fagerland, Lydersen & Laake, Statistical Analysis of Contingency Tables, ch. 8 (and the
    // contingencytables package's own test): -0.0621 (95% CI -0.1186 to -0.0046)
    const cavo = pairedDifference({ both: 59, firstOnly: 6, secondOnly: 16, neither: 80 })!;
    expect(cavo.difference).toBeCloseTo(-0.0621, 4);
    expect(cavo.interval!.lower).toBeCloseTo(-0.1186, 4);
    expect(cavo.interval!.upper).toBeCloseTo(-0.0046, 4);
    expect(cavo.pValue).toBeCloseTo(0.0525, 4);
    // Bentur et al. 2009, same source: -0.2857 (-0.5069 to -0.0256)
    const bentur = pairedDifference({ both: 1, firstOnly: 1, secondOnly: 7, neither: 12 })!;
    expect(bentur.difference).toBeCloseTo(-0.2857, 4);
    expect(bentur.interval!.lower).toBeCloseTo(-0.5069, 4);
    expect(bentur.interval!.upper).toBeCloseTo(-0.0256, 4);
  });

  it("does not collapse when no item is discordant, and is null on no item", () => {
    const d = pairedDifference({ both: 20, firstOnly: 0, secondOnly: 0, neither: 10 })!;
    expect(d.difference).toBe(0);
    expect(d.interval!.lower).toBeLessThan(0);
    expect(d.interval!.upper).toBeGreaterThan(0);
    expect(d.pValue).toBe(1);
    expect(pairedDifference({ both: 0, firstOnly: 0, secondOnly: 0, neither: 0 })).toBeNull();
  });

  it("is antisymmetric in the two scorers and stays in [-1, 1]", () => {
    const ab = pairedDifference({ both: 3, firstOnly: 9, secondOnly: 1, neither: 2 })!;
    const ba = pairedDifference({ both: 3, firstOnly: 1, secondOnly: 9, neither: 2 })!;
    expect(ba.difference).toBeCloseTo(-ab.difference, 15);
    expect(ba.interval!.lower).toBeCloseTo(-ab.interval!.upper, 12);
    expect(ba.interval!.upper).toBeCloseTo(-ab.interval!.lower, 12);
    const extreme = pairedDifference({ both: 0, firstOnly: 12, secondOnly: 0, neither: 0 })!;
    expect(extreme.interval!.upper).toBeLessThanOrEqual(1);
    expect(extreme.interval!.lower).toBeGreaterThan(0);
  });

  it("pairedTable counts the four cells", () => {
    expect(pairedTable([true, true, false, false, true], [true, false, true, false, false])).toEqual({
      both: 1,
      firstOnly: 2,
      secondOnly: 1,
      neither: 1,
    });
    expect(() => pairedTable([true], [])).toThrow(RangeError);
  });
});

const items = Array.from({ length: 60 }, (_, i) => {
  const reference = ((i * 37) % 60) / 60;
  return {
    reference,
    first: Math.min(1, reference + ((i % 7) - 3) / 40),
    second: Math.min(1, Math.max(0, reference + ((i % 5) - 2) / 8 + (i % 3 === 0 ? 0.3 : 0))),
  };
});

describe("pairedScoreDifferences", () => {
  it("estimates the MAE and ρ differences on the full sample", () => {
    const r = pairedScoreDifferences(items, { iterations: 300 });
    const ref = items.map((i) => i.reference);
    const a = items.map((i) => i.first);
    const b = items.map((i) => i.second);
    expect(r.mae!.estimate).toBeCloseTo(maeDifference(ref, a, b), 15);
    expect(r.mae!.estimate).toBeLessThan(0);
    expect(r.spearman!.estimate).toBeCloseTo(spearmanDifference(ref, a, b)!, 15);
    expect(r.spearman!.estimate).toBeGreaterThan(0);
    // the first scorer is clearly closer: the whole MAE interval is below 0
    expect(r.mae!.upper).toBeLessThan(0);
    expect(r.mae!.lower).toBeLessThan(r.mae!.estimate);
  });

  it("is reproducible with the same seed and differs with another", () => {
    const a = pairedScoreDifferences(items, { seed: 7, iterations: 200 });
    const b = pairedScoreDifferences(items, { seed: 7, iterations: 200 });
    const c = pairedScoreDifferences(items, { seed: 8, iterations: 200 });
    expect(b).toEqual(a);
    expect(c.mae!.lower).not.toBe(a.mae!.lower);
  });

  it("is exactly 0 with a zero-width interval when the two scorers are the same", () => {
    const same = items.map((i) => ({ ...i, second: i.first }));
    const r = pairedScoreDifferences(same, { iterations: 100 });
    expect([r.mae!.estimate, r.mae!.lower, r.mae!.upper]).toEqual([0, 0, 0]);
    expect([r.spearman!.lower, r.spearman!.upper]).toEqual([0, 0]);
  });

  it("is null on no item and when ρ is undefined (a constant scorer)", () => {
    expect(pairedScoreDifferences([])).toEqual({ mae: null, spearman: null });
    const flat = items.map((i) => ({ ...i, second: 0.5 }));
    const r = pairedScoreDifferences(flat, { iterations: 50 });
    expect(r.spearman).toBeNull();
    expect(r.mae).not.toBeNull();
    expect(() => pairedScoreDifferences([{ reference: NaN, first: 0, second: 0 }])).toThrow(RangeError);
  });
});

describe("meanDifferenceInterval", () => {
  it("is the t interval of the mean by hand", () => {
    // mean 0.2, s = sqrt(0.1/4) = 0.158114, t(0.975, 4) = 2.776445
    const r = meanDifferenceInterval([0, 0.1, 0.2, 0.3, 0.4])!;
    expect(r.estimate).toBeCloseTo(0.2, 15);
    expect(r.lower).toBeCloseTo(0.2 - (2.776445 * 0.158114) / Math.sqrt(5), 5);
    expect(r.upper).toBeCloseTo(0.2 + (2.776445 * 0.158114) / Math.sqrt(5), 5);
  });

  it("is null below two differences", () => {
    expect(meanDifferenceInterval([0.3])).toBeNull();
    expect(meanDifferenceInterval([0.1, 0.1])).toEqual({ estimate: 0.1, lower: 0.1, upper: 0.1 });
  });
});
