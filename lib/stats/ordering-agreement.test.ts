import { describe, expect, it } from "vitest";
import { gapBin, orderingAgreement, type PairJudgementObs } from "@/lib/stats/ordering-agreement.ts";

const obs = (verdict: PairJudgementObs["verdict"], side: PairJudgementObs["side"], inclusionProb = 0.1) => ({
  verdict,
  side,
  inclusionProb,
});

describe("orderingAgreement", () => {
  it("counts agreement over ordered non-tie judgements, ties and unordered pairs apart", () => {
    const r = orderingAgreement([
      ...Array.from({ length: 8 }, (_, i) => obs("agree", i % 2 ? "left" : "right")),
      obs("inversion", "left"),
      obs("inversion", "left"),
      obs("tie", "tie"),
      obs("ledger_tie", "right"),
    ]);
    expect([r.agree, r.inversions, r.ties, r.unordered]).toEqual([8, 2, 1, 1]);
    expect(r.agreement.rate).toBe(0.8);
    expect(r.agreement.tooFew).toBe(true);
    // Wilson 95% for 8 of 10, by hand: centre 0.7166, half 0.2260
    expect(r.agreement.interval!.lower).toBeCloseTo(0.4902, 3);
    expect(r.agreement.interval!.upper).toBeCloseTo(0.9433, 3);
    expect(r.tieShare.rate).toBeCloseTo(1 / 11, 12);
    // position: 6 left of 11 non-tie choices (the ledger-tie judgement chose a side too)
    expect(r.leftShare.rate).toBeCloseTo(6 / 11, 12);
    expect(r.weighted!.estimate).toBeCloseTo(0.8, 12);
  });

  it("weights by 1/π: a topped-up rare stratum does not dominate the estimate", () => {
    const r = orderingAgreement([
      ...Array.from({ length: 10 }, () => obs("agree", "left", 0.01)),
      ...Array.from({ length: 10 }, () => obs("inversion", "right", 1)),
    ]);
    expect(r.agreement.rate).toBe(0.5);
    // weights 100 and 1: (10·100) / (10·100 + 10·1)
    expect(r.weighted!.estimate).toBeCloseTo(1000 / 1010, 12);
    expect(r.weighted!.nEffective).toBeLessThan(20);
  });

  it("is empty without judgements", () => {
    const r = orderingAgreement([]);
    expect(r.agreement.rate).toBeNull();
    expect(r.agreement.detail).toBe("no data");
    expect(r.weighted).toBeNull();
    expect(orderingAgreement([obs("tie", "tie")]).leftShare.rate).toBeNull();
  });
});

describe("gapBin", () => {
  it("bins gaps with inclusive upper bounds", () => {
    expect([0, 0.1, 0.11, 0.25, 0.3, 0.5, 0.9].map((g) => gapBin(g, 0.1))).toEqual([
      "≤ 0.1",
      "≤ 0.1",
      "0.1–0.25",
      "0.1–0.25",
      "0.25–0.5",
      "0.25–0.5",
      "> 0.5",
    ]);
  });
});
