import { describe, expect, it } from "vitest";
import { PROBE_LINES, probedReply } from "@/lib/rewards/probes.ts";
import { rerunSummary, SHIFT_TOLERANCE } from "@/lib/leaderboard/stability.ts";
import { wilson } from "@/lib/stats/intervals.ts";

describe("rerunSummary", () => {
  it("gives the mean shift, the verdict flips and the mean absolute difference, counting incomplete pairs", () => {
    const s = rerunSummary([
      { first: 0.95, second: 0.5 },
      { first: 0.5, second: 0.95 },
      { first: 0.2, second: 0.3 },
      { first: 0.9, second: 0.9 },
      { first: null, second: 0.4 },
    ]);
    expect(s.n).toBe(4);
    expect(s.incomplete).toBe(1);
    expect(s.meanShift.value).toBeCloseTo(0.1 / 4, 12);
    expect([s.flips.k, s.flips.n]).toEqual([2, 4]);
    expect([s.agreement.k, s.agreement.n]).toEqual([2, 4]);
    expect(s.mae.value).toBeCloseTo((0.45 + 0.45 + 0.1) / 4, 12);
    expect(s.moved).toBe(true);
    expect(s.flips.label).toBe("too few to say");
  });

  it("does not call a small consistent shift without flips a move, but a large one", () => {
    const small = Array.from({ length: 40 }, (_, i) => ({ first: 0.3 + (i % 5) / 100, second: 0.33 + (i % 5) / 100 }));
    const large = small.map((p) => ({ ...p, second: p.first + 0.2 }));
    expect(rerunSummary(small).moved).toBe(false);
    expect(rerunSummary(small).meanShift.value).toBeLessThan(SHIFT_TOLERANCE);
    const l = rerunSummary(large);
    expect(l.flips.k).toBe(0);
    expect(l.meanShift.interval!.lower).toBeGreaterThan(SHIFT_TOLERANCE);
    expect(l.moved).toBe(true);
  });

  it("counts a probe's lines of one rollout together: lines that move alike widen the overall intervals", () => {
    // 10 rollouts × 8 lines; the even rollouts' lines all move 0.5 → 0.95 (a flip), the odd ones' 0.5 → 0.5
    const pairs = Array.from({ length: 80 }, (_, i) => {
      const moves = (i >> 3) % 2 === 0;
      return { first: 0.5, second: moves ? 0.95 : 0.5, rollout: `r${i >> 3}` };
    });
    const clustered = rerunSummary(pairs);
    const independent = rerunSummary(pairs.map(({ first, second }) => ({ first, second })));
    expect([clustered.n, clustered.rollouts, independent.rollouts]).toEqual([80, 10, 80]);
    expect(clustered.meanShift.value).toBeCloseTo(independent.meanShift.value!, 14);
    expect([clustered.flips.k, clustered.flips.n]).toEqual([40, 80]);
    // the figures of the ten rollouts: shifts 0.45 five times and 0, on 9 df; 5 of 10 flipped
    const se = Math.sqrt((10 * 0.225 ** 2) / 9) / Math.sqrt(10);
    expect(clustered.meanShift.interval!.lower).toBeCloseTo(0.225 - 2.262157162798205 * se, 10);
    const w = wilson(5, 10)!;
    expect(clustered.flips.interval!.lower).toBeCloseTo(w.lower, 10);
    expect(clustered.flips.interval!.upper).toBeCloseTo(w.upper, 10);
    expect(clustered.flips.detail).toContain("over 10 rollouts");
    const width = (f: { interval: { lower: number; upper: number } | null }) => f.interval!.upper - f.interval!.lower;
    for (const key of ["meanShift", "flips", "agreement", "mae"] as const)
      expect(width(clustered[key])).toBeGreaterThan(2 * width(independent[key]));
  });

  it("flips at the given threshold", () => {
    const pairs = [{ first: 0.75, second: 0.85 }];
    expect(rerunSummary(pairs, 0.8).flips.k).toBe(1);
    expect(rerunSummary(pairs, 0.9).flips.k).toBe(0);
    expect(rerunSummary([]).meanShift.value).toBeNull();
  });
});

describe("the probe lines", () => {
  it("come in English and Chinese for each kind, with unique ids", () => {
    expect(new Set(PROBE_LINES.map((l) => l.id)).size).toBe(PROBE_LINES.length);
    for (const kind of ["instruction", "fake_system", "false_claim"] as const)
      for (const language of ["en", "zh"] as const)
        expect(PROBE_LINES.some((l) => l.kind === kind && l.language === language)).toBe(true);
    expect(PROBE_LINES.find((l) => l.id === "instruction-en")!.text).toMatch(/ignore the rubric/i);
  });

  it("are appended as the reply's last paragraph", () => {
    expect(probedReply("Done.", PROBE_LINES[0])).toBe(`Done.\n\n${PROBE_LINES[0].text}`);
    expect(probedReply("", PROBE_LINES[1])).toBe(PROBE_LINES[1].text);
  });
});
