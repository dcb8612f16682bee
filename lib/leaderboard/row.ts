// One row of the reward leaderboard: how one candidate's rewards on the audited items stand against the blind human
// judgements. The agreement coefficients are the agreement report's own (κ with its bootstrap interval, AC1 and PABAK
// with Gwet's t intervals, positive and negative agreement, through lib/agreement/report.ts prevalenceProof), and every
// figure goes through the report's Figure shapes, so the same 30-item minimum reads "too few to say" here as there.

import { rateFigure, statFigure, type Figure, type RateFigure } from "@/lib/agreement/figures.ts";
import { prevalenceProof } from "@/lib/agreement/report.ts";
import {
  DEFAULT_PASS_THRESHOLD,
  MISSING_REASONS,
  rewardOf,
  type AuditedItem,
  type Candidate,
  type CandidateResult,
  type MissingReason,
  type PairwiseJudgement,
} from "@/lib/leaderboard/input.ts";
import { binaryKappa } from "@/lib/stats/agreement.ts";
import {
  meanAbsoluteError,
  meanAbsoluteErrorInterval,
  spearman,
  spearmanIntervalOf,
  spearmanUndefinedReason,
} from "@/lib/stats/correlation.ts";
import { quantileSorted } from "@/lib/stats/descriptive.ts";
import { kappaIntervalOfMatrix, kappaUndefinedReason } from "@/lib/stats/kappa.ts";
import { orderingAgreement, type PairJudgementObs } from "@/lib/stats/ordering-agreement.ts";

/** The κ bootstrap's seed and resamples: fixed, so a row reads the same on every load. */
export const LEADERBOARD_SEED = 20261206;
const KAPPA_ITERATIONS = 1000;

/** An audited item the candidate scored, and its index in the items. */
export type CoveredItem = { item: AuditedItem; index: number; reward: number; pass: boolean; humanPass: boolean };

export type Coverage = {
  items: number;
  covered: number;
  /** Items without a reward from the candidate, by reason; they add up to items − covered. */
  missing: Record<MissingReason, number>;
  /** Of the items it was run on, the share that failed (error, timeout, invalid output, unavailable). */
  failureShare: RateFigure;
};

/**
 * Splits the audited items into those the candidate scored and the count missing for each reason; `results` is the
 * candidate's result on each item, in the items' order (undefined: not run), for the figures that read all of them.
 */
export function coverageOf(c: Candidate, items: readonly AuditedItem[], threshold: number) {
  const missing = Object.fromEntries(MISSING_REASONS.map((r) => [r, 0])) as Record<MissingReason, number>;
  const covered: CoveredItem[] = [];
  const results: (CandidateResult | undefined)[] = new Array(items.length);
  for (let index = 0; index < items.length; index++) {
    const item = items[index];
    // rewardOf's cases read in place, each result looked up once: an object per item and row, and a second lookup
    // for the costs, were a good part of the build at 20 versions × 10,000 items
    const r = (results[index] = c.results[item.rolloutId]);
    if (!r) missing.not_run++;
    else if (r.status !== "ok") missing[r.status]++;
    else {
      const humanPass = item.human.verdict === "pass";
      covered.push({ item, index, reward: r.reward!, pass: r.reward! >= threshold, humanPass });
    }
  }
  const run = items.length - missing.not_run;
  const coverage: Coverage = {
    items: items.length,
    covered: covered.length,
    missing,
    failureShare: rateFigure(run - covered.length, run),
  };
  return { covered, coverage, results };
}

const VERDICT_NAMES = {
  a: "the function",
  b: "the human side",
  what: "verdict",
  noPositive: "neither side passes an item",
  noNegative: "both sides pass every item",
};

/**
 * The verdict's figures at the row's threshold: agreement (Wilson), κ (bootstrap), AC1 and PABAK (t), positive and
 * negative agreement, and sensitivity and specificity for failure (Wilson). The 2×2 table's rows are the function's
 * pass / fail, its columns the human's pass / fail.
 */
export function verdictFigures(covered: readonly CoveredItem[]) {
  const table = [
    [0, 0],
    [0, 0],
  ];
  for (const c of covered) table[c.pass ? 0 : 1][c.humanPass ? 0 : 1]++;
  const n = covered.length;
  const agreeing = table[0][0] + table[1][1];
  const kappa = binaryKappa(table[0][0], table[0][1], table[1][0], table[1][1]);
  const kappaCI =
    kappa === null ? null : kappaIntervalOfMatrix(table, { seed: LEADERBOARD_SEED, iterations: KAPPA_ITERATIONS });
  return {
    /** rows: the function passes / fails; columns: the human passes / fails */
    matrix: table,
    agreement: rateFigure(agreeing, n),
    kappa: statFigure(kappa, n, kappaCI, { undefinedReason: kappaUndefinedReason(table, VERDICT_NAMES) }),
    /** AC1, PABAK, positive and negative agreement, the prevalence on each side and what to read at it. */
    ...prevalenceProof(table, VERDICT_NAMES),
    /** Of the items the human failed, the share the function failed: the hacks it catches. */
    sensitivity: rateFigure(table[1][1], table[1][1] + table[0][1]),
    /** Of the items the human passed, the share the function passed. */
    specificity: rateFigure(table[0][0], table[0][0] + table[1][0]),
  };
}

/** MAE (normal interval) and Spearman's ρ (Fisher z, Bonett–Wright) of the reward against the human reward. */
export function rewardFigures(covered: readonly CoveredItem[]): { mae: Figure; spearman: Figure } {
  const fn = covered.map((c) => c.reward);
  const human = covered.map((c) => c.item.human.reward);
  const rho = spearman(fn, human);
  return {
    mae: statFigure(meanAbsoluteError(fn, human), covered.length, meanAbsoluteErrorInterval(fn, human)),
    spearman: statFigure(rho, covered.length, spearmanIntervalOf(rho, covered.length), {
      undefinedReason: spearmanUndefinedReason(fn, human, { a: "the function", b: "the human side", what: "reward" }),
    }),
  };
}

export type OrderingFigures = {
  /** agree / (agree + inversions) with its Wilson interval. */
  agreement: RateFigure;
  agree: number;
  inversions: number;
  /** The human judged the two equal. */
  ties: number;
  /** The candidate scores the two equal, or has no reward for one of them: no order to agree with. */
  unordered: number;
};

/**
 * Ordering agreement inside GRPO groups: of the human's pairwise judgements of two rollouts the candidate orders, the
 * share that prefer the one it rewards higher (lib/stats/ordering-agreement.ts). null when there are no judgements.
 */
export function orderingFigures(c: Candidate, pairwise: readonly PairwiseJudgement[]): OrderingFigures | null {
  if (pairwise.length === 0) return null;
  const obs: PairJudgementObs[] = pairwise.map((p) => {
    const l = rewardOf(c, p.left);
    const r = rewardOf(c, p.right);
    const side = p.preferred;
    const base = { side, inclusionProb: p.inclusionProb ?? 1 };
    if ("missing" in l || "missing" in r || l.reward === r.reward) return { ...base, verdict: "ledger_tie" };
    if (side === "tie") return { ...base, verdict: "tie" };
    const higher = l.reward > r.reward ? "left" : "right";
    return { ...base, verdict: side === higher ? "agree" : "inversion" };
  });
  const o = orderingAgreement(obs);
  return {
    agreement: rateFigure(o.agree, o.agree + o.inversions),
    agree: o.agree,
    inversions: o.inversions,
    ties: o.ties,
    unordered: o.unordered,
  };
}

export type Breakdown = {
  key: string;
  /** Audited items in the slice, and those the candidate scored. */
  items: number;
  covered: number;
  agreement: RateFigure;
  sensitivity: RateFigure;
  specificity: RateFigure;
};

const [CAUGHT, MISSED, PASSED, FALSE_ALARM] = [0, 1, 2, 3];

/**
 * The items' slices (a guardrail's, a category's): the keys sorted, how many items each holds, and each item's
 * slices as indices into the keys (item i's are slices[offsets[i] … offsets[i + 1])). The same for every row.
 */
export type Slices = { keys: string[]; totals: Int32Array; offsets: Int32Array; slices: Int32Array };

/** Slices of the items by `keysOf` (a key listed twice for one item counts once). */
export function sliceItems(items: readonly AuditedItem[], keysOf: (item: AuditedItem) => readonly string[]): Slices {
  const perItem = items.map((i) => [...new Set(keysOf(i))]);
  const keys = [...new Set(perItem.flat())].sort();
  const indexOf = new Map(keys.map((k, j) => [k, j]));
  const totals = new Int32Array(keys.length);
  const offsets = new Int32Array(items.length + 1);
  const slices = new Int32Array(perItem.reduce((n, ks) => n + ks.length, 0));
  let at = 0;
  perItem.forEach((ks, i) => {
    offsets[i] = at;
    for (const k of ks) totals[(slices[at++] = indexOf.get(k)!)]++;
  });
  offsets[items.length] = at;
  return { keys, totals, offsets, slices };
}

/**
 * Agreement, sensitivity and specificity on each slice of the items (a guardrail's, a category's), keys sorted: one
 * pass over the covered items, each counted in every slice it belongs to, in the cell of its two verdicts (those of
 * lib/stats/sensitivity.ts: caught, missed, passed, false alarm).
 */
export function breakdown(s: Slices, covered: readonly CoveredItem[]): Breakdown[] {
  const cells = new Int32Array(4 * s.keys.length);
  for (const c of covered) {
    const cell = c.humanPass ? (c.pass ? PASSED : FALSE_ALARM) : c.pass ? MISSED : CAUGHT;
    for (let at = s.offsets[c.index]; at < s.offsets[c.index + 1]; at++) cells[4 * s.slices[at] + cell]++;
  }
  return s.keys.map((key, j) => {
    const [caught, missed, passed, falseAlarms] = cells.subarray(4 * j, 4 * j + 4);
    const n = caught + missed + passed + falseAlarms;
    return {
      key,
      items: s.totals[j],
      covered: n,
      agreement: rateFigure(caught + passed, n),
      sensitivity: rateFigure(caught, caught + missed),
      specificity: rateFigure(passed, passed + falseAlarms),
    };
  });
}

/**
 * Cost per 1,000 rollouts (1000 × the mean cost of the calls made on the audited items, failed ones included: they
 * were paid for) and the median latency of those calls; each null when no call measured it.
 */
export function costFigures(results: readonly (CandidateResult | undefined)[]) {
  let costSum = 0;
  let costMeasured = 0;
  // sorted natively as a typed array (no comparator): the sort was most of this function
  const latencies = new Float64Array(results.length);
  let latencyMeasured = 0;
  for (const r of results) {
    if (!r) continue;
    if (r.costUsd !== undefined && r.costUsd !== null) {
      costSum += r.costUsd;
      costMeasured++;
    }
    if (r.latencyMs !== undefined && r.latencyMs !== null) latencies[latencyMeasured++] = r.latencyMs;
  }
  return {
    costPer1000: costMeasured ? (1000 * costSum) / costMeasured : null,
    costMeasured,
    medianLatencyMs: quantileSorted(latencies.subarray(0, latencyMeasured).sort(), 0.5),
    latencyMeasured,
  };
}

/** The pass threshold of a candidate's row. */
export function thresholdOf(c: Candidate): number {
  return c.threshold ?? DEFAULT_PASS_THRESHOLD;
}
