import { describe, expect, it } from "vitest";
import {
  clusteredMean,
  clusteredMeanInterval,
  clusteredProportion,
  clusteredStandardError,
} from "@/lib/stats/clustered.ts";
import { wilson } from "@/lib/stats/intervals.ts";
import { meanDifferenceInterval } from "@/lib/stats/paired.ts";

// Student's t 0.975 quantile on 9 df, from the published table.
const T975_9 = 2.262157162798205;

/** 10 clusters of 8: clusters 0, 2, 4, 6, 8 at `high`, the others at `low`, every observation of a cluster alike. */
const alike = (high: number, low: number) => {
  const values: number[] = [];
  const keys: string[] = [];
  for (let c = 0; c < 10; c++)
    for (let line = 0; line < 8; line++) {
      values.push(c % 2 === 0 ? high : low);
      keys.push(`r${c}`);
    }
  return { values, keys };
};

describe("clusteredMean and its interval", () => {
  it("are the independent mean's with one observation per cluster", () => {
    const xs = [0.5, 0.3, 0.05, 0.7, 0, 0.02, -0.02, 0];
    const m = clusteredMean(xs, Array(xs.length).fill(undefined))!;
    expect([m.n, m.clusters]).toEqual([8, 8]);
    const mine = clusteredMeanInterval(m)!;
    const plain = meanDifferenceInterval(xs)!;
    expect(mine.estimate).toBeCloseTo(plain.estimate, 14);
    expect(mine.lower).toBeCloseTo(plain.lower, 12);
    expect(mine.upper).toBeCloseTo(plain.upper, 12);
  });

  it("count a cluster whose observations move together once: the t interval of the clusters' means", () => {
    const { values, keys } = alike(0.3, 0);
    const m = clusteredMean(values, keys)!;
    expect([m.n, m.clusters]).toEqual([80, 10]);
    expect(m.mean).toBeCloseTo(0.15, 14);
    // the ten clusters' means: five 0.3 and five 0, sd sqrt(10 · 0.15² / 9), on 9 df
    const se = Math.sqrt((10 * 0.15 ** 2) / 9) / Math.sqrt(10);
    expect(clusteredStandardError(m)).toBeCloseTo(se, 12);
    const iv = clusteredMeanInterval(m)!;
    expect(iv.lower).toBeCloseTo(0.15 - T975_9 * se, 12);
    expect(iv.upper).toBeCloseTo(0.15 + T975_9 * se, 12);
    // taken as 80 independent observations, the interval would be about three times narrower
    const naive = meanDifferenceInterval(values)!;
    expect(iv.upper - iv.lower).toBeGreaterThan(2.5 * (naive.upper - naive.lower));
  });

  it("has no interval below two clusters, and refuses what it cannot use", () => {
    const one = clusteredMean([0.1, 0.5, 0.9], ["a", "a", "a"])!;
    expect([one.clusters, clusteredMeanInterval(one), clusteredStandardError(one)]).toEqual([1, null, null]);
    expect(clusteredMean([], [])).toBeNull();
    expect(() => clusteredMean([1], [])).toThrow(RangeError);
    expect(() => clusteredMean([NaN], ["a"])).toThrow(RangeError);
  });
});

describe("clusteredProportion", () => {
  it("is Wilson's k of n with one observation per cluster", () => {
    const hits = [true, false, false, true, false, false, false, true];
    const p = clusteredProportion(hits, Array(8).fill(undefined))!;
    expect([p.k, p.n, p.clusters]).toEqual([3, 8, 8]);
    expect(p.nEffective).toBeCloseTo(8, 12);
    const w = wilson(3, 8)!;
    expect(p.interval.lower).toBeCloseTo(w.lower, 12);
    expect(p.interval.upper).toBeCloseTo(w.upper, 12);
  });

  it("counts clusters that flip as a whole as one observation each", () => {
    const { keys } = alike(1, 0);
    const hits = alike(1, 0).values.map((v) => v === 1);
    const p = clusteredProportion(hits, keys)!;
    // deff = 8 (every cluster's eight alike): Wilson on 5 of 10, not 40 of 80
    expect([p.k, p.n, p.clusters]).toEqual([40, 80, 10]);
    expect(p.nEffective).toBeCloseTo(10, 12);
    const w = wilson(5, 10)!;
    expect(p.interval.lower).toBeCloseTo(w.lower, 12);
    expect(p.interval.upper).toBeCloseTo(w.upper, 12);
    const naive = wilson(40, 80)!;
    expect(p.interval.upper - p.interval.lower).toBeGreaterThan(2 * (naive.upper - naive.lower));
  });

  it("stays within [clusters, n], and takes the clusters when nothing or everything is a hit", () => {
    // within each cluster exactly one hit in two: no spread between clusters (deff 0), so n, never more
    const keys = Array.from({ length: 40 }, (_, i) => `r${i >> 1}`);
    const half = clusteredProportion(
      keys.map((_, i) => i % 2 === 0),
      keys,
    )!;
    expect(half.nEffective).toBe(40);
    const none = clusteredProportion(Array(40).fill(false), keys)!;
    expect([none.k, none.nEffective, none.interval.lower]).toEqual([0, 20, 0]);
    expect(none.interval.upper).toBeCloseTo(wilson(0, 20)!.upper, 14);
    expect(clusteredProportion([true, false], ["a", "a"])!.nEffective).toBe(1);
    expect(clusteredProportion([], [])).toBeNull();
  });
});

describe("clusteredStandardError", () => {
  it("is never below the independent standard error: clusters alike are no gain", () => {
    // three rollouts, each with lines 0.25 four times and 0 four times: every rollout's mean is 0.125
    const values = Array.from({ length: 24 }, (_, i) => (i % 8 < 4 ? 0.25 : 0));
    const keys = Array.from({ length: 24 }, (_, i) => `r${i >> 3}`);
    const m = clusteredMean(values, keys)!;
    expect(m.variance).toBeCloseTo(0, 15);
    const s = Math.sqrt((24 * 0.125 ** 2) / 23);
    expect(clusteredStandardError(m)).toBeCloseTo(s / Math.sqrt(24), 12);
    // on the rollouts' 2 degrees of freedom (t 4.302652729749464)
    const iv = clusteredMeanInterval(m)!;
    expect(iv.upper - 0.125).toBeCloseTo((4.302652729749464 * s) / Math.sqrt(24), 10);
  });
});
