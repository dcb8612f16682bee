import { describe, expect, it } from "vitest";
import { binSteps, trendOf } from "@/lib/clusters/bins.ts";

describe("binSteps", () => {
  it("gives one bin per step when there are few steps, dropping steps without rollouts", () => {
    const { bins, edges } = binSteps([
      { step: 0, rollouts: 4 },
      { step: 10, rollouts: 0 },
      { step: 20, rollouts: 6 },
    ]);
    expect(edges).toEqual([0, 20]);
    expect(bins).toEqual([
      { from: 0, to: 0, step: 0, rollouts: 4 },
      { from: 20, to: 20, step: 20, rollouts: 6 },
    ]);
  });

  it("groups many steps into at most maxBins bins of about equal step counts, x = rollout-weighted mean step", () => {
    const steps = Array.from({ length: 10 }, (_, i) => ({ step: i * 100, rollouts: i + 1 }));
    const { bins, edges } = binSteps(steps, 3);
    expect(edges).toEqual([0, 300, 600]);
    expect(bins.map((b) => [b.from, b.to, b.rollouts])).toEqual([
      [0, 200, 6],
      [300, 500, 15],
      [600, 900, 34],
    ]);
    expect(bins[0].step).toBeCloseTo((0 * 1 + 100 * 2 + 200 * 3) / 6, 9);
  });

  it("is empty for an empty window", () => {
    expect(binSteps([])).toEqual({ bins: [], edges: [] });
  });
});

describe("trendOf", () => {
  const bins = [0, 1000, 2000].map((step) => ({ from: step, to: step, step, rollouts: 100 }));

  it("shares per bin, a slope in share per step, early against late thirds", () => {
    const t = trendOf(bins, [10, 20, 30]);
    expect(t.shares).toEqual([0.1, 0.2, 0.3]);
    expect(t.slope).toBeCloseTo(1e-4, 12);
    expect(t.early).toBeCloseTo(0.1, 12);
    expect(t.late).toBeCloseTo(0.3, 12);
  });

  it("has no slope or thirds when there is too little to fit", () => {
    expect(trendOf(bins.slice(0, 1), [5])).toEqual({ shares: [0.05], slope: null, early: null, late: null });
    expect(trendOf([], [])).toEqual({ shares: [], slope: null, early: null, late: null });
  });
});
