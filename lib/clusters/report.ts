// Turns the clustering reads (data.ts) into the report the page, the API and the CLI show: sizes, shares of the
// window, distinct tickets, mean reward, reward removed by the cap, the share trend, and the priority of
// lib/stats/priority.ts that ranks the clusters. Pure.
import { type Bin, trendOf, type Trend } from "@/lib/clusters/bins.ts";
import {
  BLIND_SPOT_KEY,
  clusterLabel,
  cofiredKey,
  formatKey,
  levelOneLabel,
  type Signature,
  signatureLabel,
  WEAKEST_UNKNOWN,
} from "@/lib/clusters/keys.ts";
import type { BlindSpotFacts, LevelOneFacts, SignatureFacts } from "@/lib/clusters/data.ts";
import { signatureTicketKey } from "@/lib/clusters/data.ts";
import { codesOfMask } from "@/lib/verifier/guardrail-mask.ts";
import { rankClusters, type Priority } from "@/lib/stats/priority.ts";
import { GUARDRAIL_CODES } from "@/lib/verifier/codes.ts";

export type ClusterStats = {
  key: string;
  label: string;
  /** Entries in the cluster; an estimate (sample count / sample rate, rounded) when `estimated`. */
  size: number;
  estimated: boolean;
  /** size / current entries of the window. */
  share: number;
  tickets: number | null;
  meanReward: number | null;
  /** Mean of raw_reward − reward: what the caps took from each member on average. */
  removedByCap: number | null;
  trend: Trend;
  priority: Priority | null;
};

/** A breakdown row without a trend: categories of a level-1 cluster, or level 3 under a signature. */
export type CategoryPart = {
  key: string | null;
  category: string | null;
  size: number;
  share: number;
  ofParent: number;
  meanReward: number | null;
  estimated: boolean;
};

export type LevelTwo = ClusterStats & { signature: Signature; ofParent: number; categories: CategoryPart[] };
export type LevelOne = ClusterStats & {
  l1: string;
  categories: CategoryPart[];
  signatures: LevelTwo[];
  sampleRate: number;
};
export type CofiredSet = ClusterStats & { codes: string[] };
export type GuardrailPresence = { code: string; size: number; share: number; deciding: number; trend: Trend };

export type ClusterReport = {
  runId: string;
  threshold: number;
  /** The steps the window really spans (first and last step with entries); null for an empty window. */
  from: number | null;
  to: number | null;
  bins: Bin[];
  rollouts: number;
  population: number;
  /**
   * Low-scoring entries with no verifier detail (no guardrail and no sub-score: scored outside Verity). They are in
   * the population but form no cluster: "weakest unknown" would say nothing about what data to build.
   */
  unscored: number;
  clusters: LevelOne[];
  blindSpot: ClusterStats & { categories: CategoryPart[] };
  cofired: CofiredSet[];
  /** Every guardrail that triggered in the population, deciding or not: how missing_evidence shows when a cheaper
   * cap decides (or when its 0.55 cap keeps it above a 0.5 threshold on its own). */
  guardrails: GuardrailPresence[];
};

type Acc = { n: number; rewardSum: number; removedSum: number; rewarded: number; perBin: number[] };
const acc = (bins: number): Acc => ({
  n: 0,
  rewardSum: 0,
  removedSum: 0,
  rewarded: 0,
  perBin: new Array(bins).fill(0),
});

function add(a: Acc, bin: number, n: number, rewardSum: number, removedSum: number, rewarded = n) {
  a.n += n;
  a.rewardSum += rewardSum;
  a.removedSum += removedSum;
  a.rewarded += rewarded;
  if (bin >= 1 && bin <= a.perBin.length) a.perBin[bin - 1] += n;
}

function getAcc<K>(m: Map<K, Acc>, k: K, bins: number): Acc {
  let a = m.get(k);
  if (!a) m.set(k, (a = acc(bins)));
  return a;
}

function stats(
  key: string,
  label: string,
  a: Acc,
  bins: Bin[],
  rollouts: number,
  tickets: number | null,
  scale = 1,
): ClusterStats {
  const size = Math.round(a.n / scale);
  return {
    key,
    label,
    size,
    estimated: scale < 1,
    share: rollouts ? size / rollouts : 0,
    tickets,
    meanReward: a.rewarded ? a.rewardSum / a.rewarded : null,
    removedByCap: a.rewarded ? a.removedSum / a.rewarded : null,
    trend: trendOf(
      bins,
      a.perBin.map((x) => x / scale),
    ),
    priority: null,
  };
}

/** Highest priority first (priority.ts rankClusters: ties by share, then input order). */
export function rankByPriority<T extends ClusterStats>(list: readonly T[]): T[] {
  return rankClusters(list.map((c) => ({ share: c.share, meanReward: c.meanReward, slope: c.trend.slope, c }))).map(
    (r) => ({
      ...r.c,
      priority: r.priority,
    }),
  );
}

function categoryParts(
  cats: Map<string | null, Acc>,
  parentSize: number,
  rollouts: number,
  scale: number,
  keyOf: (c: string) => string | null,
): CategoryPart[] {
  return [...cats.entries()]
    .map(([category, a]) => {
      const size = Math.round(a.n / scale);
      return {
        key: category === null ? null : keyOf(category),
        category,
        size,
        share: rollouts ? size / rollouts : 0,
        ofParent: parentSize ? size / parentSize : 0,
        meanReward: a.rewarded ? a.rewardSum / a.rewarded : null,
        estimated: scale < 1,
      };
    })
    .sort((x, y) => y.size - x.size || String(x.category).localeCompare(String(y.category)));
}

export function buildReport(input: {
  runId: string;
  threshold: number;
  bins: Bin[];
  levelOne: LevelOneFacts;
  signatures: SignatureFacts;
  blindSpot: BlindSpotFacts;
}): ClusterReport {
  const { bins, levelOne, signatures, blindSpot } = input;
  const nb = bins.length;
  const rollouts = bins.reduce((s, b) => s + b.rollouts, 0);

  const byKey = new Map<string, Acc>();
  const byKeyCat = new Map<string, Map<string | null, Acc>>();
  const byMask = new Map<number, Acc>();
  for (const c of levelOne.cells) {
    add(getAcc(byKey, c.key, nb), c.bin, c.n, c.rewardSum, c.removedSum);
    let cats = byKeyCat.get(c.key);
    if (!cats) byKeyCat.set(c.key, (cats = new Map()));
    add(getAcc(cats, c.category, nb), c.bin, c.n, c.rewardSum, c.removedSum);
    add(getAcc(byMask, c.mask, nb), c.bin, c.n, c.rewardSum, c.removedSum);
  }
  const population = [...byKey.values()].reduce((s, a) => s + a.n, 0);

  // Level 2 (and 3) from the sample, scaled by each level-1 cluster's sampling rate.
  const bySig = new Map<string, { l1: string; sig: Signature; a: Acc; cats: Map<string | null, Acc> }>();
  for (const c of signatures.cells) {
    const sig: Signature = { code: c.code, tool: c.tool, field: c.field };
    const k = formatKey({ kind: "level2", l1: c.key, sig });
    let e = bySig.get(k);
    if (!e) bySig.set(k, (e = { l1: c.key, sig, a: acc(nb), cats: new Map() }));
    add(e.a, c.bin, c.n, c.rewardSum, c.removedSum);
    add(getAcc(e.cats, c.category, nb), c.bin, c.n, c.rewardSum, c.removedSum);
  }

  const unscored = byKey.get(WEAKEST_UNKNOWN)?.n ?? 0;
  const clusters: LevelOne[] = [...byKey.entries()]
    .filter(([l1]) => l1 !== WEAKEST_UNKNOWN)
    .map(([l1, a]) => {
      const base = stats(l1, levelOneLabel(l1), a, bins, rollouts, levelOne.ticketsByKey.get(l1) ?? null);
      // The realised sampling rate (entries read / entries), so that a signature every member carries is 100%.
      const rate = (signatures.rates.get(l1) ?? 1) === 1 ? 1 : (signatures.sampled.get(l1) ?? 0) / Math.max(1, a.n);
      const sigs: LevelTwo[] = [...bySig.entries()]
        .filter(([, e]) => e.l1 === l1)
        .map(([k, e]) => {
          const s = stats(
            k,
            signatureLabel(e.sig),
            e.a,
            bins,
            rollouts,
            rate === 1
              ? (signatures.tickets.get(signatureTicketKey(l1, e.sig.code, e.sig.tool, e.sig.field)) ?? null)
              : null,
            rate,
          );
          const categories = categoryParts(e.cats, s.size, rollouts, rate, (cat) =>
            formatKey({ kind: "level3", l1, sig: e.sig, category: cat }),
          );
          return { ...s, signature: e.sig, ofParent: base.size ? s.size / base.size : 0, categories };
        });
      const categories = categoryParts(byKeyCat.get(l1) ?? new Map(), base.size, rollouts, 1, () => null);
      return { ...base, l1, categories, signatures: rankByPriority(sigs), sampleRate: rate };
    });

  const cofired: CofiredSet[] = [...byMask.entries()]
    .map(([mask, a]) => ({ codes: codesOfMask(mask), a, mask }))
    .filter((m) => m.codes.length >= 2)
    .map((m) => {
      const key = cofiredKey(m.codes);
      const s = stats(
        key,
        clusterLabel({ kind: "cofired", codes: m.codes }),
        m.a,
        bins,
        rollouts,
        levelOne.ticketsByMask.get(m.mask) ?? null,
      );
      return { ...s, codes: m.codes };
    })
    .sort((x, y) => y.size - x.size || x.key.localeCompare(y.key));

  const guardrails: GuardrailPresence[] = GUARDRAIL_CODES.map((code, i) => {
    const a = acc(nb);
    for (const [mask, m] of byMask) {
      if (!(mask & (1 << i))) continue;
      a.n += m.n;
      m.perBin.forEach((v, b) => (a.perBin[b] += v));
    }
    const size = a.n;
    return {
      code,
      size,
      share: rollouts ? size / rollouts : 0,
      deciding: byKey.get(code)?.n ?? 0,
      trend: trendOf(bins, a.perBin),
    };
  })
    .filter((g) => g.size > 0)
    .sort((x, y) => y.size - x.size);

  const blind = acc(nb);
  const blindCats = new Map<string | null, Acc>();
  for (const c of blindSpot.cells) {
    add(blind, c.bin, c.n, c.rewardSum, c.removedSum, c.rewarded);
    add(getAcc(blindCats, c.category, nb), c.bin, c.n, c.rewardSum, c.removedSum, c.rewarded);
  }
  const blindStats = stats(
    BLIND_SPOT_KEY,
    clusterLabel({ kind: "blind_spot" }),
    blind,
    bins,
    rollouts,
    blindSpot.tickets,
  );

  return {
    runId: input.runId,
    threshold: input.threshold,
    from: nb ? bins[0].from : null,
    to: nb ? bins[nb - 1].to : null,
    bins,
    rollouts,
    population,
    unscored,
    clusters: rankByPriority(clusters),
    blindSpot: {
      ...rankByPriority([blindStats])[0],
      categories: categoryParts(blindCats, blindStats.size, rollouts, 1, () => null),
    },
    cofired: rankByPriority(cofired).sort((x, y) => y.size - x.size || x.key.localeCompare(y.key)),
    guardrails,
  };
}

/** What the report says of the low-scoring entries it does not cluster (no verifier detail); null when none. */
export function unscoredLine(r: { unscored: number; population: number }): string | null {
  if (r.unscored === 0) return null;
  const n = r.unscored.toLocaleString("en-US");
  return r.unscored === r.population
    ? `No verifier detail: the ${n} low-scoring rollouts of this window were scored outside Verity (no guardrails, no sub-scores), so nothing is clustered.`
    : `${n} of the low-scoring rollouts have no verifier detail (scored outside Verity: no guardrails, no sub-scores) and are not clustered.`;
}
