import { describe, expect, it } from "vitest";
import { gwetAc1 } from "@/lib/stats/chance-corrected.ts";
import { wilson } from "@/lib/stats/intervals.ts";
import { specificAgreement } from "@/lib/stats/specific-agreement.ts";

describe("specificAgreement", () => {
  it("gives PA and NA by hand, with Wilson's interval over the items in the class", () => {
    // a = 8, b = 2, c = 4, d = 86: PA = 16/22, NA = 172/178
    const r = specificAgreement([
      [8, 2],
      [4, 86],
    ]);
    expect(r.positive!.value).toBeCloseTo(16 / 22, 12);
    expect(r.positive!.items).toBe(14);
    expect(r.positive!.both).toBe(8);
    const w = wilson((16 / 22) * 14, 14)!;
    expect(r.positive!.interval).toEqual({ lower: w.lower, upper: w.upper });
    expect(r.negative!.value).toBeCloseTo(172 / 178, 12);
    expect(r.negative!.items).toBe(92);
  });

  it("shows a failing rare class that AC1 hides", () => {
    // the ledger passes 3 items, the humans confirm 1 and pass 1 more; 60 failures agreed: AC1 0.94, PA 0.4
    const t = [
      [1, 2],
      [1, 60],
    ];
    expect(gwetAc1(t)!.value).toBeGreaterThan(0.93);
    const r = specificAgreement(t);
    expect(r.positive!.value).toBeCloseTo(2 / 5, 12);
    expect(r.negative!.value).toBeCloseTo(120 / 123, 12);
  });

  it("keeps an interval at perfect agreement and has nothing for a class neither side uses", () => {
    const r = specificAgreement([
      [10, 0],
      [0, 0],
    ]);
    expect(r.positive!.value).toBe(1);
    // Wilson for 10 of 10: 10/(10 + 1.96²) = 0.72247
    expect(r.positive!.interval.lower).toBeCloseTo(0.72247, 5);
    expect(r.positive!.interval.upper).toBe(1);
    expect(r.negative).toBeNull();
    expect(() => specificAgreement([[1, 2, 3]])).toThrow(/2×2/);
    expect(() =>
      specificAgreement([
        [1, -1],
        [0, 0],
      ]),
    ).toThrow(/non-negative/);
  });
});
