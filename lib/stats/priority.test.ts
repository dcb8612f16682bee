import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { priorityScore, rankClusters } from "@/lib/stats/priority.ts";

describe("priorityScore", () => {
  it("by hand: share × gap × (1 + growth)", () => {
    // gap = 0.9 − 0.3 = 0.6; growth = 2e-5 · 1000 / 0.1 = 0.2; score = 0.1 · 0.6 · 1.2 = 0.072
    const p = priorityScore({ share: 0.1, meanReward: 0.3, slope: 2e-5 })!;
    expect(p.gap).toBeCloseTo(0.6, 12);
    expect(p.growth).toBeCloseTo(0.2, 12);
    expect(p.score).toBeCloseTo(0.072, 12);
    // Equivalently gap × (share + slope · horizon) = 0.6 × (0.1 + 0.02)
    expect(p.score).toBeCloseTo(0.6 * (0.1 + 0.02), 12);
  });

  it("does not discount shrinking clusters, and treats an unknown slope as no growth", () => {
    expect(priorityScore({ share: 0.1, meanReward: 0.3, slope: -1e-4 })).toMatchObject({ growth: 0 });
    expect(priorityScore({ share: 0.1, meanReward: 0.3, slope: null })!.score).toBeCloseTo(0.06, 12);
  });

  it("is 0 for a cluster at or above the threshold and for an empty cluster", () => {
    expect(priorityScore({ share: 0.4, meanReward: 0.95, slope: 1e-3 })).toEqual({
      score: 0,
      gap: 0,
      growth: expect.any(Number),
    });
    expect(priorityScore({ share: 0, meanReward: 0.1, slope: 1e-3 })).toEqual({ score: 0, gap: 0.8, growth: 0 });
  });

  it("takes the threshold and horizon", () => {
    expect(
      priorityScore({ share: 0.5, meanReward: 0.3, slope: 1e-4 }, { threshold: 0.5, horizon: 5000 })!.score,
    ).toBeCloseTo(0.5 * 0.2 * 2, 12);
  });

  it("is null for a missing mean reward or an impossible share", () => {
    expect(priorityScore({ share: 0.1, meanReward: null, slope: 0 })).toBeNull();
    expect(priorityScore({ share: 1.5, meanReward: 0.2, slope: 0 })).toBeNull();
    expect(priorityScore({ share: NaN, meanReward: 0.2, slope: 0 })).toBeNull();
  });

  it("property: non-negative, monotone in share and gap", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 0.5, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: -1e-3, max: 1e-3, noNaN: true }),
        (share, reward, slope) => {
          const p = priorityScore({ share, meanReward: reward, slope })!;
          expect(p.score).toBeGreaterThanOrEqual(0);
          expect(priorityScore({ share: share * 2, meanReward: reward, slope })!.score).toBeGreaterThanOrEqual(
            p.score - 1e-12,
          );
          expect(priorityScore({ share, meanReward: reward - 0.1, slope })!.score).toBeGreaterThanOrEqual(
            p.score - 1e-12,
          );
        },
      ),
    );
  });
});

describe("rankClusters", () => {
  it("orders by priority: a growing hand-off cluster overtakes a bigger static one", () => {
    const clusters = [
      { id: "missing_evidence", share: 0.2, meanReward: 0.55, slope: 0 }, // 0.2 · 0.35 = 0.070
      { id: "no write + hand-off", share: 0.1, meanReward: 0.58, slope: 8e-5 }, // 0.1 · 0.32 · (1 + 0.8) = 0.0576
      { id: "empty_promise", share: 0.15, meanReward: 0.35, slope: 0 }, // 0.15 · 0.55 = 0.0825
      { id: "customer_harm", share: 0.05, meanReward: 0.25, slope: -1e-5 }, // 0.05 · 0.65 = 0.0325
      { id: "unknown", share: 0.3, meanReward: null, slope: 0 },
      { id: "passing", share: 0.5, meanReward: 0.95, slope: 0 }, // 0
    ];
    const ranked = rankClusters(clusters);
    expect(ranked.map((c) => c.id)).toEqual([
      "empty_promise",
      "missing_evidence",
      "no write + hand-off",
      "customer_harm",
      "passing",
      "unknown",
    ]);
    expect(ranked[2].priority!.score).toBeCloseTo(0.32 * 0.18, 12);
    // Doubling the hand-off growth puts it first: 0.32 · (0.1 + 0.16) = 0.0832 > 0.0825
    const growing = rankClusters(clusters.map((c) => (c.id === "no write + hand-off" ? { ...c, slope: 1.6e-4 } : c)));
    expect(growing[0].id).toBe("no write + hand-off");
  });

  it("breaks ties by share, then input order", () => {
    const ranked = rankClusters([
      { id: "a", share: 0.1, meanReward: 0.5, slope: null }, // 0.04
      { id: "b", share: 0.2, meanReward: 0.7, slope: null }, // 0.04
      { id: "c", share: 0.1, meanReward: 0.5, slope: null }, // 0.04
    ]);
    expect(ranked.map((c) => c.id)).toEqual(["b", "a", "c"]);
  });
});
