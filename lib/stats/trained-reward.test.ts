import { describe, expect, it } from "vitest";
import { trainedRewardGap, trainedRewardMismatch } from "@/lib/stats/trained-reward.ts";

describe("trainedRewardGap", () => {
  it("gives trained − reward and whether it is beyond 1e-6", () => {
    expect(trainedRewardGap(0.75, 0.5)).toEqual({ difference: 0.25, differs: true });
    expect(trainedRewardGap(0.2, 0.5)?.differs).toBe(true);
    expect(trainedRewardGap(0.5000009, 0.5)?.differs).toBe(false);
    expect(trainedRewardGap(0.500002, 0.5)?.differs).toBe(true);
    expect(trainedRewardGap(1, 1)).toEqual({ difference: 0, differs: false });
  });

  it("is null when either reward is missing", () => {
    expect(trainedRewardGap(null, 0.5)).toBeNull();
    expect(trainedRewardGap(0.5, null)).toBeNull();
    expect(trainedRewardGap(NaN, 0.5)).toBeNull();
  });
});

describe("trainedRewardMismatch", () => {
  it("pools a window's steps: every entry weighs the same", () => {
    // step a: 1 of 2 differ (|d| 0.5); step b: 1 of 8 differ (|d| 0.1)
    const m = trainedRewardMismatch([
      { trained: 2, trainedDiffers: 1, trainedAbsDiffSum: 0.5 },
      { trained: 8, trainedDiffers: 1, trainedAbsDiffSum: 0.1 },
    ]);
    expect(m).toEqual({ n: 10, differing: 2, share: 0.2, meanAbsDiff: expect.closeTo(0.06, 12) });
  });

  it("is null for a window without a trained reward, and zero share when every one agrees", () => {
    expect(trainedRewardMismatch([])).toBeNull();
    expect(trainedRewardMismatch([{ trained: 0, trainedDiffers: 0, trainedAbsDiffSum: 0 }])).toBeNull();
    expect(trainedRewardMismatch([{ trained: 5, trainedDiffers: 0, trainedAbsDiffSum: 0 }])).toEqual({
      n: 5,
      differing: 0,
      share: 0,
      meanAbsDiff: 0,
    });
  });
});
