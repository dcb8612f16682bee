// Gwet's AC1 and the Brennan–Prediger coefficient (PABAK) against published worked examples: the contingency tables
// and raw rating sets of Gwet's Handbook of Inter-Rater Reliability (4th ed., 2014) as shipped with the irrCAC package,
// with the values, standard errors and intervals that package's own tests assert.
import { describe, expect, it } from "vitest";
import { VERDICT_RATERS } from "@/lib/stats/agreement.ts";
import {
  brennanPrediger,
  chanceCorrectedRaw,
  chanceCorrectedUndefinedReason,
  chanceCorrectedRawModes,
  coefficientToRead,
  gwetAc1,
} from "@/lib/stats/chance-corrected.ts";
import { perfectAgreementInterval } from "@/lib/stats/intervals.ts";
import { kappaFromMatrix, kappaIntervalOfMatrix } from "@/lib/stats/kappa.ts";
import { studentTCdf, studentTQuantile } from "@/lib/stats/student-t.ts";

const round = (x: number | undefined, d = 3) => (x === undefined ? undefined : Number(x.toFixed(d)));

/** 100 pregnant women classified by two abstractors (Ectopic, AIU, NIU): Gwet (2014). */
const ABSTRACTORS = [
  [13, 0, 0],
  [0, 20, 7],
  [0, 4, 56],
];
/** 223 psychiatric patients, clinical against research diagnosis (4 categories). */
const DIAGNOSIS = [
  [40, 4, 4, 17],
  [6, 25, 2, 13],
  [4, 1, 21, 12],
  [15, 5, 9, 45],
];

describe("Student's t", () => {
  it("has the tabulated two-sided 95% quantiles", () => {
    expect(studentTQuantile(0.975, 1)).toBeCloseTo(12.7062047, 5);
    expect(studentTQuantile(0.975, 9)).toBeCloseTo(2.2621572, 6);
    expect(studentTQuantile(0.975, 99)).toBeCloseTo(1.9842169, 6);
    expect(studentTQuantile(0.025, 11)).toBeCloseTo(-2.2009852, 6);
    expect(studentTQuantile(0.975, 1e7)).toBeCloseTo(1.959964, 5);
    expect(studentTCdf(0, 5)).toBe(0.5);
    expect(studentTCdf(2.015048, 5)).toBeCloseTo(0.95, 6);
  });
});

describe("Gwet's AC1 from a two-rater table", () => {
  it("reproduces the abstractors example: 0.849, 95% CI 0.764 to 0.935", () => {
    const r = gwetAc1(ABSTRACTORS)!;
    expect(round(r.value, 5)).toBe(0.84933);
    expect([round(r.interval!.lower, 5), round(r.interval!.upper, 5)]).toEqual([0.76358, 0.93508]);
    expect(r.n).toBe(100);
  });

  it("reproduces the diagnosis example: 0.456, se 0.043, 95% CI 0.371 to 0.542", () => {
    const r = gwetAc1(DIAGNOSIS)!;
    expect([round(r.value), round(r.se), round(r.interval!.lower), round(r.interval!.upper)]).toEqual([
      0.456, 0.043, 0.371, 0.542,
    ]);
  });

  it("stays high where κ collapses: 88% agreement with both sides passing 85%", () => {
    // rows: ledger success / not; columns: human success / not
    const t = [
      [79, 6],
      [6, 9],
    ];
    expect(round(kappaFromMatrix(t)!, 2)).toBe(0.53);
    expect(round(gwetAc1(t)!.value, 2)).toBe(0.84);
    expect(round(brennanPrediger(t)!.value, 2)).toBe(0.76);
    expect(coefficientToRead([0.85, 0.85])).toBe("kappa");
    expect(coefficientToRead([0.95, 0.93])).toBe("specific");
  });

  it("is not defined when both sides give every item the same verdict, as κ is not, nor with nothing to compare", () => {
    const same = [
      [40, 0],
      [0, 0],
    ];
    // p_a = 1 and p_e = 0 would read 1.000 with a zero-width interval: no item could have disagreed
    expect(gwetAc1(same)).toBeNull();
    expect(brennanPrediger(same)).toBeNull();
    expect(kappaFromMatrix(same)).toBeNull();
    expect(chanceCorrectedUndefinedReason(same, VERDICT_RATERS)).toBe(
      "the ledger and the human side give every item the same verdict: nothing to tell apart",
    );
    // opposite constant verdicts are a measurement (of total disagreement): AC1 −1
    const opposite = [
      [0, 40],
      [0, 0],
    ];
    expect(gwetAc1(opposite)!.value).toBeCloseTo(-1, 12);
    expect(chanceCorrectedUndefinedReason(opposite, VERDICT_RATERS)).toBeNull();
    const empty = [
      [0, 0],
      [0, 0],
    ];
    expect(gwetAc1(empty)).toBeNull();
    expect(chanceCorrectedUndefinedReason(empty, VERDICT_RATERS)).toBe("no item was rated by both");
    expect(gwetAc1([[5]])).toBeNull();
    expect(() => gwetAc1([[1, 2], [3]])).toThrow(/square/);
  });

  it("gives a perfect table an interval that does not collapse: Wilson's for p_a, carried through p_e", () => {
    // 30 items, 15 passed by both and 15 failed by both: p_a = 1; AC1 and κ's p_e = 0.5 (π = ½), PABAK's 1/2.
    // Wilson's lower bound for 30 of 30 is 30/(30 + 1.96²) = 0.88649, so (0.88649 − 0.5)/0.5 = 0.77297.
    const perfect = [
      [15, 0],
      [0, 15],
    ];
    for (const c of [gwetAc1(perfect)!, brennanPrediger(perfect)!]) {
      expect(c.value).toBe(1);
      expect(c.interval!.lower).toBeCloseTo(0.77297, 5);
      expect(c.interval!.upper).toBe(1);
    }
    const k = kappaIntervalOfMatrix(perfect, { seed: 1, iterations: 200 })!;
    expect([k.estimate, k.upper, k.iterations]).toEqual([1, 1, 0]);
    expect(k.lower).toBeCloseTo(0.77297, 5);
    // 27 and 3: AC1's p_e = 2·0.9·0.1 = 0.18, so (0.88649 − 0.18)/0.82 = 0.86157; κ's p_e = 0.9² + 0.1² = 0.82,
    // so (0.88649 − 0.82)/0.18 = 0.36937: a κ of 1 on 3 failures says little
    const skewed = [
      [27, 0],
      [0, 3],
    ];
    expect(gwetAc1(skewed)!.interval!.lower).toBeCloseTo(0.86157, 5);
    expect(kappaIntervalOfMatrix(skewed)!.lower).toBeCloseTo(0.36937, 5);
    expect(perfectAgreementInterval(30, 0.5)).toEqual({ lower: expect.closeTo(0.77297, 5), upper: 1 });
    expect(() => perfectAgreementInterval(0, 0.5)).toThrow(/at least 1/);
  });
});

describe("Brennan–Prediger (PABAK) from a two-rater table", () => {
  it("reproduces the abstractors example: 0.835, 95% CI 0.742 to 0.928", () => {
    const r = brennanPrediger(ABSTRACTORS)!;
    expect([round(r.value), round(r.interval!.lower), round(r.interval!.upper)]).toEqual([0.835, 0.742, 0.928]);
  });

  it("reproduces the diagnosis example: 0.450, se 0.044, 95% CI 0.363 to 0.537", () => {
    const r = brennanPrediger(DIAGNOSIS)!;
    expect([round(r.value), round(r.se), round(r.interval!.lower), round(r.interval!.upper)]).toEqual([
      0.45, 0.044, 0.363, 0.537,
    ]);
  });

  it("is 2·p_o − 1 for two categories", () => {
    expect(
      brennanPrediger([
        [30, 5],
        [3, 12],
      ])!.value,
    ).toBeCloseTo(2 * (42 / 50) - 1, 12);
  });
});

describe("Gwet's AC1 among several raters, from raw ratings with gaps", () => {
  it("reproduces the four-raters example: 0.775, se 0.143, 95% CI 0.461 to 1", () => {
    const raters = [
      [1, 2, 3, 3, 2, 1, 4, 1, 2, null, null, null],
      [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, null, null],
      [null, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, 3],
      [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, null],
    ];
    const units = raters[0].map((_, i) => raters.map((r) => r[i]));
    const r = chanceCorrectedRaw(units, [1, 2, 3, 4, 5], "ac1")!;
    expect([round(r.pa, 5), round(r.pe, 5), round(r.value, 5), round(r.se, 5)]).toEqual([
      0.81818, 0.19032, 0.77544, 0.14295,
    ]);
    expect([round(r.interval!.lower, 5), r.interval!.upper]).toEqual([0.46081, 1]);
  });

  it("reproduces the gender example: 0.208, se 0.091, 95% CI 0.014 to 0.403", () => {
    const raters = [
      "a a a a a b b b c a a a a a b",
      "a a a a b a b c c a a a a b a",
      "a b b c a a b b c a b b c a a",
      "c c c c a a b b c c c c c a a",
    ].map((s) => s.split(" "));
    const units = raters[0].map((_, i) => raters.map((r) => r[i]));
    const r = chanceCorrectedRaw(units, ["a", "b", "c"], "ac1")!;
    // p_e is 0.3125 exactly, which the published 3-digit figure rounds half to even (0.312)
    expect(r.pe).toBeCloseTo(0.3125, 12);
    expect([round(r.pa), round(r.value), round(r.se)]).toEqual([0.456, 0.208, 0.091]);
    expect([round(r.interval!.lower), round(r.interval!.upper)]).toEqual([0.014, 0.403]);
  });

  it("reproduces the two-raters-with-a-gap example (Ben and Gerry): 0.661, se 0.184, 95% CI 0.257 to 1", () => {
    const ben = ["a", "a", "b", "b", "d", "c", "c", "c", "e", "d", "d", "a"];
    const gerry = ["b", "a", "b", "b", "b", "c", "c", "c", "e", null, "d", "d"];
    const r = chanceCorrectedRaw(
      ben.map((b, i) => [b, gerry[i]]),
      ["a", "b", "c", "d", "e"],
      "ac1",
    )!;
    expect([round(r.pa), round(r.pe), round(r.value), round(r.se)]).toEqual([0.727, 0.194, 0.661, 0.184]);
    expect([round(r.interval!.lower), r.interval!.upper]).toEqual([0.257, 1]);
  });

  it("equals the table version when two raters rate every item", () => {
    const units: [string, string][] = [];
    ABSTRACTORS.forEach((row, i) =>
      row.forEach((c, j) => units.push(...Array.from({ length: c }, () => [String(i), String(j)] as [string, string]))),
    );
    const raw = chanceCorrectedRaw(units, ["0", "1", "2"], "ac1")!;
    expect(raw.value).toBeCloseTo(gwetAc1(ABSTRACTORS)!.value, 12);
    const bp = chanceCorrectedRaw(units, ["0", "1", "2"], "bp")!;
    expect(bp.value).toBeCloseTo(brennanPrediger(ABSTRACTORS)!.value, 12);
  });

  it("gives each mode's coefficient from one count of the ratings, as chanceCorrectedRaw does", () => {
    const units = [
      ["a", "a", "b"],
      ["b", "b", null],
      ["a", "c", "c"],
      ["c", null, null],
      ["a", "a", "a"],
    ];
    const [ac1, bp] = chanceCorrectedRawModes(units, ["a", "b", "c"], ["ac1", "bp"]);
    expect(ac1).toEqual(chanceCorrectedRaw(units, ["a", "b", "c"], "ac1"));
    expect(bp).toEqual(chanceCorrectedRaw(units, ["a", "b", "c"], "bp"));
    expect(ac1!.value).not.toBe(bp!.value);
    expect(chanceCorrectedRawModes(units, ["a"], ["ac1", "bp"])).toEqual([null, null]);
  });

  it("is not defined when every rating is in one category, and a perfect set gets a non-collapsing interval", () => {
    expect(
      chanceCorrectedRaw(
        [
          ["a", "a"],
          ["a", "a", "a"],
          ["a", null],
        ],
        ["a", "b"],
        "ac1",
      ),
    ).toBeNull();
    expect(
      chanceCorrectedRaw(
        [
          ["a", "a"],
          ["a", "a", "a"],
        ],
        ["a", "b"],
        "bp",
      ),
    ).toBeNull();
    // 20 items rated twice, all agreeing, 10 a and 10 b: π = ½, p_e = 0.5; Wilson's lower bound for 20 of 20 is
    // 20/(20 + 1.96²) = 0.83887, so (0.83887 − 0.5)/0.5 = 0.67775
    const units = Array.from({ length: 20 }, (_, i) => (i < 10 ? ["a", "a"] : ["b", "b"]));
    const r = chanceCorrectedRaw(units, ["a", "b"], "ac1")!;
    expect(r.value).toBe(1);
    expect(r.interval!.lower).toBeCloseTo(0.67775, 5);
    expect(r.interval!.upper).toBe(1);
  });

  it("needs an item rated twice, and names a rating outside the categories", () => {
    expect(chanceCorrectedRaw([["a"], ["b", null]], ["a", "b"], "ac1")).toBeNull();
    expect(() => chanceCorrectedRaw([["a", "z"]], ["a", "b"], "ac1")).toThrow(/rating z/);
  });
});
