import { describe, expect, it } from "vitest";
import type { BatchPreview } from "@/lib/audit/data.ts";
import { planForBatch, type PlanEvidence } from "@/lib/audit/plan.ts";
import type { ResolvedBatchParams } from "@/lib/audit/schema.ts";

// Only the fields planForBatch reads: the pick, the window's population and the previewed strata.
const params = { pick: "one" } as ResolvedBatchParams;
const preview = {
  population: { tickets: 300, rollouts: 1200, excluded: 0 },
  sample: {
    strata: [
      { stratum: "unauthorized_write", tickets: 40 },
      { stratum: "missing_evidence", tickets: 60 },
      { stratum: "none", tickets: 200 },
    ],
  },
} as unknown as BatchPreview;

describe("planForBatch", () => {
  it("plans a stratum with 30+ reviews at the cautious end of its agreement's interval, one with fewer at the run's", () => {
    const evidence: PlanEvidence = {
      reviewed: 100,
      agreement: 0.8,
      perStratum: new Map([
        ["unauthorized_write", { k: 30, n: 30 }],
        ["missing_evidence", { k: 5, n: 10 }],
      ]),
      icc: null,
      iccInterval: null,
      iccTickets: 0,
    };
    const plan = planForBatch(params, preview, evidence, 0.1);
    const by = new Map(plan.strata.map((s) => [s.stratum, s]));
    // 30 of 30 agreed: planned at the Wilson lower bound 0.886 (39 items for ±10%), not at 1 (1 item)
    expect(by.get("unauthorized_write")!.agreement).toBeCloseTo(0.8865, 3);
    expect(by.get("unauthorized_write")!.items).toBe(39);
    // 10 reviews are too few to trust: the run's 0.8
    expect(by.get("missing_evidence")!.agreement).toBe(0.8);
    expect(by.get("none")!.agreement).toBe(0.8);
  });

  it("plans for the upper end of the measured intra-ticket correlation's interval, and shows the range", () => {
    const all = { pick: "all" } as ResolvedBatchParams;
    const evidence: PlanEvidence = {
      reviewed: 400,
      agreement: 0.88,
      perStratum: new Map(),
      icc: 0.05,
      iccInterval: { lower: 0, upper: 0.25 },
      iccTickets: 40,
    };
    const plan = planForBatch(all, preview, evidence, 0.1);
    // 4 items per ticket (1,200 rollouts over 300 tickets): design effect 1 + 3·0.25 = 1.75 at the upper end
    expect([plan.itemsPerTicket, plan.icc, plan.designEffect]).toEqual([4, 0.25, 1.75]);
    expect(plan.iccRange).toEqual({ estimate: 0.05, lower: 0, upper: 0.25, designEffect: { lower: 1, upper: 1.75 } });
    // 41 items for ±10% at 88%, × 1.75 = 71.75 → 72 items in 18 tickets
    expect([plan.overall.itemsSrs, plan.overall.items, plan.overall.ticketsNeeded]).toEqual([41, 72, 18]);
    expect(plan.sources.icc).toBe(
      "measured 0.05 over 40 tickets with two or more reviewed items, 95% interval 0.00–0.25: planned at its upper end",
    );
    // a given ρ is planned as given, with no range
    const given = planForBatch(all, preview, evidence, 0.1, { icc: 0.1 });
    expect([given.icc, given.iccRange, given.sources.icc]).toEqual([0.1, null, "given"]);
  });
});
