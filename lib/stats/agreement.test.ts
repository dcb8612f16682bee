import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  agreementRate,
  binaryAgreement,
  binaryKappa,
  dimensionAgreement,
  guardrailAgreement,
  scoresAgree,
  successVerdictKappa,
  type ScorePair,
} from "@/lib/stats/agreement.ts";
import { cohensKappa } from "@/lib/stats/kappa.ts";
import { wilson } from "@/lib/stats/intervals.ts";

const rep = <T>(n: number, x: T): T[] => Array.from({ length: n }, () => x);

describe("agreementRate", () => {
  it("by hand: share within 0.1, with its Wilson interval", () => {
    const pairs: ScorePair[] = [
      { human: 0.9, ledger: 0.95 }, // agree
      { human: 0.3, ledger: 0.4 }, // agree at the edge (0.4 − 0.3 = 0.10000000000000003 in floats)
      { human: 0.2, ledger: 0.78 }, // the judge-style miss: disagree
      { human: 1, ledger: 1 }, // agree
    ];
    const r = agreementRate(pairs)!;
    expect(r).toMatchObject({ agreeing: 3, n: 4, rate: 0.75 });
    expect(r.interval).toEqual(wilson(3, 4));
  });

  it("takes the tolerance and z", () => {
    const pairs: ScorePair[] = [
      { human: 0.5, ledger: 0.55 },
      { human: 0.5, ledger: 0.7 },
    ];
    expect(agreementRate(pairs, { tolerance: 0.01 })!.agreeing).toBe(0);
    expect(agreementRate(pairs, { tolerance: 0.2 })!.agreeing).toBe(2);
    expect(agreementRate(pairs, { z: 1 })!.interval).toEqual(wilson(1, 2, 1));
    expect(() => agreementRate(pairs, { tolerance: -0.1 })).toThrow(RangeError);
  });

  it("puts an interval on the reference figure: 88% of a shadow sample of 500 is 84.9–90.6%", () => {
    const pairs = [...rep(440, { human: 0.9, ledger: 0.9 }), ...rep(60, { human: 0.1, ledger: 0.9 })];
    const r = agreementRate(pairs)!;
    expect(r.rate).toBeCloseTo(0.88, 12);
    expect(r.interval.lower).toBeCloseTo(0.8486, 4);
    expect(r.interval.upper).toBeCloseTo(0.9056, 4); // 88% of 500 is ±3 points, not ±0.5
  });

  it("all agree, none agree, no data", () => {
    expect(agreementRate(rep(5, { human: 0.2, ledger: 0.2 }))!.interval.upper).toBe(1);
    expect(agreementRate(rep(5, { human: 0, ledger: 1 }))!.interval.lower).toBe(0);
    expect(agreementRate([])).toBeNull();
  });

  it("ignores pairs with a missing or non-finite score and reports the n used", () => {
    const r = agreementRate([
      { human: 0.5, ledger: 0.5 },
      { human: null, ledger: 0.5 },
      { human: 0.5, ledger: NaN },
      { human: Infinity, ledger: 1 },
      { human: undefined, ledger: 1 },
    ])!;
    expect(r).toMatchObject({ agreeing: 1, n: 1 });
    expect(agreementRate([{ human: NaN, ledger: NaN }])).toBeNull();
  });

  it("scoresAgree is symmetric and inclusive of the tolerance", () => {
    expect(scoresAgree(0.7, 0.6)).toBe(true);
    expect(scoresAgree(0.6, 0.7)).toBe(true);
    expect(scoresAgree(0.6, 0.7000001)).toBe(false);
  });
});

describe("successVerdictKappa", () => {
  it("is Cohen's κ of the reward ≥ 0.9 verdicts: Wikipedia's 2×2 example in rewards gives 0.4", () => {
    const pairs: ScorePair[] = [
      ...rep(20, { ledger: 0.95, human: 0.9 }), // both success
      ...rep(5, { ledger: 1, human: 0.6 }), // ledger success, human not
      ...rep(10, { ledger: 0.89, human: 0.92 }), // human success, ledger not (0.89 is below the threshold)
      ...rep(15, { ledger: 0.3, human: 0.25 }), // neither
    ];
    const r = successVerdictKappa(pairs, { seed: 4 })!;
    expect(r.kappa).toBeCloseTo(0.4, 12);
    expect(r.n).toBe(50);
    expect(r.matrix.labels).toEqual([true, false]);
    expect(r.matrix.counts).toEqual([
      [20, 5],
      [10, 15],
    ]);
    expect(r.interval!.lower).toBeLessThan(0.4);
    expect(r.interval!.upper).toBeGreaterThan(0.4);
    expect(successVerdictKappa(pairs, { seed: 4 })).toEqual(r);
  });

  it("takes another threshold", () => {
    const pairs: ScorePair[] = [
      { ledger: 0.6, human: 0.6 },
      { ledger: 0.4, human: 0.4 },
    ];
    expect(successVerdictKappa(pairs, { threshold: 0.5 })!.kappa).toBe(1);
  });

  it("κ is null, with the reason, when a side gives every item the same verdict; null when there are no items", () => {
    expect(successVerdictKappa(rep(30, { ledger: 0.95, human: 0.97 }))).toMatchObject({
      kappa: null,
      interval: null,
      n: 30,
      undefinedReason: "the ledger and the human side each give every item the same verdict",
    });
    // one side constant: p_o = p_e on every resample, so κ would be 0 with a zero-width interval
    const oneSided = [...rep(20, { ledger: 0.95, human: 0.97 }), ...rep(10, { ledger: 0.95, human: 0.3 })];
    expect(successVerdictKappa(oneSided, { seed: 1 })).toMatchObject({
      kappa: null,
      interval: null,
      undefinedReason: "the ledger gives every item the same verdict",
    });
    expect(successVerdictKappa([])).toBeNull();
    expect(successVerdictKappa([{ ledger: null, human: 1 }])).toBeNull();
  });
});

describe("binaryKappa", () => {
  it("property: equals Cohen's κ of the same table", () => {
    fc.assert(
      fc.property(fc.nat(30), fc.nat(30), fc.nat(30), fc.nat(30), (tp, fp, fn, tn) => {
        const pairs = [
          ...rep(tp, [true, true] as const),
          ...rep(fp, [true, false] as const),
          ...rep(fn, [false, true] as const),
          ...rep(tn, [false, false] as const),
        ];
        const expected = cohensKappa(pairs);
        const k = binaryKappa(tp, fp, fn, tn);
        if (expected === null) expect(k).toBeNull();
        else expect(k).toBeCloseTo(expected, 12);
      }),
    );
  });
});

describe("binaryAgreement and guardrailAgreement", () => {
  it("by hand: counts, precision, recall, κ for one guardrail", () => {
    const pairs = [
      ...rep(8, { ledger: true, human: true }),
      ...rep(2, { ledger: true, human: false }),
      ...rep(4, { ledger: false, human: true }),
      ...rep(86, { ledger: false, human: false }),
    ];
    const r = binaryAgreement(pairs);
    expect(r).toMatchObject({ tp: 8, fp: 2, fn: 4, tn: 86, n: 100, precision: 0.8 });
    expect(r.recall).toBeCloseTo(8 / 12, 12);
    // κ = 2(8·86 − 2·4) / ((10)(88) + (12)(90)) = 1360 / 1960
    expect(r.kappa).toBeCloseTo(1360 / 1960, 12);
    expect(r.agreement).toEqual(wilson(94, 100));
  });

  it("per code, skipping items a human has not flagged yet", () => {
    const items = [
      { ledger: ["empty_promise"], human: ["empty_promise"] },
      { ledger: ["empty_promise", "missing_evidence"], human: [] },
      { ledger: [], human: ["missing_evidence"] },
      { ledger: [], human: [] },
      { ledger: ["empty_promise"], human: null }, // not reviewed
    ];
    const [ep, me, ch] = guardrailAgreement(items, ["empty_promise", "missing_evidence", "customer_harm"]);
    expect(ep).toMatchObject({ code: "empty_promise", tp: 1, fp: 1, fn: 0, tn: 2, n: 4, precision: 0.5, recall: 1 });
    expect(ep.kappa).toBeCloseTo(0.5, 12); // 2(1·2 − 0) / ((2)(3) + (1)(2)) = 4/8
    expect(me).toMatchObject({ tp: 0, fp: 1, fn: 1, tn: 2, precision: 0, recall: 0 });
    expect(me.kappa).toBeCloseTo(-1 / 3, 12); // 2(0 − 1) / ((1)(3) + (1)(3)) = −2/6
    // A guardrail nobody ever fired: all agree, but precision, recall and κ are undefined.
    expect(ch).toMatchObject({ tp: 0, fp: 0, fn: 0, tn: 4, precision: null, recall: null, kappa: null });
    expect(ch.agreement!.estimate).toBe(1);
  });

  it("κ is undefined when one side never fires (or always does), whatever the other does", () => {
    expect(binaryKappa(0, 0, 3, 7)).toBeNull(); // the ledger never fires
    expect(binaryKappa(4, 6, 0, 0)).toBeNull(); // the ledger always fires
    expect(binaryKappa(0, 3, 0, 7)).toBeNull(); // the human never fires
    expect(binaryKappa(8, 2, 4, 86)).toBeCloseTo(1360 / 1960, 12);
  });

  it("n = 0", () => {
    expect(binaryAgreement([])).toMatchObject({ n: 0, precision: null, recall: null, kappa: null, agreement: null });
  });
});

describe("dimensionAgreement", () => {
  it("by hand: MAE and Spearman per dimension, missing scores ignored", () => {
    const items = [
      { ledger: { outcome: 1, policy: 0.5 }, human: { outcome: 0.9, policy: 0.5 } },
      { ledger: { outcome: 0, policy: 0.5 }, human: { outcome: 0.2, policy: null } },
      { ledger: { outcome: 0.5, policy: 0.5 }, human: { outcome: 0.5, policy: 1 } },
      { ledger: { outcome: null, policy: 1 }, human: { outcome: 1, policy: 0 } },
    ];
    const [outcome, policy, evidence] = dimensionAgreement(items, ["outcome", "policy", "evidence"]);
    expect(outcome.n).toBe(3);
    expect(outcome.mae).toBeCloseTo((0.1 + 0.2 + 0) / 3, 12);
    expect(outcome.spearman).toBe(1); // ledger order 0 < 0.5 < 1 equals human order 0.2 < 0.5 < 0.9
    // policy pairs (0.5, 0.5), (0.5, 1), (1, 0): ranks ledger [1.5, 1.5, 3], human [2, 3, 1]
    expect(policy.n).toBe(3);
    expect(policy.mae).toBeCloseTo((0 + 0.5 + 1) / 3, 12);
    expect(policy.spearman).toBeCloseTo(-0.8660254, 6); // Σdxdy = −1.5, Σdx² = 1.5, Σdy² = 2
    expect(evidence).toEqual({ dimension: "evidence", n: 0, mae: null, spearman: null });
  });

  it("Spearman is null when a side is constant", () => {
    const items = [0.1, 0.4, 0.8].map((h) => ({ ledger: { outcome: 1 }, human: { outcome: h } }));
    expect(dimensionAgreement(items, ["outcome"])[0].spearman).toBeNull();
  });
});
