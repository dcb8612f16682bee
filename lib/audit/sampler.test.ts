import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { uniformHash } from "@/lib/audit/hash.ts";
import { expectedToppedUp, NO_GUARDRAIL, sampleBatch, type PopulationRow } from "@/lib/audit/sampler.ts";
import { shuffled } from "@/lib/testing/shuffled.ts";

function population(
  tickets: number,
  perTicket = 1,
  guardrail: (i: number) => string | null = () => null,
): PopulationRow[] {
  const rows: PopulationRow[] = [];
  for (let i = 0; i < tickets; i++) {
    for (let k = 0; k < perTicket; k++)
      rows.push({ ticketId: `T-${i}`, trajectoryId: `run/s1/g${i}/k${k}`, decidingGuardrail: guardrail(i) });
  }
  return rows;
}

const ids = (r: { items: { row: PopulationRow }[] }) => r.items.map((i) => i.row.trajectoryId);

describe("uniformHash", () => {
  it("is in [0, 1), deterministic, and separates salts and domains", () => {
    const u = uniformHash("s", "ticket", "T-1");
    expect(u).toBeGreaterThanOrEqual(0);
    expect(u).toBeLessThan(1);
    expect(uniformHash("s", "ticket", "T-1")).toBe(u);
    expect(uniformHash("t", "ticket", "T-1")).not.toBe(u);
    expect(uniformHash("s", "rollout", "T-1")).not.toBe(u);
    // 52 bits: an exact multiple of 2^-52
    expect(Number.isInteger(u * 2 ** 52)).toBe(true);
  });
});

describe("sampleBatch", () => {
  it("samples 1% of 100k tickets within 4 binomial standard deviations", () => {
    const rows = population(100_000);
    for (const salt of ["a", "b", "c"]) {
      const r = sampleBatch(rows, { rate: 0.01, salt, pick: "one", overlapRate: 0 });
      const n = 100_000;
      const sd = Math.sqrt(n * 0.01 * 0.99);
      expect(Math.abs(r.items.length - n * 0.01)).toBeLessThan(4 * sd);
      expect(r.expected.tickets).toBeCloseTo(1000, 6);
      expect(r.population).toEqual({ tickets: n, rollouts: n });
    }
  }, 60_000);

  it("is identical across runs and arrival orders, and a ticket stays sampled as more rollouts arrive", () => {
    const rows = population(5_000, 4, (i) =>
      i % 7 === 0 ? "empty_promise" : i % 11 === 0 ? "missing_evidence" : null,
    );
    const params = { rate: 0.05, salt: "batch-7", pick: "one" as const, minPerStratum: 40, overlapRate: 0.1 };
    const first = sampleBatch(rows, params);
    for (const seed of [1, 2, 3]) {
      const again = sampleBatch(shuffled(rows, seed), params);
      expect(ids(again)).toEqual(ids(first));
      expect(again.items.map((i) => [i.inclusionProb, i.reviewsNeeded, i.stratum])).toEqual(
        first.items.map((i) => [i.inclusionProb, i.reviewsNeeded, i.stratum]),
      );
      expect(again.itemsHash).toBe(first.itemsHash);
      expect(again.strata).toEqual(first.strata);
    }
    // Unstratified: more rollouts of the same tickets, and new tickets, never drop a sampled ticket.
    const plain = { ...params, minPerStratum: null };
    const before = new Set(sampleBatch(rows, plain).items.map((i) => i.row.ticketId));
    const more = [
      ...rows,
      ...population(6_000, 5).filter((r) => r.trajectoryId.endsWith("/k4") || Number(r.ticketId.slice(2)) >= 5_000),
    ];
    const after = new Set(sampleBatch(more, plain).items.map((i) => i.row.ticketId));
    for (const t of before) expect(after.has(t)).toBe(true);
  }, 60_000);

  it("picks one rollout per ticket by hash, or all of them", () => {
    const rows = population(2_000, 4);
    const one = sampleBatch(rows, { rate: 0.1, salt: "x", pick: "one", overlapRate: 0 });
    const all = sampleBatch(rows, { rate: 0.1, salt: "x", pick: "all", overlapRate: 0 });
    const tickets = new Set(one.items.map((i) => i.row.ticketId));
    expect(tickets.size).toBe(one.items.length);
    expect(all.items.length).toBe(tickets.size * 4);
    expect(new Set(all.items.map((i) => i.row.ticketId))).toEqual(tickets);
    for (const item of one.items) {
      const siblings = rows
        .filter((r) => r.ticketId === item.row.ticketId)
        .map((r) => uniformHash("x", "rollout", r.trajectoryId));
      expect(uniformHash("x", "rollout", item.row.trajectoryId)).toBe(Math.min(...siblings));
      expect(item.inclusionProb).toBeCloseTo(0.1 / 4, 12);
    }
    for (const item of all.items) expect(item.inclusionProb).toBe(0.1);
    expect(all.expected.items).toBeCloseTo(all.expected.tickets * 4, 9);
  });

  it("tops up thin strata with the next-lowest hashes and records hand-computed inclusion probabilities", () => {
    // 1000 tickets without a guardrail, 20 capped by empty_promise, 3 by customer_harm; 2 rollouts each.
    const g = (i: number) => (i < 20 ? "empty_promise" : i < 23 ? "customer_harm" : null);
    const rows = population(1_023, 2, g);
    const r = sampleBatch(rows, { rate: 0.1, salt: "strata", pick: "one", minPerStratum: 8, overlapRate: 0 });
    const by = Object.fromEntries(r.strata.map((s) => [s.stratum, s]));

    // The "none" stratum: ~100 of 1000 under the rate, far above 8 — Bernoulli sampling, π = rate.
    const none = by[NO_GUARDRAIL];
    expect(none.tickets).toBe(1000);
    expect(none.baseTickets).toBeGreaterThan(8);
    expect(none.toppedUp).toBe(false);
    expect(none.ticketInclusionProb).toBe(0.1);
    const noneTickets = rows.filter((x) => !g(Number(x.ticketId.slice(2)))).map((x) => x.ticketId);
    const expectedNone = new Set(noneTickets.filter((t) => uniformHash("strata", "ticket", t) < 0.1));
    expect(new Set(r.items.filter((i) => i.stratum === NO_GUARDRAIL).map((i) => i.row.ticketId))).toEqual(expectedNone);

    // empty_promise: 20 tickets, expected 2 under the rate, topped up to 8 — the 8 lowest hashes, π = 8/20.
    const ep = by.empty_promise;
    expect(ep.toppedUp).toBe(true);
    expect(ep.sampledTickets).toBe(8);
    expect(ep.ticketInclusionProb).toBe(0.4);
    const lowest8 = Array.from({ length: 20 }, (_, i) => `T-${i}`)
      .sort((a, b) => uniformHash("strata", "ticket", a) - uniformHash("strata", "ticket", b))
      .slice(0, 8);
    const epItems = r.items.filter((i) => i.stratum === "empty_promise");
    expect(new Set(epItems.map((i) => i.row.ticketId))).toEqual(new Set(lowest8));
    // a rollout: π_ticket / 2 rollouts
    for (const i of epItems) expect(i.inclusionProb).toBeCloseTo(0.2, 12);

    // customer_harm: 3 tickets < 8, all taken, π = 1 (and 1/2 per rollout).
    expect(by.customer_harm).toMatchObject({ tickets: 3, sampledTickets: 3, toppedUp: true, ticketInclusionProb: 1 });
    expect(r.items.filter((i) => i.stratum === "customer_harm").map((i) => i.inclusionProb)).toEqual([0.5, 0.5, 0.5]);

    // Horvitz–Thompson: Σ 1/π over the items estimates the rollout population exactly in the all-taken stratum.
    const ht = r.items.filter((i) => i.stratum === "customer_harm").reduce((s, i) => s + 1 / i.inclusionProb, 0);
    expect(ht).toBe(6);
  });

  it("for pick=all, stratifies a ticket by its most severe deciding guardrail", () => {
    const rows: PopulationRow[] = [
      { ticketId: "A", trajectoryId: "a1", decidingGuardrail: "missing_evidence" },
      { ticketId: "A", trajectoryId: "a2", decidingGuardrail: "customer_harm" },
      { ticketId: "A", trajectoryId: "a3", decidingGuardrail: null },
    ];
    const r = sampleBatch(rows, { rate: 1, salt: "s", pick: "all", overlapRate: 0 });
    expect(r.items.map((i) => i.stratum)).toEqual(["customer_harm", "customer_harm", "customer_harm"]);
  });

  it("marks about the overlap rate of items for two reviews, deterministically", () => {
    const r = sampleBatch(population(20_000), { rate: 1, salt: "o", pick: "one", overlapRate: 0.1 });
    expect(r.overlapItems).toBe(r.items.filter((i) => i.reviewsNeeded === 2).length);
    expect(Math.abs(r.overlapItems - 2_000)).toBeLessThan(4 * Math.sqrt(20_000 * 0.1 * 0.9));
    expect(sampleBatch(population(20_000), { rate: 1, salt: "o", pick: "one", overlapRate: 0 }).overlapItems).toBe(0);
  }, 60_000);

  it("handles an empty population, rate 0 and rate 1", () => {
    const empty = sampleBatch([], { rate: 0.01, salt: "s", pick: "one", minPerStratum: 5, overlapRate: 0.1 });
    expect(empty).toMatchObject({
      items: [],
      strata: [],
      population: { tickets: 0, rollouts: 0 },
      expected: { tickets: 0, items: 0 },
    });
    const rows = population(50);
    expect(sampleBatch(rows, { rate: 0, salt: "s", pick: "one", overlapRate: 0 }).items).toHaveLength(0);
    expect(sampleBatch(rows, { rate: 1, salt: "s", pick: "one", overlapRate: 0 }).items).toHaveLength(50);
    expect(() => sampleBatch(rows, { rate: 1.5, salt: "s", pick: "one", overlapRate: 0 })).toThrow(RangeError);
    expect(() => sampleBatch(rows, { rate: Number.NaN, salt: "s", pick: "one", overlapRate: 0 })).toThrow(RangeError);
  });

  it("inclusion probabilities are in (0, 1], every stratum reaches its minimum, a ticket's rollouts share one stratum (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 300 }),
        fc.double({ min: 0.001, max: 1, noNaN: true }),
        fc.integer({ min: 0, max: 10 }),
        fc.string(),
        (n, rate, m, salt) => {
          const r = sampleBatch(
            population(n, 3, (i) => (i % 5 === 0 ? "policy_error" : null)),
            { rate, salt, pick: "all", minPerStratum: m, overlapRate: 0.5 },
          );
          for (const i of r.items) {
            expect(i.inclusionProb).toBeGreaterThan(0);
            expect(i.inclusionProb).toBeLessThanOrEqual(1);
          }
          for (const s of r.strata) expect(s.sampledTickets).toBeGreaterThanOrEqual(Math.min(m, s.tickets));
          const strata = new Map<string, Set<string>>();
          for (const i of r.items) strata.set(i.row.ticketId, (strata.get(i.row.ticketId) ?? new Set()).add(i.stratum));
          for (const set of strata.values()) expect(set.size).toBe(1);
        },
      ),
      { numRuns: 60 },
    );
  }, 60_000);
});

describe("expectedToppedUp", () => {
  it("is E[max(c, Binomial(n, p))], hand-computed for small n", () => {
    // n = 2, p = 0.5: X = 0, 1, 2 with 1/4, 1/2, 1/4; c = 1: E[max(1, X)] = 1/4 + 1/2 + 2/4 = 1.25
    expect(expectedToppedUp(2, 0.5, 1)).toBeCloseTo(1.25, 12);
    expect(expectedToppedUp(2, 0.5, 2)).toBeCloseTo(2, 12);
    expect(expectedToppedUp(1000, 0.01, 0)).toBeCloseTo(10, 9);
    expect(expectedToppedUp(10, 0, 3)).toBe(3);
    expect(expectedToppedUp(10, 1, 3)).toBe(10);
    // a large stratum: the top-up correction vanishes
    expect(expectedToppedUp(1_000_000, 0.01, 5)).toBeCloseTo(10_000, 6);
  });
});
