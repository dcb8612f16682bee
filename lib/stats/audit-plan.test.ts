import { describe, expect, it } from "vitest";
import {
  designEffect,
  intraTicketCorrelation,
  intraTicketCorrelationInterval,
  itemsForHalfWidth,
  planAudit,
  plannedAgreement,
} from "@/lib/stats/audit-plan.ts";

describe("the audit planner", () => {
  it("needs 451, 163 and 41 items for ±3%, ±5% and ±10% at 88% agreement", () => {
    expect([0.03, 0.05, 0.1].map((h) => itemsForHalfWidth(0.88, h))).toEqual([451, 163, 41]);
    expect(itemsForHalfWidth(0.5, 0.05)).toBe(385);
    expect(() => itemsForHalfWidth(1.2, 0.05)).toThrow(/expected agreement/);
    expect(() => itemsForHalfWidth(0.9, 0)).toThrow(/half-width/);
  });

  it("scales by Kish's design effect for whole tickets, and gives the rate over the window", () => {
    expect(designEffect(1, 0.3)).toBe(1);
    expect(designEffect(4, 0.3)).toBeCloseTo(1.9, 12);
    const plan = planAudit({
      halfWidth: 0.05,
      agreement: 0.88,
      itemsPerTicket: 4,
      icc: 0.3,
      tickets: 10_000,
      strata: [
        { stratum: "none", tickets: 9_000, agreement: 0.95 },
        { stratum: "missing_evidence", tickets: 60, agreement: 0.6 },
      ],
    });
    // 163 items × 1.9 = 309.7 → 310 items, in ⌈310/4⌉ = 78 tickets of 10,000
    expect(plan.overall).toEqual({ itemsSrs: 163, items: 310, ticketsNeeded: 78, rate: 0.0078, feasible: true });
    const rare = plan.strata.find((s) => s.stratum === "missing_evidence")!;
    // 369 items × 1.9 = 701.1 → 702 items, 176 tickets: more than the stratum's 60
    expect([rare.itemsSrs, rare.items, rare.ticketsNeeded, rare.tickets, rare.feasible]).toEqual([
      369,
      702,
      176,
      60,
      false,
    ]);
  });

  it("measures the intra-ticket correlation by the ANOVA estimator", () => {
    // hand computation: MSB = 1.375/3, MSW = 0.5/4, m0 = 2 → ρ = (0.4583 − 0.125)/(0.4583 + 0.125) = 0.5714
    const rho = intraTicketCorrelation([
      [true, true],
      [false, false],
      [true, true],
      [true, false],
    ]);
    expect(rho).toBeCloseTo(4 / 7, 10);
    expect(
      intraTicketCorrelation([
        [true, false],
        [true, false],
        [false, true],
      ]),
    ).toBe(0);
    expect(intraTicketCorrelation([[true, true]])).toBeNull();
    expect(
      intraTicketCorrelation([
        [true, true],
        [true, true],
      ]),
    ).toBeNull();
  });

  it("plans a stratum at the cautious end of its agreement's Wilson interval, never at a perfect 1", () => {
    // 30 of 30: Wilson (0.886, 1) → 0.886, so ±10% needs 39 items where p = 1 would have planned 1
    expect(plannedAgreement(30, 30)).toBeCloseTo(0.8865, 3);
    expect(itemsForHalfWidth(plannedAgreement(30, 30), 0.1)).toBe(39);
    // 27 of 30 (0.9): Wilson lower 0.7438; 2 of 40: upper end 0.1652; an interval holding ½ plans at ½
    expect(plannedAgreement(27, 30)).toBeCloseTo(0.7438, 3);
    expect(plannedAgreement(2, 40)).toBeCloseTo(0.1652, 3);
    expect(plannedAgreement(16, 30)).toBe(0.5);
    expect(() => plannedAgreement(3, 0)).toThrow(RangeError);
  });

  it("gives the intra-ticket correlation a bootstrap interval over tickets, seeded", () => {
    // 30 tickets of 4: 10 all agreeing, 10 all disagreeing, 10 split 2–2: strongly clustered
    const groups = [
      ...Array.from({ length: 10 }, () => [true, true, true, true]),
      ...Array.from({ length: 10 }, () => [false, false, false, false]),
      ...Array.from({ length: 10 }, () => [true, true, false, false]),
    ];
    const rho = intraTicketCorrelation(groups)!;
    const iv = intraTicketCorrelationInterval(groups, { seed: 3, iterations: 500 })!;
    expect(iv.estimate).toBe(rho);
    expect(iv.lower).toBeLessThan(rho);
    expect(iv.upper).toBeGreaterThan(rho);
    expect(iv.upper).toBeLessThanOrEqual(1);
    expect(intraTicketCorrelationInterval(groups, { seed: 3, iterations: 500 })).toEqual(iv);
    // single items do not count; with fewer than two tickets there is nothing to measure
    expect(intraTicketCorrelationInterval([[true, false], [true]])).toBeNull();
  });
});
