import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  cohensKappa,
  cohensKappaInterval,
  confusionMatrix,
  kappaFromMatrix,
  kappaUndefinedReason,
  type LabelPair,
} from "@/lib/stats/kappa.ts";

/** Pairs from a 2×2 table: a = both yes, b = A yes / B no, c = A no / B yes, d = both no. */
function table(a: number, b: number, c: number, d: number): LabelPair<string>[] {
  const rep = (n: number, p: LabelPair<string>) => Array.from({ length: n }, () => p);
  return [...rep(a, ["yes", "yes"]), ...rep(b, ["yes", "no"]), ...rep(c, ["no", "yes"]), ...rep(d, ["no", "no"])];
}

describe("cohensKappa", () => {
  it("reproduces Wikipedia's worked example (Cohen's kappa, 'Simple example'): a=20, b=5, c=10, d=15 → 0.4", () => {
    // p_o = 35/50 = 0.7; p_yes = 0.5 · 0.6 = 0.3, p_no = 0.5 · 0.4 = 0.2, p_e = 0.5; κ = 0.2/0.5 = 0.4
    expect(cohensKappa(table(20, 5, 10, 15))).toBeCloseTo(0.4, 12);
  });

  it("reproduces Wikipedia's 'same percentages but different numbers' tables (κ 0.1304 and 0.2593)", () => {
    expect(cohensKappa(table(45, 15, 25, 15))).toBeCloseTo(0.1304, 4);
    expect(cohensKappa(table(25, 35, 5, 35))).toBeCloseTo(0.2593, 4);
  });

  it("by hand on three labels", () => {
    // counts [[10,2,0],[1,8,3],[0,2,4]], n = 30: p_o = 22/30; rows 12,12,6; cols 11,12,7;
    // p_e = (132 + 144 + 42)/900 = 318/900; κ = (660 − 318)/(900 − 318) = 342/582
    expect(
      kappaFromMatrix([
        [10, 2, 0],
        [1, 8, 3],
        [0, 2, 4],
      ]),
    ).toBeCloseTo(342 / 582, 12);
  });

  it("is 1 when all agree, −1 when none agree on two balanced labels", () => {
    expect(cohensKappa(table(7, 0, 0, 3))).toBe(1);
    expect(cohensKappa(table(0, 5, 5, 0))).toBe(-1);
  });

  it("is null when one rater gives one class only and the other varies (p_o = p_e on every sample: no information)", () => {
    expect(cohensKappa(table(6, 4, 0, 0))).toBeNull();
    expect(cohensKappa(table(6, 0, 4, 0))).toBeNull();
    expect(cohensKappaInterval(table(6, 4, 0, 0), { seed: 1, iterations: 200 })).toBeNull();
  });

  it("says why κ is undefined", () => {
    const names = { a: "the ledger", b: "the human side", what: "verdict" };
    const m = (a: number, b: number, c: number, d: number) => [
      [a, b],
      [c, d],
    ];
    expect(kappaUndefinedReason(m(6, 4, 0, 0), names)).toBe("the ledger gives every item the same verdict");
    expect(kappaUndefinedReason(m(6, 0, 4, 0), names)).toBe("the human side gives every item the same verdict");
    expect(kappaUndefinedReason(m(10, 0, 0, 0), names)).toBe(
      "the ledger and the human side each give every item the same verdict",
    );
    expect(kappaUndefinedReason(m(0, 0, 0, 0), names)).toBe("no item was rated by both");
    expect(kappaUndefinedReason(m(20, 5, 10, 15), names)).toBeNull();
    expect(kappaUndefinedReason([])).toBe("no item was rated by both");
  });

  it("is null when both raters use one and the same class only, and for n = 0", () => {
    expect(cohensKappa(table(10, 0, 0, 0))).toBeNull();
    expect(cohensKappa([])).toBeNull();
    expect(kappaFromMatrix([])).toBeNull();
  });

  it("ignores pairs with a missing label (null, undefined, NaN)", () => {
    const pairs: LabelPair<string | number>[] = [...table(20, 5, 10, 15), ["yes", null], [undefined, "no"], [NaN, 1]];
    expect(cohensKappa(pairs)).toBeCloseTo(0.4, 12);
    expect(confusionMatrix(pairs).n).toBe(50);
  });

  it("rejects a non-square matrix", () => {
    expect(() => kappaFromMatrix([[1, 2], [3]])).toThrow(RangeError);
  });

  it("property: κ ≤ 1, symmetric in the raters, and 1 on perfect agreement", () => {
    const label = fc.constantFrom("a", "b", "c");
    fc.assert(
      fc.property(fc.array(fc.tuple(label, label), { maxLength: 60 }), (pairs) => {
        const k = cohensKappa(pairs);
        if (k !== null) {
          expect(k).toBeLessThanOrEqual(1);
          expect(k).toBeGreaterThanOrEqual(-1);
          expect(cohensKappa(pairs.map(([a, b]) => [b, a] as const))).toBeCloseTo(k, 12);
        }
        const same = pairs.map(([a]) => [a, a] as const);
        const distinct = new Set(same.map(([a]) => a)).size;
        expect(cohensKappa(same)).toBe(distinct >= 2 ? 1 : null);
      }),
    );
  });
});

describe("confusionMatrix", () => {
  it("puts the given labels first, then others by first appearance; rows are rater A", () => {
    const m = confusionMatrix<string>(
      [
        ["x", "y"],
        ["y", "y"],
        ["z", "x"],
      ],
      ["y"],
    );
    expect(m.labels).toEqual(["y", "x", "z"]);
    expect(m.counts).toEqual([
      [1, 0, 0],
      [1, 0, 0],
      [0, 1, 0],
    ]);
    expect(m.n).toBe(3);
  });

  it("keeps an unused given label as an all-zero row and column", () => {
    const m = confusionMatrix<boolean>([[true, true]], [true, false]);
    expect(m.counts).toEqual([
      [1, 0],
      [0, 0],
    ]);
  });
});

describe("cohensKappaInterval", () => {
  it("brackets the Wikipedia example and is deterministic for a seed", () => {
    const pairs = table(20, 5, 10, 15);
    const ci = cohensKappaInterval(pairs, { seed: 11 })!;
    expect(ci.estimate).toBeCloseTo(0.4, 12);
    expect(ci.lower).toBeLessThan(0.4);
    expect(ci.upper).toBeGreaterThan(0.4);
    // Large-sample se of κ here is about 0.13, so the 95% interval is roughly 0.4 ± 0.25.
    expect(ci.lower).toBeGreaterThan(0.05);
    expect(ci.upper).toBeLessThan(0.75);
    expect(cohensKappaInterval(pairs, { seed: 11 })).toEqual(ci);
  });

  it("is null when κ is undefined", () => {
    expect(cohensKappaInterval(table(10, 0, 0, 0))).toBeNull();
    expect(cohensKappaInterval([])).toBeNull();
  });
});
