// Two leaderboard rows compared on the items both scored: is one of them right more often than the other, or can the
// audit not tell yet? The verdict by McNemar's exact test with Newcombe's interval for the difference in agreement,
// MAE and ρ by the paired bootstrap (lib/stats/paired.ts), and the items where the two disagree, each with the side
// the human took.

import {
  checkLeaderboardInput,
  columnsOf,
  itemSlots,
  type Candidate,
  type LeaderboardInput,
  type ResultColumns,
} from "@/lib/leaderboard/input.ts";
import { LEADERBOARD_SEED, thresholdOf } from "@/lib/leaderboard/row.ts";
import { itemsForHalfWidth } from "@/lib/stats/audit-plan.ts";
import { pairedDifference, pairedScoreDifferences, pairedTable } from "@/lib/stats/paired.ts";
import { MIN_N_FOR_RATE } from "@/lib/stats/small-sample.ts";

/** Below this p-value McNemar's test says the two differ. */
export const SIGNIFICANCE = 0.05;
/** The fewest discordant items on which the exact test can reach p < 0.05 (all six one way: p = 2/64). */
const MIN_DISCORDANT = 6;

export type Side = { reward: number; pass: boolean; components: Record<string, number> | null };

export type Disagreement = {
  itemId: string;
  rolloutId: string;
  groupId: string | null;
  human: { verdict: "pass" | "fail"; reward: number };
  a: Side;
  b: Side;
  /** Whose verdict the human's matches: the two verdicts differ, so exactly one. */
  humanSide: "a" | "b";
};

function candidate(input: LeaderboardInput, id: string): Candidate {
  const c = input.candidates.find((x) => x.id === id);
  if (!c) throw new RangeError(`no candidate ${id} on this leaderboard`);
  return c;
}

function sideOf(c: Candidate, results: ResultColumns, slot: number, reward: number): Side {
  return { reward, pass: reward >= thresholdOf(c), components: results.components.get(slot) ?? null };
}

/**
 * A against B on the audited items both have a reward for. `agreement`: the difference of their agreement rates with
 * the human verdict (A − B) with Newcombe's interval and McNemar's exact p; `mae` and `spearman`: A − B with paired
 * bootstrap intervals (negative MAE difference: A is closer). `verdict` says it in words.
 */
export function headToHead(
  input: LeaderboardInput,
  aId: string,
  bId: string,
  options: { seed?: number; iterations?: number } = {},
) {
  checkLeaderboardInput(input);
  const a = candidate(input, aId);
  const b = candidate(input, bId);
  const aRight: boolean[] = [];
  const bRight: boolean[] = [];
  const scores: { reference: number; first: number; second: number }[] = [];
  const disagreements: Disagreement[] = [];
  let onlyOne = 0;
  const [aResults, bResults] = [columnsOf(a.results), columnsOf(b.results)];
  const aSlots = itemSlots(input.items, aResults.rollouts);
  const bSlots = bResults.rollouts === aResults.rollouts ? aSlots : itemSlots(input.items, bResults.rollouts);
  for (let i = 0; i < input.items.length; i++) {
    const item = input.items[i];
    const ra = aResults.rewardAt(aSlots[i]);
    const rb = bResults.rewardAt(bSlots[i]);
    if ("missing" in ra || "missing" in rb) {
      if (!("missing" in ra && "missing" in rb)) onlyOne++;
      continue;
    }
    const sa = sideOf(a, aResults, aSlots[i], ra.reward);
    const sb = sideOf(b, bResults, bSlots[i], rb.reward);
    const humanPass = item.human.verdict === "pass";
    aRight.push(sa.pass === humanPass);
    bRight.push(sb.pass === humanPass);
    scores.push({ reference: item.human.reward, first: ra.reward, second: rb.reward });
    if (sa.pass !== sb.pass) {
      const { itemId, rolloutId, groupId, human } = item;
      disagreements.push({
        itemId,
        rolloutId,
        groupId,
        human,
        a: sa,
        b: sb,
        humanSide: sa.pass === humanPass ? "a" : "b",
      });
    }
  }
  const table = pairedTable(aRight, bRight);
  const agreement = pairedDifference(table);
  const { mae, spearman } = pairedScoreDifferences(scores, {
    seed: options.seed ?? LEADERBOARD_SEED,
    iterations: options.iterations ?? 1000,
  });
  return {
    a: { id: a.id, label: a.label },
    b: { id: b.id, label: b.label },
    /** Items both scored (the paired sample), and those only one of them scored (left out). */
    n: scores.length,
    /** Below the agreement report's minimum the differences read "too few to say"; the exact test's verdict stands. */
    tooFew: scores.length < MIN_N_FOR_RATE,
    onlyOne,
    table,
    agreement,
    mae,
    spearman,
    verdict: verdictOf(a.label, b.label, table.firstOnly, table.secondOnly, scores.length, agreement?.pValue ?? 1),
    disagreements,
  };
}

export type HeadToHead = ReturnType<typeof headToHead>;

export type Verdict = {
  /** "a" or "b" when the test separates them, null when it cannot yet. */
  better: "a" | "b" | null;
  /** More audited items (both scored) at which the difference seen so far would just reach p < 0.05; null if none would. */
  moreItems: number | null;
  text: string;
};

/**
 * The plain verdict. Separated (p < 0.05): "A agrees more often than B". Otherwise the audit planner's sample size for
 * the share of discordant items that favour the leader, π = max(b, c)/(b + c): the discordant items for a 95%
 * interval of half-width |π − ½| (itemsForHalfWidth, at least MIN_DISCORDANT), divided by the share of items that
 * are discordant, less the items already audited. That is the size at which the difference seen so far would just be
 * significant — about a coin's chance of getting there if it is the true difference, so "about", not "enough".
 */
export function verdictOf(aLabel: string, bLabel: string, aOnly: number, bOnly: number, n: number, p: number): Verdict {
  if (p < SIGNIFICANCE) {
    const better = aOnly > bOnly ? "a" : "b";
    const [w, l] = better === "a" ? [aLabel, bLabel] : [bLabel, aLabel];
    return { better, moreItems: null, text: `${w} agrees more often than ${l}` };
  }
  const discordant = aOnly + bOnly;
  if (discordant === 0 || aOnly === bOnly) {
    const why = discordant === 0 ? "they give the same verdict on every item" : "each is right as often as the other";
    return {
      better: null,
      moreItems: null,
      text: `the audit cannot tell them apart: on ${n} audited item${n === 1 ? "" : "s"} ${why}`,
    };
  }
  const pi = Math.max(aOnly, bOnly) / discordant;
  const needDiscordant = Math.max(MIN_DISCORDANT, itemsForHalfWidth(pi, pi - 0.5));
  const total = Math.ceil(needDiscordant / (discordant / n) - 1e-9);
  const more = Math.max(1, total - n);
  return {
    better: null,
    moreItems: more,
    text: `the audit cannot tell them apart yet: about ${more} more audited item${more === 1 ? "" : "s"} would`,
  };
}

/** The disagreements where the human took the given side (all of them for "any"). */
export function disagreementsBySide(h: HeadToHead, side: "a" | "b" | "any"): Disagreement[] {
  return side === "any" ? h.disagreements : h.disagreements.filter((d) => d.humanSide === side);
}
