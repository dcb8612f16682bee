import { describe, expect, it } from "vitest";
import { groupKeyOf, pairStratum, samplePairs, type PairPopulationRow } from "@/lib/audit/pair-sampler.ts";
import { shuffled } from "@/lib/testing/shuffled.ts";

/** K rollouts per group, one group per ticket and step; reward and guardrail chosen per rollout. */
function population(
  groups: number,
  k: number,
  reward: (g: number, i: number) => number,
  guardrail: (g: number, i: number) => string | null = () => null,
): PairPopulationRow[] {
  const rows: PairPopulationRow[] = [];
  for (let g = 0; g < groups; g++)
    for (let i = 0; i < k; i++)
      rows.push({
        ticketId: `T-${g % 50}`,
        trajectoryId: `run/s${g}/T-${g % 50}/k${i}`,
        step: g,
        groupId: `g${g}`,
        reward: reward(g, i),
        decidingGuardrail: guardrail(g, i),
      });
  return rows;
}

const base = { rate: 0.1, salt: "pairs-1", delta: 0.1, nearTieRate: 0.2, overlapRate: 0.1 };
const summary = (r: ReturnType<typeof samplePairs>) =>
  r.pairs.map((p) => [p.a.trajectoryId, p.b.trajectoryId, p.stratum, p.inclusionProb, p.bOnLeft, p.reviewsNeeded]);

describe("samplePairs", () => {
  it("is identical across arrival orders, and pairs two rollouts of one group, A the lower trajectory id", () => {
    const rows = population(
      2_000,
      4,
      (g, i) => ((g * 7 + i * 13) % 10) / 10,
      (g, i) => (i === 3 && g % 9 === 0 ? "empty_promise" : null),
    );
    const params = { ...base, minPerStratum: 30 };
    const first = samplePairs(rows, params);
    expect(first.pairs.length).toBeGreaterThan(150);
    for (const seed of [1, 2]) {
      const again = samplePairs(shuffled(rows, seed), params);
      expect(summary(again)).toEqual(summary(first));
      expect(again.strata).toEqual(first.strata);
      expect(again.itemsHash).toBe(first.itemsHash);
    }
    for (const p of first.pairs) {
      expect(groupKeyOf(p.a)).toBe(groupKeyOf(p.b));
      expect(p.a.trajectoryId < p.b.trajectoryId).toBe(true);
    }
    // Another salt draws other groups.
    expect(samplePairs(rows, { ...params, salt: "pairs-2" }).itemsHash).not.toBe(first.itemsHash);
  }, 60_000);

  it("takes clear pairs (|Δ| > δ) except for the near-tie share of groups", () => {
    // Every group has both classes: rewards 0.9, 0.9, 0.2, 0.2 -> 4 clear pairs, 2 near-ties.
    const rows = population(4_000, 4, (_g, i) => (i < 2 ? 0.9 : 0.2));
    const r = samplePairs(rows, { ...base, rate: 1 });
    expect(r.pairs).toHaveLength(4_000);
    for (const p of r.pairs) expect(Math.abs(p.a.reward - p.b.reward) > 0.1).toBe(!p.nearTie);
    const share = r.nearTies / r.pairs.length;
    expect(Math.abs(share - 0.2)).toBeLessThan(4 * Math.sqrt((0.2 * 0.8) / 4_000));
    // P(pair | group): 0.8 / 4 for a clear pair, 0.2 / 2 for a near-tie.
    for (const p of r.pairs) expect(p.inclusionProb).toBeCloseTo(p.nearTie ? 0.1 : 0.2, 12);
    // A group with only near-ties offers one whatever its draw; one with a single rollout offers nothing.
    const flat = samplePairs(
      population(100, 3, () => 0.5),
      { ...base, rate: 1 },
    );
    expect(flat.pairs.every((p) => p.nearTie && Math.abs(p.inclusionProb - 1 / 3) < 1e-12)).toBe(true);
    expect(
      samplePairs(
        population(100, 1, () => 0.5),
        { ...base, rate: 1 },
      ).pairs,
    ).toEqual([]);
  });

  it("records each pair's probability: the frequency of a pair over many salts matches it", () => {
    // One group, rewards 1, 0.8, 0.5, 0.45: clear pairs (1,.8) (1,.5) (1,.45) (.8,.5) (.8,.45); near (.5,.45).
    const rows = population(1, 4, (_g, i) => [1, 0.8, 0.5, 0.45][i]);
    const counts = new Map<string, number>();
    const probs = new Map<string, number>();
    const n = 6_000;
    for (let s = 0; s < n; s++) {
      const [p] = samplePairs(rows, { ...base, rate: 1, salt: `s${s}` }).pairs;
      const key = `${p.a.trajectoryId}|${p.b.trajectoryId}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
      probs.set(key, p.inclusionProb);
    }
    expect(counts.size).toBe(6);
    expect([...probs.values()].reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    for (const [key, c] of counts) {
      const pi = probs.get(key)!;
      expect(pi).toBeCloseTo(key.endsWith("k3") && key.includes("k2|") ? 0.2 : 0.8 / 5, 12);
      expect(Math.abs(c / n - pi)).toBeLessThan(4 * Math.sqrt((pi * (1 - pi)) / n));
    }
  }, 60_000);

  it("tops up rare strata and weights them so 1/π sums to each stratum's groups", () => {
    // 3,000 groups; in 40 of them one rollout ended on a hand-off (deciding guardrail) with the lowest reward.
    const rows = population(
      3_000,
      4,
      (g, i) => (g < 40 && i === 0 ? 0 : 0.3 + 0.2 * i),
      (g, i) => (g < 40 && i === 0 ? "empty_promise" : null),
    );
    const r = samplePairs(rows, { ...base, rate: 0.01, minPerStratum: 20, nearTieRate: 0 });
    const byStratum = new Map<string, { n: number; w: number }>();
    for (const p of r.pairs) {
      const t = byStratum.get(p.stratum) ?? { n: 0, w: 0 };
      t.n++;
      t.w += 1 / p.groupInclusionProb;
      byStratum.set(p.stratum, t);
    }
    for (const s of r.strata) {
      const got = byStratum.get(s.stratum) ?? { n: 0, w: 0 };
      expect(got.n).toBe(s.sampledTickets);
      if (s.toppedUp) {
        expect(s.sampledTickets).toBe(Math.min(20, s.tickets));
        expect(got.w).toBeCloseTo(s.tickets, 9);
      } else expect(s.ticketInclusionProb).toBe(0.01);
    }
    const rare = r.strata.filter((s) => s.stratum.startsWith("empty_promise+"));
    expect(rare.reduce((a, s) => a + s.tickets, 0)).toBeLessThanOrEqual(40);
    expect(rare.every((s) => s.toppedUp && s.sampledTickets === Math.min(20, s.tickets))).toBe(true);
    expect(r.strata.map((s) => s.stratum).at(-1)).toBe("none+none");
  });

  it("shows B on the left for about half the pairs", () => {
    const r = samplePairs(
      population(4_000, 2, (_g, i) => i),
      { ...base, rate: 1 },
    );
    const left = r.pairs.filter((p) => p.bOnLeft).length / r.pairs.length;
    expect(Math.abs(left - 0.5)).toBeLessThan(4 * Math.sqrt(0.25 / 4_000));
  });
});

describe("pairStratum", () => {
  it("puts the more severe guardrail first and names no guardrail 'none'", () => {
    expect(pairStratum(null, "empty_promise")).toBe("empty_promise+none");
    expect(pairStratum("empty_promise", null)).toBe("empty_promise+none");
    expect(pairStratum(null, null)).toBe("none+none");
  });
});
