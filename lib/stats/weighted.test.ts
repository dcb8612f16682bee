import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  kishEffectiveSize,
  weightedAgreementRate,
  weightedBinaryAgreement,
  weightedBinaryKappaInterval,
  weightedProportion,
} from "@/lib/stats/weighted.ts";
import { binaryAgreement } from "@/lib/stats/agreement.ts";
import { wilson } from "@/lib/stats/intervals.ts";

describe("kishEffectiveSize", () => {
  it("by hand (Kish 1965, Survey Sampling, n_eff = (Σw)²/Σw²)", () => {
    expect(kishEffectiveSize([1, 1, 1, 1])).toBe(4);
    expect(kishEffectiveSize([5, 5, 5])).toBe(3);
    expect(kishEffectiveSize([1, 3])).toBeCloseTo(16 / 10, 12);
    expect(kishEffectiveSize([2, 4, 1, 2])).toBeCloseTo(81 / 25, 12);
  });

  it("is null for no weights or a weight that is not positive and finite", () => {
    expect(kishEffectiveSize([])).toBeNull();
    expect(kishEffectiveSize([1, 0])).toBeNull();
    expect(kishEffectiveSize([1, NaN])).toBeNull();
    expect(kishEffectiveSize([1, Infinity])).toBeNull();
  });

  it("property: in (0, n], equal to n for equal weights", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0.01, max: 100, noNaN: true }), { minLength: 1, maxLength: 50 }), (ws) => {
        const k = kishEffectiveSize(ws)!;
        expect(k).toBeGreaterThan(0);
        expect(k).toBeLessThanOrEqual(ws.length);
        expect(kishEffectiveSize(ws.map(() => ws[0]))).toBeCloseTo(ws.length, 9);
      }),
    );
  });
});

describe("weightedProportion", () => {
  // Two strata: π = 0.5 and 1 for one, 0.25 for the oversampled-down other.
  const sample = [
    { value: true, inclusionProbability: 0.5 }, // w = 2
    { value: false, inclusionProbability: 0.25 }, // w = 4
    { value: 1, inclusionProbability: 1 }, // w = 1
    { value: 0, inclusionProbability: 0.5 }, // w = 2
  ];

  it("by hand: Hájek 3/9, Horvitz–Thompson 3/N, Kish n_eff 81/25, Wilson on n_eff", () => {
    const r = weightedProportion(sample, { populationSize: 10 })!;
    expect(r.estimate).toBeCloseTo(1 / 3, 12); // Σwy = 2 + 1 = 3, Σw = 9
    expect(r.horvitzThompson).toBeCloseTo(0.3, 12);
    expect(r.sumWeights).toBe(9);
    expect(r.n).toBe(4);
    expect(r.nEffective).toBeCloseTo(3.24, 12);
    expect(r.interval).toEqual(wilson(r.estimate * r.nEffective, r.nEffective));
    // The unweighted share would be 2/4: the weights matter.
    expect(weightedProportion(sample)!.horvitzThompson).toBeNull();
  });

  it("with equal π is the plain proportion with its plain Wilson interval", () => {
    const r = weightedProportion(
      [true, true, false, true, false].map((value) => ({ value, inclusionProbability: 0.01 })),
    )!;
    expect(r.estimate).toBeCloseTo(0.6, 12);
    expect(r.nEffective).toBe(5);
    expect(r.sumWeights).toBeCloseTo(500, 9);
    expect(r.interval.lower).toBeCloseTo(wilson(3, 5)!.lower, 12);
    expect(r.interval.upper).toBeCloseTo(wilson(3, 5)!.upper, 12);
  });

  it("drops items with a missing value but rejects (null) an invalid π or a value outside [0, 1]", () => {
    const withMissing = [
      ...sample,
      { value: null, inclusionProbability: 0.1 },
      { value: NaN, inclusionProbability: 0.1 },
    ];
    expect(weightedProportion(withMissing)!.n).toBe(4);
    expect(weightedProportion([...sample, { value: true, inclusionProbability: 0 }])).toBeNull();
    expect(weightedProportion([...sample, { value: true, inclusionProbability: 1.2 }])).toBeNull();
    expect(weightedProportion([...sample, { value: true, inclusionProbability: NaN }])).toBeNull();
    expect(weightedProportion([...sample, { value: 2, inclusionProbability: 0.5 }])).toBeNull();
    expect(weightedProportion([])).toBeNull();
    expect(() => weightedProportion(sample, { populationSize: 0 })).toThrow(RangeError);
  });

  it("all or none: estimate 1 or 0 with the matching bound exact", () => {
    const all = weightedProportion(sample.map((s) => ({ ...s, value: true })))!;
    expect(all.estimate).toBe(1);
    expect(all.interval.upper).toBe(1);
    const none = weightedProportion(sample.map((s) => ({ ...s, value: false })))!;
    expect(none.estimate).toBe(0);
    expect(none.interval.lower).toBe(0);
  });

  it("property: estimate in [0, 1] inside its interval; n_eff ≤ n", () => {
    const item = fc.record({
      value: fc.boolean(),
      inclusionProbability: fc.double({ min: 0.001, max: 1, noNaN: true }),
    });
    fc.assert(
      fc.property(fc.array(item, { minLength: 1, maxLength: 40 }), (items) => {
        const r = weightedProportion(items)!;
        expect(r.estimate).toBeGreaterThanOrEqual(0);
        expect(r.estimate).toBeLessThanOrEqual(1);
        expect(r.interval.lower).toBeLessThanOrEqual(r.estimate);
        expect(r.interval.upper).toBeGreaterThanOrEqual(r.estimate);
        expect(r.nEffective).toBeLessThanOrEqual(r.n);
      }),
    );
  });
});

describe("weightedAgreementRate", () => {
  it("weights agreement by 1/π", () => {
    const r = weightedAgreementRate([
      { human: 0.9, ledger: 0.95, inclusionProbability: 0.5 }, // agree, w 2
      { human: 0.2, ledger: 0.78, inclusionProbability: 0.25 }, // disagree, w 4
      { human: 0.3, ledger: 0.4, inclusionProbability: 1 }, // agree at the edge, w 1
      { human: null, ledger: 0.4, inclusionProbability: 1 }, // not reviewed: dropped
    ])!;
    expect(r.estimate).toBeCloseTo(3 / 7, 12);
    expect(r.n).toBe(3);
    expect(r.nEffective).toBeCloseTo(49 / 21, 12);
  });

  it("takes the tolerance", () => {
    const items = [{ human: 0.5, ledger: 0.62, inclusionProbability: 0.5 }];
    expect(weightedAgreementRate(items)!.estimate).toBe(0);
    expect(weightedAgreementRate(items, { tolerance: 0.15 })!.estimate).toBe(1);
    expect(() => weightedAgreementRate(items, { tolerance: -1 })).toThrow(RangeError);
  });
});

describe("weightedBinaryAgreement", () => {
  it("by hand: each item counts 1/π in the 2×2 table", () => {
    const r = weightedBinaryAgreement([
      { ledger: true, human: true, inclusionProbability: 0.5 }, // tp 2
      { ledger: true, human: false, inclusionProbability: 0.25 }, // fp 4
      { ledger: false, human: false, inclusionProbability: 1 }, // tn 1
      { ledger: false, human: true, inclusionProbability: 0.5 }, // fn 2
    ])!;
    expect([r.tp, r.fp, r.fn, r.tn]).toEqual([2, 4, 2, 1]);
    // κ = 2(2·1 − 4·2) / ((2 + 4)(4 + 1) + (2 + 2)(2 + 1)) = −12/42
    expect(r.kappa).toBeCloseTo(-2 / 7, 12);
    expect(r.agreement.estimate).toBeCloseTo(3 / 9, 12);
    expect(r.agreement.n).toBe(4);
  });
  it("equals the unweighted figures when every π is the same", () => {
    const pairs = [
      { ledger: true, human: true },
      { ledger: true, human: false },
      { ledger: false, human: false },
      { ledger: false, human: false },
      { ledger: false, human: true },
    ];
    const w = weightedBinaryAgreement(pairs.map((p) => ({ ...p, inclusionProbability: 0.1 })))!;
    const u = binaryAgreement(pairs);
    expect(w.kappa).toBeCloseTo(u.kappa!, 12);
    expect(w.agreement.estimate).toBeCloseTo(u.agreement!.estimate, 12);
  });
  it("is null with no items or an invalid π; κ null when one class only", () => {
    expect(weightedBinaryAgreement([])).toBeNull();
    expect(weightedBinaryAgreement([{ ledger: true, human: true, inclusionProbability: 0 }])).toBeNull();
    expect(weightedBinaryAgreement([{ ledger: false, human: false, inclusionProbability: 0.5 }])!.kappa).toBeNull();
  });
  it("has a seeded bootstrap interval around the weighted κ", () => {
    const items = Array.from({ length: 40 }, (_, i) => ({
      ledger: i % 3 === 0,
      human: i % 3 === 0 || i % 7 === 0,
      inclusionProbability: i % 2 ? 0.5 : 0.1,
    }));
    const a = weightedBinaryKappaInterval(items, { seed: 3, iterations: 300 })!;
    expect(a).toEqual(weightedBinaryKappaInterval(items, { seed: 3, iterations: 300 }));
    expect(a.estimate).toBeCloseTo(weightedBinaryAgreement(items)!.kappa!, 12);
    expect(a.lower).toBeLessThan(a.estimate);
    expect(a.upper).toBeGreaterThanOrEqual(a.estimate);
  });
  it("gives a weighted κ of 1 an interval that does not collapse", () => {
    // 10 agreeing successes at π = 0.5 (weight 2) and 10 agreeing failures at π = 0.1 (weight 10): every weight
    // equal within a cell; Kish's n = (20 + 100)² / (10·4 + 10·100) = 14400/1040 = 13.846; p_e = (20/120)² + (100/120)²
    // = 26/36; Wilson's lower bound 13.846/(13.846 + 1.96²) = 0.78281; (0.78281 − 0.72222)/0.27778 = 0.21812
    const items = Array.from({ length: 20 }, (_, i) => ({
      ledger: i < 10,
      human: i < 10,
      inclusionProbability: i < 10 ? 0.5 : 0.1,
    }));
    const a = weightedBinaryKappaInterval(items, { seed: 3, iterations: 300 })!;
    expect([a.estimate, a.upper, a.iterations]).toEqual([1, 1, 0]);
    expect(a.lower).toBeCloseTo(0.21812, 4);
  });
});
