// The shadow-audit sampler: which rollouts of a run's step window go to blind human review. Pure: the same
// population (in any order) and parameters give the same sample, byte for byte.
//
// The unit of sampling is the ticket. A ticket is in the base sample when u(salt, ticket) < rate, so the sample
// does not depend on arrival order and a ticket, once in, stays in as more of its rollouts arrive. Of a sampled
// ticket either every rollout in the window is reviewed ("all") or the one with the lowest u(salt, rollout)
// ("one"). Optional stratification by deciding guardrail tops up every stratum whose base sample is below a
// minimum with its next-lowest hashes, and records each item's inclusion probability for reweighting.
import { sha256Tag, uniformHash } from "@/lib/audit/hash.ts";
import { GUARDRAIL_CODES } from "@/lib/verifier/codes.ts";

export const PICKS = ["one", "all"] as const;
export type Pick = (typeof PICKS)[number];

/** One current ledger entry of the window: its ticket, its trajectory and its deciding guardrail (null = none). */
export type PopulationRow = { ticketId: string; trajectoryId: string; decidingGuardrail: string | null };

export type SampleParams = {
  rate: number;
  salt: string;
  pick: Pick;
  /** Minimum tickets per stratum (deciding guardrail); null or 0 = no top-up. */
  minPerStratum?: number | null;
  /** Fraction of items that need two independent reviews (inter-annotator agreement). */
  overlapRate: number;
};

/** Stratum of rows without a deciding guardrail. */
export const NO_GUARDRAIL = "none";

export type SampledItem<T> = {
  row: T;
  stratum: string;
  /** Probability that this rollout is in the sample (ticket probability, divided by the ticket's rollouts for "one"). */
  inclusionProb: number;
  ticketInclusionProb: number;
  reviewsNeeded: 1 | 2;
};

export type StratumSummary = {
  stratum: string;
  tickets: number;
  rollouts: number;
  /** Tickets whose hash fell under the rate. */
  baseTickets: number;
  sampledTickets: number;
  items: number;
  toppedUp: boolean;
  ticketInclusionProb: number;
  /** E[sampled tickets] before the draw: rate·N, plus the expected top-up. */
  expectedTickets: number;
};

export type SampleResult<T> = {
  items: SampledItem<T>[];
  strata: StratumSummary[];
  population: { tickets: number; rollouts: number };
  expected: { tickets: number; items: number };
  overlapItems: number;
  /** sha256 of the sorted trajectory ids of the items, one a line: proves which list a manifest describes. */
  itemsHash: string;
};

const SEVERITY = new Map<string, number>(GUARDRAIL_CODES.map((c, i) => [c, i]));
/** Rank of a deciding guardrail in verifier.md table order (most severe first); "none" last. */
export const severity = (s: string) =>
  s === NO_GUARDRAIL ? Number.MAX_SAFE_INTEGER : (SEVERITY.get(s) ?? GUARDRAIL_CODES.length);

type Ticket<T> = { id: string; u: number; rows: T[]; candidates: T[]; stratum: string };

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Strata by the severity of their first guardrail, then by name (a pair's stratum is "worst+other"). */
function compareStrata(a: string, b: string): number {
  return severity(a.split("+")[0]) - severity(b.split("+")[0]) || compareStrings(a, b);
}

/**
 * Groups rows into tickets and picks each ticket's candidate rollouts and stratum. For "one", the stratum is the
 * chosen rollout's deciding guardrail; for "all", the most severe one among its rollouts (verifier.md table order).
 */
function buildTickets<T extends PopulationRow>(rows: readonly T[], p: SampleParams): Ticket<T>[] {
  const byTicket = new Map<string, T[]>();
  for (const r of rows) {
    const list = byTicket.get(r.ticketId);
    if (list) list.push(r);
    else byTicket.set(r.ticketId, [r]);
  }
  const tickets: Ticket<T>[] = [];
  for (const [id, list] of byTicket) {
    list.sort((a, b) => compareStrings(a.trajectoryId, b.trajectoryId));
    let candidates: T[];
    if (p.pick === "one" && list.length > 1) {
      let best = list[0];
      let bestU = uniformHash(p.salt, "rollout", best.trajectoryId);
      for (const r of list.slice(1)) {
        const u = uniformHash(p.salt, "rollout", r.trajectoryId);
        if (u < bestU) [best, bestU] = [r, u];
      }
      candidates = [best];
    } else candidates = p.pick === "one" ? [list[0]] : list;
    const stratum = candidates
      .map((r) => r.decidingGuardrail ?? NO_GUARDRAIL)
      .reduce((worst, s) => (severity(s) < severity(worst) ? s : worst), NO_GUARDRAIL);
    tickets.push({ id, u: uniformHash(p.salt, "ticket", id), rows: list, candidates, stratum });
  }
  // By hash, then id: the queue order is random but reproducible, and ties (astronomically rare) are still ordered.
  return tickets.sort((a, b) => a.u - b.u || compareStrings(a.id, b.id));
}

/**
 * E[max(c, X)] for X ~ Binomial(n, p) and c <= n: E[X] + Σ_{x<c} (c − x)·P(X = x). The pmf is built up from
 * P(0) = (1 − p)^n; when that underflows the correction is below double precision anyway.
 */
export function expectedToppedUp(n: number, p: number, c: number): number {
  if (p >= 1) return n;
  if (c <= 0 || p <= 0) return Math.max(n * Math.max(p, 0), c);
  let pmf = Math.pow(1 - p, n);
  let extra = 0;
  for (let x = 0; x < c; x++) {
    extra += (c - x) * pmf;
    pmf *= ((n - x) / (x + 1)) * (p / (1 - p));
  }
  return n * p + extra;
}

/** A sampling unit (a ticket, or a GRPO group for pairwise batches): its hash draw and its stratum. */
export type StratumUnit = { id: string; u: number; stratum: string };

export type StratumDraw<U> = {
  stratum: string;
  /** The stratum's units in hash order. */
  units: U[];
  /** Units whose hash fell under the rate. */
  base: number;
  /** The units drawn: the base sample, or the `min(m, N)` lowest hashes when that is more. */
  taken: U[];
  toppedUp: boolean;
  /** Inclusion probability of each unit of the stratum: `rate`, or `min(m, N) / N` when topped up. */
  prob: number;
  /** E[drawn units] before the draw. */
  expected: number;
};

/**
 * The stratified draw shared by the ticket and the pairwise samplers. `units` must be in hash order (then id), so
 * each stratum's base sample is a prefix and its top-up continues it. Strata come out in guardrail severity order.
 */
export function drawStrata<U extends StratumUnit>(units: readonly U[], rate: number, m: number): StratumDraw<U>[] {
  const strata = new Map<string, U[]>();
  for (const t of units) {
    const list = strata.get(t.stratum);
    if (list) list.push(t);
    else strata.set(t.stratum, [t]);
  }
  return [...strata]
    .sort((a, b) => compareStrata(a[0], b[0]))
    .map(([stratum, list]) => {
      const base = list.filter((t) => t.u < rate).length;
      const target = Math.min(m, list.length);
      const toppedUp = base < target;
      return {
        stratum,
        units: list,
        base,
        taken: list.slice(0, toppedUp ? target : base),
        toppedUp,
        prob: toppedUp ? target / list.length : rate,
        expected: expectedToppedUp(list.length, rate, target),
      };
    });
}

/**
 * Draws the strata (drawStrata) and summarises each: its units, their rollouts, the base and drawn counts and the
 * items the drawn units give (`itemsOf`). `chosen` maps each drawn unit's id to its inclusion probability.
 */
export function drawSummarised<U extends StratumUnit & { rows: readonly unknown[] }>(
  units: readonly U[],
  rate: number,
  minPerStratum: number | null | undefined,
  itemsOf: (taken: readonly U[]) => number,
): { summaries: StratumSummary[]; chosen: Map<string, number> } {
  const m = minPerStratum && minPerStratum > 0 ? Math.floor(minPerStratum) : 0;
  const chosen = new Map<string, number>();
  const summaries = drawStrata(units, rate, m).map((d) => {
    for (const t of d.taken) chosen.set(t.id, d.prob);
    return {
      stratum: d.stratum,
      tickets: d.units.length,
      rollouts: d.units.reduce((s, t) => s + t.rows.length, 0),
      baseTickets: d.base,
      sampledTickets: d.taken.length,
      items: itemsOf(d.taken),
      toppedUp: d.toppedUp,
      ticketInclusionProb: d.prob,
      expectedTickets: d.expected,
    };
  });
  return { summaries, chosen };
}

/**
 * Draws the sample. Inclusion probability of a ticket: `rate` in a stratum that was not topped up (Bernoulli
 * sampling); `min(m, N_s) / N_s` in a stratum that was (its sample is then the m lowest hashes of N_s, a simple
 * random sample of that size). Of a rollout: the ticket's, divided by the ticket's rollouts in the window for
 * "one" (the chosen rollout is itself a hash draw among them).
 */
export function sampleBatch<T extends PopulationRow>(rows: readonly T[], params: SampleParams): SampleResult<T> {
  if (!(params.rate >= 0 && params.rate <= 1)) throw new RangeError(`rate must be in [0, 1], got ${params.rate}`);
  const tickets = buildTickets(rows, params);
  // chosen: ticket id -> ticket inclusion probability
  const { summaries, chosen } = drawSummarised(tickets, params.rate, params.minPerStratum, (taken) =>
    taken.reduce((s, t) => s + t.candidates.length, 0),
  );

  const items: SampledItem<T>[] = [];
  for (const t of tickets) {
    const prob = chosen.get(t.id);
    if (prob === undefined) continue;
    for (const row of t.candidates) {
      items.push({
        row,
        stratum: t.stratum,
        ticketInclusionProb: prob,
        inclusionProb: params.pick === "one" ? prob / t.rows.length : prob,
        reviewsNeeded: uniformHash(params.salt, "overlap", row.trajectoryId) < params.overlapRate ? 2 : 1,
      });
    }
  }

  const expectedTickets = summaries.reduce((s, x) => s + x.expectedTickets, 0);
  const expectedItems = summaries.reduce(
    (s, x) =>
      s + (params.pick === "all" && x.tickets > 0 ? (x.expectedTickets * x.rollouts) / x.tickets : x.expectedTickets),
    0,
  );
  return {
    items,
    strata: summaries,
    population: { tickets: tickets.length, rollouts: rows.length },
    expected: { tickets: expectedTickets, items: expectedItems },
    overlapItems: items.filter((i) => i.reviewsNeeded > 1).length,
    itemsHash: sha256Tag(
      items
        .map((i) => i.row.trajectoryId)
        .sort(compareStrings)
        .join("\n"),
    ),
  };
}
