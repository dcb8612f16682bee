import { describe, expect, it } from "vitest";
import type { StepRollupCounters } from "@/lib/rollups/data.ts";
import { meanReward, ratio, rewardStd, stepHealth } from "@/lib/rollups/stats.ts";

const zero: StepRollupCounters = {
  step: 0,
  rollouts: 0,
  rewarded: 0,
  rewardSum: 0,
  rewardSumsq: 0,
  success: 0,
  handoffs: 0,
  guardrailHits: 0,
  capped: 0,
  removedSum: 0,
  specErrors: 0,
  inputErrors: 0,
  external: 0,
  groups: 0,
  flatGroups: 0,
  groupStdSum: 0,
  trained: 0,
  trainedDiffers: 0,
  trainedAbsDiffSum: 0,
  guardrails: {},
};

describe("step health", () => {
  it("is null, not zero, where there is nothing to divide by", () => {
    expect(ratio(0, 0)).toBeNull();
    expect(meanReward(zero)).toBeNull();
    expect(rewardStd(zero)).toBeNull();
    const h = stepHealth(zero);
    expect([h.meanReward, h.successRate, h.handoffRate, h.meanGroupStd]).toEqual([null, null, null, null]);
  });

  it("computes rates and spreads from the counters (hand-computed: rewards 1, 0.5, 0)", () => {
    const s: StepRollupCounters = {
      ...zero,
      step: 7,
      rollouts: 4,
      rewarded: 3,
      rewardSum: 1.5,
      rewardSumsq: 1.25,
      success: 1,
      handoffs: 1,
      guardrailHits: 2,
      capped: 1,
      removedSum: 0.3,
      specErrors: 1,
      groups: 2,
      flatGroups: 1,
      groupStdSum: 0.5,
      guardrails: { empty_promise: { hits: 2, deciding: 1, removedSum: 0.3 } },
    };
    const h = stepHealth(s);
    expect(h.meanReward).toBeCloseTo(0.5, 12);
    expect(h.rewardStd).toBeCloseTo(Math.sqrt(1.25 / 3 - 0.25), 12);
    expect(h).toMatchObject({
      step: 7,
      successRate: 1 / 3,
      handoffRate: 0.25,
      guardrailHitRate: 0.5,
      meanGroupStd: 0.25,
      flatGroupRate: 0.5,
    });
    expect(h.guardrailRates).toEqual({ empty_promise: 0.5 });
  });

  it("never reports a negative variance from rounding", () => {
    expect(rewardStd({ rewardSum: 0.9, rewardSumsq: 0.27 - 1e-12, rewarded: 3 })).toBe(0);
  });
});
