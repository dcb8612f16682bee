// One row of the reward leaderboard: how one candidate's rewards on the audited items stand against the blind human
// judgements. The agreement coefficients are the agreement report's own (κ with its bootstrap interval, AC1 and PABAK
// with Gwet's t intervals, positive and negative agreement, through lib/agreement/report.ts prevalenceProof), and every
// figure goes through the report's Figure shapes, so the same 30-item minimum reads "too few to say" here as there.

import { rateFigure, statFigure, type Figure, type RateFigure } from "@/lib/agreement/figures.ts";
import { prevalenceProof } from "@/lib/agreement/report.ts";
import {
  DEFAULT_PASS_THRESHOLD,
  MISSING_REASONS,
  NOT_RUN,
  OK_STATUS,
  RESULT_STATUSES,
  type AuditedItem,
  type Candidate,
  type MissingReason,
  type PairwiseJudgement,
  type ResultColumns,
} from "@/lib/leaderboard/input.ts";
import { binaryKappa } from "@/lib/stats/agreement.ts";
import {
  meanAbsoluteError,
  meanAbsoluteErrorInterval,
  spearman,
  spearmanIntervalOf,
  spearmanUndefinedReason,
} from "@/lib/stats/correlation.ts";
import { quantileOfUnsorted } from "@/lib/stats/descriptive.ts";
import { kappaIntervalOfMatrix, kappaUndefinedReason } from "@/lib/stats/kappa.ts";
import { orderingAgreement, type PairJudgementObs } from "@/lib/stats/ordering-agreement.ts";

/** The κ bootstrap's seed and resamples: fixed, so a row reads the same on every load. */
export const LEADERBOARD_SEED = 20261206;
const KAPPA_ITERATIONS = 1000;

/**
 * The audited items a candidate scored, as columns in the items' order: the item's index in the items, the
 * candidate's reward and the human's, and the two verdicts (1: pass).
 */
export type Covered = {
  index: Int32Array;
  reward: Float64Array;
  human: Float64Array;
  pass: Uint8Array;
  humanPass: Uint8Array;
};

export type Coverage = {
  items: number;
  covered: number;
  /** Items without a reward from the candidate, by reason; they add up to items − covered. */
  missing: Record<MissingReason, number>;
  /** Of the items it was run on, the share that failed (error, timeout, invalid output, unavailable). */
  failureShare: RateFigure;
};

/**
 * Splits the audited items into those the candidate scored and the count missing for each reason, reading its
 * columns at each item's slot (`slots`, itemSlots: −1 for none).
 */
export function coverageOf(
  c: ResultColumns,
  slots: Int32Array,
  items: readonly AuditedItem[],
  threshold: number,
): { covered: Covered; coverage: Coverage } {
  const missing = Object.fromEntries(MISSING_REASONS.map((r) => [r, 0])) as Record<MissingReason, number>;
  const n = items.length;
  const covered = {
    index: new Int32Array(n),
    reward: new Float64Array(n),
    human: new Float64Array(n),
    pass: new Uint8Array(n),
    humanPass: new Uint8Array(n),
  };
  let k = 0;
  for (let index = 0; index < n; index++) {
    // the columns read in place: an object per covered item and row, and a lookup by a number-like key per item,
    // were most of the build at 20 versions × 10,000 items
    const slot = slots[index];
    const code = slot < 0 ? NOT_RUN : c.status[slot];
    if (code === NOT_RUN) missing.not_run++;
    else if (code !== OK_STATUS) missing[RESULT_STATUSES[code - 1] as MissingReason]++;
    else {
      const item = items[index];
      const reward = c.reward[slot];
      covered.index[k] = index;
      covered.reward[k] = reward;
      covered.human[k] = item.human.reward;
      covered.pass[k] = reward >= threshold ? 1 : 0;
      covered.humanPass[k] = item.human.verdict === "pass" ? 1 : 0;
      k++;
    }
  }
  const run = n - missing.not_run;
  const coverage: Coverage = { items: n, covered: k, missing, failureShare: rateFigure(run - k, run) };
  return {
    covered: {
      index: covered.index.subarray(0, k),
      reward: covered.reward.subarray(0, k),
      human: covered.human.subarray(0, k),
      pass: covered.pass.subarray(0, k),
      humanPass: covered.humanPass.subarray(0, k),
    },
    coverage,
  };
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
export function verdictFigures(covered: Covered) {
  const table = [
    [0, 0],
    [0, 0],
  ];
  const n = covered.index.length;
  for (let k = 0; k < n; k++) table[1 - covered.pass[k]][1 - covered.humanPass[k]]++;
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
export function rewardFigures(covered: Covered): { mae: Figure; spearman: Figure } {
  const fn = Array.from(covered.reward);
  const human = Array.from(covered.human);
  const n = fn.length;
  const rho = spearman(fn, human);
  return {
    mae: statFigure(meanAbsoluteError(fn, human), n, meanAbsoluteErrorInterval(fn, human)),
    spearman: statFigure(rho, n, spearmanIntervalOf(rho, n), {
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
export function orderingFigures(
  c: ResultColumns,
  slots: { left: Int32Array; right: Int32Array },
  pairwise: readonly PairwiseJudgement[],
): OrderingFigures | null {
  if (pairwise.length === 0) return null;
  const obs: PairJudgementObs[] = new Array(pairwise.length);
  for (let k = 0; k < pairwise.length; k++) {
    // each side's reward read in place (NaN: none): an object per side, judgement and row was most of this figure
    const l = rewardIn(c, slots.left[k]);
    const r = rewardIn(c, slots.right[k]);
    const side = pairwise[k].preferred;
    const verdict =
      Number.isNaN(l) || Number.isNaN(r) || l === r
        ? "ledger_tie"
        : side === "tie"
          ? "tie"
          : side === (l > r ? "left" : "right")
            ? "agree"
            : "inversion";
    obs[k] = { side, inclusionProb: pairwise[k].inclusionProb ?? 1, verdict };
  }
  const o = orderingAgreement(obs);
  return {
    agreement: rateFigure(o.agree, o.agree + o.inversions),
    agree: o.agree,
    inversions: o.inversions,
    ties: o.ties,
    unordered: o.unordered,
  };
}

/** The reward in a slot of the columns; NaN when there is none (not run, failed, or slot −1). */
const rewardIn = (c: ResultColumns, slot: number) =>
  slot >= 0 && c.status[slot] === OK_STATUS ? c.reward[slot] : Number.NaN;

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
  // a set only where a key could repeat (most items have no key or one)
  const perItem = items.map((i) => {
    const keys = keysOf(i);
    return keys.length < 2 ? keys : [...new Set(keys)];
  });
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
export function breakdown(s: Slices, covered: Covered): Breakdown[] {
  const cells = new Int32Array(4 * s.keys.length);
  for (let k = 0; k < covered.index.length; k++) {
    const pass = covered.pass[k];
    const cell = covered.humanPass[k] ? (pass ? PASSED : FALSE_ALARM) : pass ? MISSED : CAUGHT;
    const index = covered.index[k];
    for (let at = s.offsets[index]; at < s.offsets[index + 1]; at++) cells[4 * s.slices[at] + cell]++;
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
export function costFigures(c: ResultColumns, slots: Int32Array) {
  let costSum = 0;
  let costMeasured = 0;
  // the median by selection, not a sort (which was most of this function, even natively as a typed array)
  const latencies = new Float64Array(slots.length);
  let latencyMeasured = 0;
  // item by item (a rollout two items share is counted for each), NaN being not measured
  for (let i = 0; i < slots.length; i++) {
    const slot = slots[i];
    if (slot < 0 || c.status[slot] === NOT_RUN) continue;
    const cost = c.costUsd[slot];
    if (!Number.isNaN(cost)) {
      costSum += cost;
      costMeasured++;
    }
    const latency = c.latencyMs[slot];
    if (!Number.isNaN(latency)) latencies[latencyMeasured++] = latency;
  }
  return {
    costPer1000: costMeasured ? (1000 * costSum) / costMeasured : null,
    costMeasured,
    medianLatencyMs: quantileOfUnsorted(latencies.subarray(0, latencyMeasured), 0.5),
    latencyMeasured,
  };
}

/** The pass threshold of a candidate's row. */
export function thresholdOf(c: Candidate): number {
  return c.threshold ?? DEFAULT_PASS_THRESHOLD;
}
