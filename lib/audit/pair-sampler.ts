// The pairwise sampler: which pairs of rollouts of a run's step window go to blind pairwise review. Pure, like the
// ticket sampler (lib/audit/sampler.ts), and built from the same keyed hash and stratified draw.
//
// The unit of sampling is the GRPO group (same ticket, step and group id): a group is in the base sample when
// u(salt, group) < rate. Of a sampled group one pair is reviewed. Its pairs are "clear" when their ledger rewards
// differ by more than delta and "near-ties" otherwise; a group offers a near-tie when u(salt, near_tie, group) <
// nearTieRate (and it has one), else a clear pair (when it has one), and within the class the pair with the lowest
// u(salt, pair) is taken. The pair's stratum is its two deciding guardrails ("worst+other", "none+none"), and a
// stratum below the minimum is topped up with its next-lowest group hashes, exactly as ticket strata are.
import { sha256Tag, uniformHash } from "@/lib/audit/hash.ts";
import { compareStrings, drawSummarised, NO_GUARDRAIL, severity, type StratumSummary } from "@/lib/audit/sampler.ts";

/** One current ledger entry of the window, with what pairing needs: its group and its ledger reward. */
export type PairPopulationRow = {
  ticketId: string;
  trajectoryId: string;
  step: number;
  groupId: string | null;
  reward: number;
  decidingGuardrail: string | null;
};

export const DEFAULT_DELTA = 0.1;
export const DEFAULT_NEAR_TIE_RATE = 0.2;

export type PairSampleParams = {
  /** Share of groups in the base sample. */
  rate: number;
  salt: string;
  /** Rewards differing by more than this make a clear pair. */
  delta: number;
  /** Share of sampled groups offering a near-tie (|Δ| ≤ delta) when they have one. */
  nearTieRate: number;
  /** Minimum groups per stratum (the pair's deciding guardrails); null or 0 = no top-up. */
  minPerStratum?: number | null;
  /** Share of pairs that need two independent judgements. */
  overlapRate: number;
};

export type SampledPair<T> = {
  /** The pair's rollouts, A the lower trajectory id (an order that says nothing of their rewards). */
  a: T;
  b: T;
  groupKey: string;
  stratum: string;
  nearTie: boolean;
  /** Shown with B on the left (a fair hash draw per pair, recorded on the item). */
  bOnLeft: boolean;
  /** P(this pair is reviewed) = P(group sampled) · P(this pair | group). */
  inclusionProb: number;
  groupInclusionProb: number;
  reviewsNeeded: 1 | 2;
};

export type PairSampleResult<T> = {
  pairs: SampledPair<T>[];
  /** Per stratum, in the ticket sampler's shape: "tickets" count groups, "rollouts" their rollouts. */
  strata: StratumSummary[];
  population: { groups: number; rollouts: number; tickets: number };
  expected: { groups: number };
  nearTies: number;
  overlapItems: number;
  /** sha256 of the sorted "A\tB" trajectory pairs, one a line. */
  itemsHash: string;
};

type Group<T> = {
  id: string;
  u: number;
  stratum: string;
  rows: T[];
  a: T;
  b: T;
  nearTie: boolean;
  /** P(this pair | group sampled). */
  pairProb: number;
};

const pairKey = (a: { trajectoryId: string }, b: { trajectoryId: string }) =>
  `${a.trajectoryId}\u0000${b.trajectoryId}`;

/** "worst+other" of the pair's deciding guardrails, most severe first (verifier.md table order). */
export function pairStratum(a: string | null, b: string | null): string {
  const [x, y] = [a ?? NO_GUARDRAIL, b ?? NO_GUARDRAIL].sort(
    (p, q) => severity(p) - severity(q) || compareStrings(p, q),
  );
  return `${x}+${y}`;
}

function lowestHash<T extends PairPopulationRow>(salt: string, pairs: [T, T][]): [T, T] {
  let best = pairs[0];
  let bestU = uniformHash(salt, "pair", pairKey(...best));
  for (const p of pairs.slice(1)) {
    const u = uniformHash(salt, "pair", pairKey(...p));
    if (u < bestU) [best, bestU] = [p, u];
  }
  return best;
}

/** Chooses the group's pair and the probability of that choice given the group (see the file comment). */
function buildGroup<T extends PairPopulationRow>(id: string, rows: T[], p: PairSampleParams): Group<T> {
  rows.sort((x, y) => compareStrings(x.trajectoryId, y.trajectoryId));
  const clear: [T, T][] = [];
  const near: [T, T][] = [];
  for (let i = 0; i < rows.length; i++)
    for (let j = i + 1; j < rows.length; j++)
      (Math.abs(rows[i].reward - rows[j].reward) > p.delta ? clear : near).push([rows[i], rows[j]]);
  const wantNear = uniformHash(p.salt, "near_tie", id) < p.nearTieRate;
  const nearTie = near.length > 0 && (wantNear || clear.length === 0);
  const cls = nearTie ? near : clear;
  const classProb = near.length > 0 && clear.length > 0 ? (nearTie ? p.nearTieRate : 1 - p.nearTieRate) : 1;
  const [a, b] = lowestHash(p.salt, cls);
  return {
    id,
    u: uniformHash(p.salt, "group", id),
    stratum: pairStratum(a.decidingGuardrail, b.decidingGuardrail),
    rows,
    a,
    b,
    nearTie,
    pairProb: classProb / cls.length,
  };
}

/** The group of a row: ticket, step and group id (a run without group ids groups by ticket and step). */
export function groupKeyOf(r: PairPopulationRow): string {
  return `${r.step}\u0000${r.ticketId}\u0000${r.groupId ?? ""}`;
}

/**
 * Draws the pairs. A group's inclusion probability is the ticket sampler's (rate, or min(m, N_s)/N_s in a topped-up
 * stratum); a pair's multiplies it by P(pair | group): the class's share (nearTieRate or 1 − nearTieRate when the
 * group has both classes, else 1) over the class's pairs (the lowest hash is uniform among them).
 */
export function samplePairs<T extends PairPopulationRow>(
  rows: readonly T[],
  params: PairSampleParams,
): PairSampleResult<T> {
  if (!(params.rate >= 0 && params.rate <= 1)) throw new RangeError(`rate must be in [0, 1], got ${params.rate}`);
  if (!(params.nearTieRate >= 0 && params.nearTieRate <= 1))
    throw new RangeError(`nearTieRate must be in [0, 1], got ${params.nearTieRate}`);
  const byGroup = new Map<string, T[]>();
  for (const r of rows) {
    const k = groupKeyOf(r);
    const list = byGroup.get(k);
    if (list) list.push(r);
    else byGroup.set(k, [r]);
  }
  const groups: Group<T>[] = [];
  for (const [id, list] of byGroup) if (list.length >= 2) groups.push(buildGroup(id, list, params));
  groups.sort((x, y) => x.u - y.u || compareStrings(x.id, y.id));

  const { summaries: strata, chosen } = drawSummarised(groups, params.rate, params.minPerStratum, (t) => t.length);

  const pairs: SampledPair<T>[] = [];
  for (const g of groups) {
    const prob = chosen.get(g.id);
    if (prob === undefined) continue;
    const key = pairKey(g.a, g.b);
    pairs.push({
      a: g.a,
      b: g.b,
      groupKey: g.id,
      stratum: g.stratum,
      nearTie: g.nearTie,
      bOnLeft: uniformHash(params.salt, "side", key) < 0.5,
      groupInclusionProb: prob,
      inclusionProb: prob * g.pairProb,
      reviewsNeeded: uniformHash(params.salt, "overlap", key) < params.overlapRate ? 2 : 1,
    });
  }
  return {
    pairs,
    strata,
    population: { groups: groups.length, rollouts: rows.length, tickets: new Set(rows.map((r) => r.ticketId)).size },
    expected: { groups: strata.reduce((s, x) => s + x.expectedTickets, 0) },
    nearTies: pairs.filter((x) => x.nearTie).length,
    overlapItems: pairs.filter((x) => x.reviewsNeeded > 1).length,
    itemsHash: sha256Tag(
      pairs
        .map((x) => `${x.a.trajectoryId}\t${x.b.trajectoryId}`)
        .sort(compareStrings)
        .join("\n"),
    ),
  };
}
