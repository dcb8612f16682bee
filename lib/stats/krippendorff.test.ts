import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { bootstrapCI } from "@/lib/stats/intervals.ts";
import {
  krippendorffAlpha,
  krippendorffAlphaInterval,
  krippendorffAlphaIntervals,
  krippendorffAlphas,
  type Unit,
} from "@/lib/stats/krippendorff.ts";

/** Units from a reliability data matrix written as in the paper: one row per observer, one column per unit. */
function byUnit<V>(observers: (V | null)[][]): Unit<V>[] {
  return observers[0].map((_, u) => observers.map((row) => row[u]));
}

// Krippendorff, K. (2011). Computing Krippendorff's Alpha-Reliability. Annenberg School for Communication,
// University of Pennsylvania. Section C: 4 observers, 12 units, values 1–5, missing data (·).
const paperC = byUnit<number>([
  [1, 2, 3, 3, 2, 1, 4, 1, 2, null, null, null], // A
  [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, null, 3], // B
  [null, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, null], // C
  [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, null], // D
]);

describe("krippendorffAlpha", () => {
  it("reproduces Krippendorff (2011) section C, nominal metric: α = 0.743", () => {
    const r = krippendorffAlpha(paperC, { metric: "nominal" })!;
    expect(r.alpha).toBeCloseTo(0.743, 3);
    // Unit 12 has one value and is not pairable: n = 40 pairable values in 11 units, as in the paper.
    expect(r.pairableValues).toBe(40);
    expect(r.pairableUnits).toBe(11);
  });

  it("reproduces Krippendorff (2011) section C, interval metric: α = 0.849", () => {
    expect(krippendorffAlpha(paperC, { metric: "interval" })!.alpha).toBeCloseTo(0.849, 3);
  });

  it("reproduces Krippendorff (2011) section A, two observers, binary data: α = 0.095", () => {
    const units = byUnit<number>([
      [0, 1, 0, 0, 0, 0, 0, 0, 1, 0],
      [1, 1, 1, 0, 0, 1, 0, 0, 0, 0],
    ]);
    expect(krippendorffAlpha(units, { metric: "nominal" })!.alpha).toBeCloseTo(0.095, 3);
  });

  it("by hand, interval metric: units [1, 2] and [3, 3] give 8/11", () => {
    // o_12 = o_21 = 1, o_33 = 2; n_1 = n_2 = 1, n_3 = 2, n = 4. D_o = (1 + 1)/4 = 0.5;
    // D_e = 2(1·1·1² + 1·2·2² + 1·2·1²)/(4·3) = 22/12; α = 1 − 0.5 · 12/22 = 8/11
    expect(
      krippendorffAlpha(
        [
          [1, 2],
          [3, 3],
        ],
        { metric: "interval" },
      )!.alpha,
    ).toBeCloseTo(8 / 11, 12);
  });

  it("works on guardrail flags (booleans) and labels (strings) with the nominal metric", () => {
    const flags: Unit<boolean>[] = [
      [true, true, true],
      [false, false, null],
      [true, false, false],
      [false, false, false],
    ];
    // values: T×4, F×7 → n = 11; unit terms: 0, 0, (9 − 5)/2 = 2, 0; α = 1 − 10·2/(121 − 65) = 1 − 20/56
    expect(krippendorffAlpha(flags, { metric: "nominal" })!.alpha).toBeCloseTo(1 - 20 / 56, 12);
    const labels: Unit<string>[] = [
      ["a", "a"],
      ["b", "b"],
    ];
    expect(krippendorffAlpha(labels, { metric: "nominal" })!.alpha).toBe(1);
  });

  it("treats null, undefined and NaN as missing (and Infinity, for the interval metric)", () => {
    const withMissing = paperC.map((u) => [...u, NaN, undefined, Infinity]);
    expect(krippendorffAlpha(withMissing, { metric: "interval" })!.alpha).toBeCloseTo(0.849, 3);
    expect(
      krippendorffAlpha(
        paperC.map((u) => [...u, NaN, undefined]),
        { metric: "nominal" },
      )!.alpha,
    ).toBeCloseTo(0.743, 3);
  });

  it("is null with no pairable unit, no data, or a single value everywhere (one class only)", () => {
    expect(krippendorffAlpha([], { metric: "nominal" })).toBeNull();
    expect(krippendorffAlpha([[1], [2, null], [null, null]], { metric: "interval" })).toBeNull();
    expect(
      krippendorffAlpha(
        [
          [1, 1],
          [1, 1, 1],
        ],
        { metric: "interval" },
      ),
    ).toBeNull();
    expect(
      krippendorffAlpha(
        [
          [0.3, 0.3],
          [0.3, 0.3],
        ],
        { metric: "interval" },
      ),
    ).toBeNull();
    expect(
      krippendorffAlpha(
        [
          ["x", "x"],
          ["x", "x"],
        ],
        { metric: "nominal" },
      ),
    ).toBeNull();
  });

  it("is negative for systematic disagreement", () => {
    expect(
      krippendorffAlpha(
        [
          [0, 1],
          [1, 0],
          [0, 1],
          [1, 0],
        ],
        { metric: "nominal" },
      )!.alpha,
    ).toBeLessThan(0);
  });

  const unitOf = fc.array(fc.option(fc.integer({ min: 0, max: 4 }), { nil: null }), { minLength: 1, maxLength: 4 });

  it("property: α = 1 on perfect agreement (with at least two distinct values)", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.integer({ min: 0, max: 100 }).map((x) => x / 100),
            fc.integer({ min: 2, max: 5 }),
          ),
          { minLength: 2, maxLength: 20 },
        ),
        (spec) => {
          const units = spec.map(([v, m]) => Array.from({ length: m }, () => v));
          const distinct = new Set(spec.map(([v]) => v)).size;
          const interval = krippendorffAlpha(units, { metric: "interval" });
          const nominal = krippendorffAlpha(units, { metric: "nominal" });
          if (distinct < 2) {
            expect(interval).toBeNull();
            expect(nominal).toBeNull();
          } else {
            expect(interval!.alpha).toBe(1);
            expect(nominal!.alpha).toBe(1);
          }
        },
      ),
    );
  });

  it("property: α ≤ 1, and units with fewer than two ratings change nothing", () => {
    fc.assert(
      fc.property(fc.array(unitOf, { maxLength: 25 }), (units) => {
        for (const metric of ["nominal", "interval"] as const) {
          const r = krippendorffAlpha(units, { metric });
          if (r !== null) expect(r.alpha).toBeLessThanOrEqual(1 + 1e-12);
          const padded = krippendorffAlpha([...units, [3], [null, 2], []], { metric });
          expect(padded?.alpha).toBe(r?.alpha);
        }
      }),
    );
  });

  it("property: the order of units and of raters within a unit does not matter", () => {
    fc.assert(
      fc.property(fc.array(unitOf, { maxLength: 25 }), (units) => {
        const shuffled = [...units].reverse().map((u) => [...u].reverse());
        for (const metric of ["nominal", "interval"] as const) {
          const a = krippendorffAlpha(units, { metric })?.alpha;
          const b = krippendorffAlpha(shuffled, { metric })?.alpha;
          if (a === undefined) expect(b).toBeUndefined();
          else expect(b).toBeCloseTo(a, 10);
        }
      }),
    );
  });
});

describe("krippendorffAlphaInterval", () => {
  it("brackets the paper's α and is deterministic for a seed", () => {
    const ci = krippendorffAlphaInterval(paperC, { metric: "nominal", seed: 8 })!;
    expect(ci.estimate).toBeCloseTo(0.743, 3);
    expect(ci.lower).toBeLessThan(0.743);
    expect(ci.upper).toBeLessThanOrEqual(1);
    expect(krippendorffAlphaInterval(paperC, { metric: "nominal", seed: 8 })).toEqual(ci);
    expect(krippendorffAlphaInterval(paperC, { metric: "interval", seed: 8 })!.estimate).toBeCloseTo(0.849, 3);
  });
});

describe("krippendorffAlphaInterval on the interval scale", () => {
  const alphaOf = (s: readonly Unit<number>[]) => krippendorffAlpha(s, { metric: "interval" })?.alpha ?? null;
  // rewards on a grid: 1,200 units of two ratings from six patterns, so a resample is drawn as its count per pattern
  const patterns = [
    [0, 0],
    [0.5, 0.5],
    [1, 1],
    [0.5, 1],
    [0, 0.5],
    [1, 0.25],
  ];
  const grid: Unit<number>[] = Array.from({ length: 1200 }, (_, i) => patterns[(i * 7) % 6]);

  it("draws units with few distinct ratings as counts: the unit bootstrap in distribution, not its draws", () => {
    const counted = krippendorffAlphaInterval(grid, { metric: "interval", seed: 4, iterations: 4000 })!;
    const byUnits = bootstrapCI(grid, alphaOf, { seed: 4, iterations: 4000 })!;
    expect(counted.estimate).toBe(byUnits.estimate);
    // α's se here ≈ 0.02; a 2.5% quantile of 4,000 resamples has a Monte Carlo se ≈ 0.0015 — 0.006 is 4 of each
    expect(Math.abs(counted.lower - byUnits.lower)).toBeLessThan(0.006);
    expect(Math.abs(counted.upper - byUnits.upper)).toBeLessThan(0.006);
    expect(counted.upper - counted.lower).toBeGreaterThan(0.04);
    expect(counted).not.toEqual(byUnits);
    expect(krippendorffAlphaInterval(grid, { metric: "interval", seed: 4, iterations: 4000 })).toEqual(counted);
  });

  it("draws units with many distinct ratings by index: bootstrapCI over the units to the bit", () => {
    const spread: Unit<number>[] = Array.from({ length: 300 }, (_, i) => [i / 300, ((i * 37) % 300) / 300]);
    const drawn = krippendorffAlphaInterval(spread, { metric: "interval", seed: 5, iterations: 400 })!;
    expect(drawn).toEqual(bootstrapCI(spread, alphaOf, { seed: 5, iterations: 400 }));
  });
});

describe("krippendorffAlphas", () => {
  it("is krippendorffAlpha of each set, with krippendorffAlphaIntervals of the sets where α is defined", () => {
    const flags = (k: number) => Array.from({ length: 90 }, (_, i) => [i % k === 0, i % (k + 1) === 0]);
    const rewards: Unit<number>[] = Array.from({ length: 90 }, (_, i) => [(i % 10) / 10, ((i * 3) % 10) / 10]);
    const same = Array.from({ length: 90 }, () => [true, true]); // every rating alike: α undefined
    const sets = [
      { units: rewards, metric: "interval" as const },
      { units: flags(3), metric: "nominal" as const },
      { units: same, metric: "nominal" as const },
      { units: flags(5), metric: "nominal" as const },
    ];
    const got = krippendorffAlphas(sets, { seed: 7, iterations: 300 });
    expect(got.map((g) => g.alpha)).toEqual(
      sets.map((x) => krippendorffAlpha(x.units as Unit<number>[], { metric: x.metric })),
    );
    expect(got[2]).toEqual({ alpha: null, interval: null });
    const defined = [sets[0], sets[1], sets[3]];
    expect([got[0].interval, got[1].interval, got[3].interval]).toEqual(
      krippendorffAlphaIntervals(defined, { seed: 7, iterations: 300 }),
    );
    expect(got[0].interval).not.toBeNull();
  });
});

describe("krippendorffAlphaInterval on a nominal scale", () => {
  // A nominal resample is a count per rating pattern (m and how many ratings fall in each category, whatever the
  // raters' order): units that differ only in the order of their ratings are one pattern, so rotating each unit's
  // ratings draws the same counts and gives the same interval to the bit. Patterns are keyed by number when their
  // counts fit in a double and by text otherwise (a unit of 9 ratings among dozens of categories); both keys must
  // be canonical, or a rotated unit would start a pattern of its own and the draws would differ.
  const rotate = <T>(u: T[], k: number) => [...u.slice(k % u.length), ...u.slice(0, k % u.length)];
  const setOf = (patterns: string[][], rotated: boolean) =>
    Array.from({ length: 600 }, (_, i) => {
      const p = patterns[(i * 7) % patterns.length];
      return rotated ? rotate(p, i) : p;
    });
  const cases = {
    "two ratings, three categories (numeric keys)": [
      ["a", "a"],
      ["a", "b"],
      ["b", "c"],
      ["c", "c"],
    ],
    // five units of 9 ratings over 45 categories: all but the first pattern's counts exceed a double's digits
    "nine ratings, 45 categories (text keys)": Array.from({ length: 5 }, (_, j) =>
      Array.from({ length: 9 }, (_, r) => `c${9 * j + (r < 3 ? 0 : r)}`),
    ),
  };
  for (const [name, patterns] of Object.entries(cases))
    it(`draws the same counts for units that differ only in their raters' order: ${name}`, () => {
      const a = krippendorffAlphaInterval(setOf(patterns, false), { metric: "nominal", seed: 3, iterations: 300 })!;
      const b = krippendorffAlphaInterval(setOf(patterns, true), { metric: "nominal", seed: 3, iterations: 300 })!;
      expect(a.upper).toBeGreaterThan(a.lower);
      expect(b).toEqual(a);
    });
});
