import { describe, expect, it } from "vitest";
import { detection } from "@/lib/stats/sensitivity.ts";

const pair = (human: boolean, scorer: boolean) => ({ human, scorer });

describe("detection", () => {
  it("reads failure as the positive class: sensitivity over the human's failures, specificity over its passes", () => {
    const d = detection([
      ...Array.from({ length: 8 }, () => pair(false, false)),
      ...Array.from({ length: 2 }, () => pair(false, true)),
      ...Array.from({ length: 27 }, () => pair(true, true)),
      ...Array.from({ length: 3 }, () => pair(true, false)),
    ]);
    expect([d.caught, d.missed, d.passed, d.falseAlarms]).toEqual([8, 2, 27, 3]);
    expect(d.sensitivity!.estimate).toBe(0.8);
    // Wilson 95% for 8 of 10
    expect(d.sensitivity!.lower).toBeCloseTo(0.4902, 3);
    expect(d.sensitivity!.upper).toBeCloseTo(0.9433, 3);
    expect(d.specificity!.estimate).toBeCloseTo(0.9, 15);
  });

  it("is null for a class no item is in", () => {
    const d = detection([pair(true, true), pair(true, false)]);
    expect(d.sensitivity).toBeNull();
    expect(d.specificity!.estimate).toBe(0.5);
    expect(detection([]).specificity).toBeNull();
  });
});
