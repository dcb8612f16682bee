// The reward leaderboard: one row per candidate (the ledger's own reward and each reward-function version) over the
// same audited items, scored against the blind human judgements, sortable by any column. Pure: the loader hands it
// a LeaderboardInput (lib/leaderboard/input.ts).

import { MIN_N_FOR_RATE } from "@/lib/stats/small-sample.ts";
import {
  checkLeaderboardInput,
  columnsOf,
  itemSlots,
  pairSlots,
  type Candidate,
  type LeaderboardInput,
  type RolloutSlots,
} from "@/lib/leaderboard/input.ts";
import {
  breakdown,
  costFigures,
  coverageOf,
  orderingFigures,
  rewardFigures,
  sliceItems,
  thresholdOf,
  type Slices,
  verdictFigures,
} from "@/lib/leaderboard/row.ts";
import { rerunSummary } from "@/lib/leaderboard/stability.ts";

type Shared = {
  slices: { guardrails: Slices; categories: Slices };
  /**
   * The items' and the pairwise judgements' slots in a candidate's columns (itemSlots, pairSlots), once per layout:
   * the loader's candidates share one.
   */
  slotsIn: (rollouts: RolloutSlots) => { items: Int32Array; pairs: ReturnType<typeof pairSlots> };
};

function buildRow(c: Candidate, input: LeaderboardInput, { slices, slotsIn }: Shared) {
  const threshold = thresholdOf(c);
  const results = columnsOf(c.results);
  const slots = slotsIn(results.rollouts);
  const { covered, coverage } = coverageOf(results, slots.items, input.items, threshold);
  const probe = c.probe ? rerunSummary(c.probe, threshold) : null;
  return {
    id: c.id,
    label: c.label,
    kind: c.kind,
    /** The ledger's own reward: the row the others are measured against. */
    isLedger: c.kind === "ledger",
    threshold,
    coverage,
    verdict: verdictFigures(covered),
    reward: rewardFigures(covered),
    /** null when the items have no pairwise judgements. */
    ordering: orderingFigures(results, slots.pairs, input.pairwise),
    guardrails: breakdown(slices.guardrails, covered),
    categories: breakdown(slices.categories, covered),
    cost: costFigures(results, slots.items),
    probe,
    retest: c.retest ? rerunSummary(c.retest, threshold) : null,
    /** The injection probe moved its reward or flipped a verdict. */
    flagged: probe?.moved ?? false,
  };
}

export type LeaderboardRow = ReturnType<typeof buildRow>;

/** Every row of the leaderboard, in the order the candidates were given; sortLeaderboard orders them. */
export function buildLeaderboard(input: LeaderboardInput) {
  checkLeaderboardInput(input);
  // the items' slices and slots are the same for every row: indexed once per build
  const slots = new Map<RolloutSlots, ReturnType<Shared["slotsIn"]>>();
  const shared: Shared = {
    slices: {
      guardrails: sliceItems(input.items, (i) => i.guardrails),
      categories: sliceItems(input.items, (i) => (i.category === null ? [] : [i.category])),
    },
    slotsIn: (rollouts) => {
      let found = slots.get(rollouts);
      if (!found)
        slots.set(
          rollouts,
          (found = { items: itemSlots(input.items, rollouts), pairs: pairSlots(input.pairwise, rollouts) }),
        );
      return found;
    },
  };
  return {
    items: input.items.length,
    pairwiseJudgements: input.pairwise.length,
    minItems: MIN_N_FOR_RATE,
    rows: input.candidates.map((c) => buildRow(c, input, shared)),
  };
}

export type Leaderboard = ReturnType<typeof buildLeaderboard>;

/** The columns the leaderboard sorts by, each with its value and whether higher is better. */
export const SORT_COLUMNS = {
  agreement: { value: (r: LeaderboardRow) => r.verdict.agreement.value, higherIsBetter: true },
  kappa: { value: (r: LeaderboardRow) => r.verdict.kappa.value, higherIsBetter: true },
  ac1: { value: (r: LeaderboardRow) => r.verdict.ac1.value, higherIsBetter: true },
  pabak: { value: (r: LeaderboardRow) => r.verdict.pabak.value, higherIsBetter: true },
  sensitivity: { value: (r: LeaderboardRow) => r.verdict.sensitivity.value, higherIsBetter: true },
  specificity: { value: (r: LeaderboardRow) => r.verdict.specificity.value, higherIsBetter: true },
  mae: { value: (r: LeaderboardRow) => r.reward.mae.value, higherIsBetter: false },
  spearman: { value: (r: LeaderboardRow) => r.reward.spearman.value, higherIsBetter: true },
  ordering: { value: (r: LeaderboardRow) => r.ordering?.agreement.value ?? null, higherIsBetter: true },
  covered: { value: (r: LeaderboardRow) => r.coverage.covered, higherIsBetter: true },
  failureShare: { value: (r: LeaderboardRow) => r.coverage.failureShare.value, higherIsBetter: false },
  cost: { value: (r: LeaderboardRow) => r.cost.costPer1000, higherIsBetter: false },
  latency: { value: (r: LeaderboardRow) => r.cost.medianLatencyMs, higherIsBetter: false },
} as const;
export type SortColumn = keyof typeof SORT_COLUMNS;

/**
 * The rows sorted by a column, best first (highest agreement, lowest MAE, cheapest …) unless `direction` says
 * otherwise. Rows whose value is undefined (no data, κ not defined) go last whichever the direction; ties keep the
 * ledger first, then the label's order. A row below the minimum sorts by its value like the others: its label reads
 * "too few to say", and the page shows it so.
 */
export function sortLeaderboard(
  rows: readonly LeaderboardRow[],
  column: SortColumn,
  direction?: "asc" | "desc",
): LeaderboardRow[] {
  const col = SORT_COLUMNS[column];
  const sign = (direction ?? (col.higherIsBetter ? "desc" : "asc")) === "desc" ? -1 : 1;
  return [...rows].sort((a, b) => {
    const va = col.value(a);
    const vb = col.value(b);
    if (va === null || vb === null) {
      if (va !== vb) return va === null ? 1 : -1;
    } else if (va !== vb) return sign * (va - vb);
    if (a.isLedger !== b.isLedger) return a.isLedger ? -1 : 1;
    return a.label.localeCompare(b.label);
  });
}
