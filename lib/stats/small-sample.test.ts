import { describe, expect, it } from "vitest";
import { describeRate } from "@/lib/stats/small-sample.ts";
import { wilson } from "@/lib/stats/intervals.ts";

describe("describeRate", () => {
  it("says 'too few to say' below 30 but still returns the rate and the interval", () => {
    const d = describeRate({ k: 3, n: 3 });
    expect(d.label).toBe("too few to say");
    expect(d.tooFew).toBe(true);
    expect(d.rate).toBe(1);
    expect(d.interval).toEqual(wilson(3, 3));
    expect(d.intervalLabel).toBe("44–100%");
    expect(d.detail).toBe("3 of 3 · 95% CI 44–100%");
  });

  it("shows the percentage from 30 items on", () => {
    const d = describeRate({ k: 44, n: 50 });
    expect(d).toMatchObject({ label: "88%", tooFew: false, rate: 0.88, intervalLabel: "76–94%" });
    expect(describeRate({ k: 26, n: 29 }).label).toBe("too few to say");
    expect(describeRate({ k: 26, n: 30 }).label).toBe("87%");
  });

  it("takes the threshold, z and digits", () => {
    expect(describeRate({ k: 3, n: 4, minN: 4 }).label).toBe("75%");
    expect(describeRate({ k: 1, n: 3, minN: 1, digits: 1 }).label).toBe("33.3%");
    // Wilson at z = 2.576: 0.7157–0.9553
    expect(describeRate({ k: 44, n: 50, z: 2.5758293035489 }).detail).toBe("44 of 50 · 99% CI 72–96%");
  });

  it("never rounds to 100% unless all agree, nor to 0% unless none do", () => {
    expect(describeRate({ k: 299, n: 300 }).label).toBe("> 99%");
    expect(describeRate({ k: 300, n: 300 }).label).toBe("100%");
    expect(describeRate({ k: 1, n: 300 }).label).toBe("< 1%");
    expect(describeRate({ k: 0, n: 300 }).label).toBe("0%");
    expect(describeRate({ k: 1999, n: 2000, digits: 1 }).label).toBe("> 99.9%");
  });

  it("n = 0: no rate, no interval", () => {
    expect(describeRate({ k: 0, n: 0 })).toEqual({
      label: "too few to say",
      tooFew: true,
      rate: null,
      k: 0,
      n: 0,
      interval: null,
      intervalLabel: null,
      detail: "no data",
    });
  });

  it("uses a given interval (weighted or bootstrap), with an effective n", () => {
    const d = describeRate({ k: 3.24 / 3, n: 3.24, interval: { lower: 0.1, upper: 0.7 }, minN: 1 });
    expect(d.intervalLabel).toBe("10–70%");
    expect(d.detail).toBe("effective n ≈ 3.2 · CI 10–70%");
    expect(d.label).toBe("33%");
  });

  it("throws on impossible counts (a bug upstream, not data)", () => {
    expect(() => describeRate({ k: 4, n: 3 })).toThrow(RangeError);
    expect(() => describeRate({ k: -1, n: 3 })).toThrow(RangeError);
    expect(() => describeRate({ k: NaN, n: 3 })).toThrow(RangeError);
  });
});
