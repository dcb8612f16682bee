// Gwet's AC1 and the Brennan–Prediger coefficient (PABAK) against published worked examples: the contingency tables
// and raw rating sets of Gwet's Handbook of Inter-Rater Reliability (4th ed., 2014) as shipped with the irrCAC package,
// with the values, standard errors and intervals that package's own tests assert.
import { describe, expect, it } from "vitest";
import {
  brennanPrediger,
  chanceCorrectedRaw,
  chanceCorrectedRawModes,
  coefficientToRead,
  gwetAc1,
} from "@/lib/stats/chance-corrected.ts";
import { kappaFromMatrix } from "@/lib/stats/kappa.ts";
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
    expect(coefficientToRead([0.95, 0.93])).toBe("ac1");
  });

  it("is defined when both sides give one verdict to every item, and null with nothing to compare", () => {
    const all = gwetAc1([
      [40, 0],
      [0, 0],
    ])!;
    expect(all.value).toBe(1);
    expect(
      kappaFromMatrix([
        [40, 0],
        [0, 0],
      ]),
    ).toBeNull();
    expect(
      gwetAc1([
        [0, 0],
        [0, 0],
      ]),
    ).toBeNull();
    expect(gwetAc1([[5]])).toBeNull();
    expect(() => gwetAc1([[1, 2], [3]])).toThrow(/square/);
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

  it("needs an item rated twice, and names a rating outside the categories", () => {
    expect(chanceCorrectedRaw([["a"], ["b", null]], ["a", "b"], "ac1")).toBeNull();
    expect(() => chanceCorrectedRaw([["a", "z"]], ["a", "b"], "ac1")).toThrow(/rating z/);
  });
});
