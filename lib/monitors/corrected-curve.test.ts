import { describe, expect, it } from "vitest";
import { buildCorrectedWindows, type AuditedStep } from "@/lib/monitors/corrected-curve.ts";

describe("buildCorrectedWindows", () => {
  it("labels a pooled window by the steps it can draw on, never before step 0", () => {
    // one audited rollout in the first window: thin even pooled two windows each side
    const audited: AuditedStep[] = [
      {
        step: 100,
        ticket: "t1",
        ledger: true,
        human: true,
        ledgerReward: 1,
        humanReward: 1,
        inclusionProbability: 0.5,
      },
    ];
    const ledger = [0, 500].map((stepFrom) => ({ stepFrom, rollouts: 10, rewarded: 10, success: 5, rewardSum: 5 }));
    const [w0, w1] = buildCorrectedWindows(ledger, audited, 500, { iterations: 10 });
    expect(w0.evidence).toMatchObject({ stepFrom: 0, stepTo: 1499, items: 1 });
    expect(w0.thin).toMatch(/\(pooled over steps 0–1499\)$/);
    expect(w1.evidence).toMatchObject({ stepFrom: 0, stepTo: 1999 });
  });
});
