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
});
