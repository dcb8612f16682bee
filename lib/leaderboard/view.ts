// The leaderboard as its readers get it — the page, GET /api/v1/reward-leaderboard (JSON or CSV) and
// `verity reward compare`: the rows sorted by the chosen column, each with where its function is read, and the head to
// head of the two rows named, its disagreements filtered by the side the human took and placed (rollout, group).
// Pure: handed what lib/leaderboard/data.ts read.
import type { RateFigure, Figure } from "@/lib/agreement/figures.ts";
import { buildLeaderboard, sortLeaderboard, type LeaderboardRow } from "@/lib/leaderboard/build.ts";
import { disagreementsBySide, headToHead, type Disagreement } from "@/lib/leaderboard/head-to-head.ts";
import { MISSING_REASONS, type LeaderboardInput } from "@/lib/leaderboard/input.ts";
import type { ItemPlace, VersionInfo } from "@/lib/leaderboard/data.ts";
import type { LeaderboardQuery } from "@/lib/leaderboard/schema.ts";
import { csvCell } from "@/lib/ledger/export-rows.ts";

export type LeaderboardSource = {
  runId: string;
  batch: { id: number; name: string } | null;
  input: LeaderboardInput;
  places: Map<string, ItemPlace>;
  versions: Map<string, VersionInfo>;
};

export type PlacedDisagreement = Disagreement & { place: ItemPlace | null };

/** The view, or which parameter names a row the leaderboard does not have. */
export function leaderboardView(src: LeaderboardSource, q: LeaderboardQuery) {
  const board = buildLeaderboard(src.input);
  const rows = sortLeaderboard(board.rows, q.sort, q.dir);
  for (const key of ["a", "b"] as const) {
    const id = q[key];
    if (id !== undefined && !rows.some((r) => r.id === id))
      return { ok: false as const, error: `${key}: no row ${id} on this leaderboard` };
  }
  const h = q.a !== undefined && q.b !== undefined ? headToHead(src.input, q.a, q.b) : null;
  return {
    ok: true as const,
    scope: {
      run: src.runId,
      batch: src.batch,
      from: q.from ?? null,
      to: q.to ?? null,
      sort: q.sort,
      dir: q.dir ?? null,
    },
    items: board.items,
    pairwiseJudgements: board.pairwiseJudgements,
    minItems: board.minItems,
    rows: rows.map((r) => ({ ...r, function: src.versions.get(r.id) ?? null })),
    headToHead: h && {
      ...h,
      side: q.side,
      disagreements: disagreementsBySide(h, q.side).map((d): PlacedDisagreement => ({
        ...d,
        place: src.places.get(d.rolloutId) ?? null,
      })),
      /** How many disagreements the human sided with each (the filter's counts). */
      sides: {
        a: h.disagreements.filter((d) => d.humanSide === "a").length,
        b: h.disagreements.filter((d) => d.humanSide === "b").length,
      },
    },
  };
}

export type LeaderboardView = Extract<ReturnType<typeof leaderboardView>, { ok: true }>;
export type ViewRow = LeaderboardView["rows"][number];

const rate = (f: RateFigure | Figure) => [f.value, f.interval?.lower, f.interval?.upper, f.n];

/** The CSV's columns: each figure with its interval's bounds and its n; the missing items by reason. */
const CSV_COLUMNS: [string, (r: LeaderboardRow) => unknown[]][] = [
  ["id,label,kind,ledger,threshold", (r) => [r.id, r.label, r.kind, r.isLedger, r.threshold]],
  ["items,covered", (r) => [r.coverage.items, r.coverage.covered]],
  [MISSING_REASONS.map((m) => `missing_${m}`).join(","), (r) => MISSING_REASONS.map((m) => r.coverage.missing[m])],
  ["failure_share,failure_share_lower,failure_share_upper,failure_share_n", (r) => rate(r.coverage.failureShare)],
  ["agreement,agreement_lower,agreement_upper,agreement_n", (r) => rate(r.verdict.agreement)],
  ["kappa,kappa_lower,kappa_upper,kappa_n", (r) => rate(r.verdict.kappa)],
  ["ac1,ac1_lower,ac1_upper,ac1_n", (r) => rate(r.verdict.ac1)],
  ["pabak,pabak_lower,pabak_upper,pabak_n", (r) => rate(r.verdict.pabak)],
  ["sensitivity,sensitivity_lower,sensitivity_upper,sensitivity_n", (r) => rate(r.verdict.sensitivity)],
  ["specificity,specificity_lower,specificity_upper,specificity_n", (r) => rate(r.verdict.specificity)],
  ["mae,mae_lower,mae_upper,mae_n", (r) => rate(r.reward.mae)],
  ["spearman,spearman_lower,spearman_upper,spearman_n", (r) => rate(r.reward.spearman)],
  [
    "ordering,ordering_lower,ordering_upper,ordering_n",
    (r) => (r.ordering ? rate(r.ordering.agreement) : [null, null, null, 0]),
  ],
  ["cost_per_1000,median_latency_ms", (r) => [r.cost.costPer1000, r.cost.medianLatencyMs]],
  ["flagged", (r) => [r.flagged]],
];

/** One line per row, in the view's order, under a header line. */
export function leaderboardCsv(rows: readonly LeaderboardRow[]): string {
  const header = CSV_COLUMNS.map(([h]) => h).join(",");
  const lines = rows.map((r) =>
    CSV_COLUMNS.flatMap(([, cells]) => cells(r))
      .map(csvCell)
      .join(","),
  );
  return [header, ...lines].join("\n") + "\n";
}
