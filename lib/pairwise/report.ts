// The pairwise report: ordering agreement of the human judgements with the ledger's order of each pair, its
// breakdowns, agreement between annotators on overlap pairs, position bias, the inversions ranked by reward gap and
// their adjudication tally. Pure: computed from loadPairReportItems' rows by lib/stats. Each pair counts once
// against the ledger, through its first counted judgement (the primary one, as on the ticket report); the further
// judgements of overlap pairs feed only the between-annotator figures. Every figure is a Figure
// (lib/agreement/figures.ts): below 30 judgements it reads "too few to say", with n and its interval.
import { rateFigure, statFigure, weightedFigure, type Figure, type RateFigure } from "@/lib/agreement/figures.ts";
import type { AgreementBasis } from "@/lib/agreement/schema.ts";
import { DISAGREEMENT_CAUSES, type DisagreementCause } from "@/lib/agreement/causes.ts";
import { ledgerOrder, type OrderVerdict } from "@/lib/ledger/order.ts";
import type { PairJudgementRow, PairReportItem, PairSideRow } from "@/lib/pairwise/report-data.ts";
import { gwetAc1 } from "@/lib/stats/chance-corrected.ts";
import { cohensKappa, cohensKappaInterval } from "@/lib/stats/kappa.ts";
import { gapBin, orderingAgreement, type PairJudgementObs } from "@/lib/stats/ordering-agreement.ts";

export type PairReportOptions = { basis: AgreementBasis; delta: number; window: number };

/** The choice of a judgement named by rollout, the categories of the between-annotator coefficients. */
export const PAIR_LABELS = ["A", "B", "tie"] as const;
export type PairLabel = (typeof PAIR_LABELS)[number];

const SEED = 20261201;
const ITERATIONS = 500;

export type OrderingFigures = {
  /** Counted judgements in the row (primary ones). */
  judgements: number;
  agree: number;
  inversions: number;
  ties: number;
  /** Pairs the ledger scores equal, or with a reward missing: no order to agree with. */
  unordered: number;
  /** agree / (agree + inversions), Wilson interval. */
  agreement: RateFigure;
  /** ties / (agree + inversions + ties). */
  tieShare: RateFigure;
};

export type BreakdownRow = OrderingFigures & { key: string };

export type InversionRow = {
  itemId: string;
  batchId: number;
  ticketId: string;
  step: number;
  stratum: string | null;
  /** |reward A − reward B| on the report's basis. */
  gap: number;
  /** The rollout the ledger rewards higher, and the lower one the human preferred. */
  higher: { trajectoryId: string; reward: number };
  lower: { trajectoryId: string; reward: number };
  /** Counted judgements of the pair preferring the lower-scored rollout, of all counted ones. */
  inverted: number;
  counted: number;
  cause: DisagreementCause | null;
};

/** Verdict of one judgement against the pair's ledger order on `basis` (a missing current entry keeps the recorded one). */
export function judgementVerdict(i: PairReportItem, j: PairJudgementRow, basis: AgreementBasis) {
  const side = (s: PairSideRow) => ({
    trajectoryId: s.trajectoryId,
    reward: (basis === "now" ? (s.now ?? s.reviewed) : s.reviewed).reward,
  });
  return ledgerOrder(side(i.a), side(i.b), j.preferredTrajectoryId);
}

/** The choice as a category over rollouts (A = the item's rollout, B = its second): what two annotators can share. */
export function pairLabel(i: PairReportItem, j: PairJudgementRow): PairLabel {
  if (j.preferredTrajectoryId === null) return "tie";
  return j.preferredTrajectoryId === i.a.trajectoryId ? "A" : "B";
}

const counted = (i: PairReportItem) => i.judgements.filter((j) => j.excludedReason === null);

type Primary = { item: PairReportItem; verdict: OrderVerdict; gap: number | null; obs: PairJudgementObs };

function figures(rows: readonly Primary[]): OrderingFigures {
  const o = orderingAgreement(rows.map((r) => r.obs));
  return {
    judgements: rows.length,
    agree: o.agree,
    inversions: o.inversions,
    ties: o.ties,
    unordered: o.unordered,
    agreement: rateFigure(o.agreement.k, o.agreement.n),
    tieShare: rateFigure(o.tieShare.k, o.tieShare.n),
  };
}

function breakdown(rows: readonly Primary[], key: (r: Primary) => string, order: (a: string, b: string) => number) {
  const groups = new Map<string, Primary[]>();
  for (const r of rows) groups.set(key(r), [...(groups.get(key(r)) ?? []), r]);
  return [...groups.entries()]
    .sort(([a], [b]) => order(a, b))
    .map(([k, g]): BreakdownRow => ({ key: k, ...figures(g) }));
}

/** Step window of a step: [lo, lo + width − 1] with lo a multiple of the width. */
export function stepWindow(step: number, width: number): string {
  const lo = Math.floor(step / width) * width;
  return `${lo}–${lo + width - 1}`;
}

/**
 * κ and AC1 between annotators over pairs judged by two or more (counted judgements): the first two judgements of
 * each pair as two raters, over the three categories A / B / tie (a pair's left/right order is the same for
 * everyone, so sides and rollouts are the same category). κ is Cohen's with a seeded bootstrap interval; AC1 is
 * Gwet's on the 3×3 table (q = 3) with its t interval.
 */
export function betweenAnnotators(items: readonly PairReportItem[]) {
  const pairs: [PairLabel, PairLabel][] = [];
  for (const i of items) {
    const c = counted(i);
    if (c.length >= 2) pairs.push([pairLabel(i, c[0]), pairLabel(i, c[1])]);
  }
  const table = PAIR_LABELS.map((r) => PAIR_LABELS.map((c) => pairs.filter(([x, y]) => x === r && y === c).length));
  const n = pairs.length;
  const none = n === 0 ? "no pair was judged by two annotators" : null;
  const kappa = n ? cohensKappa(pairs) : null;
  const kappaIv = kappa === null ? null : cohensKappaInterval(pairs, { seed: SEED, iterations: ITERATIONS });
  const ac1 = n ? gwetAc1(table) : null;
  const agreeing = pairs.filter(([x, y]) => x === y).length;
  return {
    pairs: n,
    table,
    rawAgreement: rateFigure(agreeing, n),
    kappa: statFigure(kappa, n, kappaIv, {
      undefinedReason: none ?? "the two annotators' choices leave no room for chance correction",
    }),
    ac1: statFigure(ac1?.value ?? null, n, ac1?.interval ?? null, {
      undefinedReason: none ?? "the two annotators' choices all fall in one category: nothing to tell apart",
    }),
  };
}

const GAP_ORDER = (delta: number) => [
  gapBin(0, delta),
  gapBin(delta + 1e-9, delta),
  gapBin(0.3, delta),
  gapBin(1, delta),
];

export function buildPairReport(items: readonly PairReportItem[], opts: PairReportOptions) {
  const primary: Primary[] = [];
  let excluded = 0;
  for (const item of items) {
    const c = counted(item);
    excluded += item.judgements.length - c.length;
    if (!c.length) continue;
    const o = judgementVerdict(item, c[0], opts.basis);
    primary.push({
      item,
      verdict: o.verdict,
      gap: o.gap,
      obs: { verdict: o.verdict, side: c[0].choice, inclusionProb: item.inclusionProb },
    });
  }
  const overall = orderingAgreement(primary.map((p) => p.obs));
  // 1/π matters only when the pairs had unequal inclusion probabilities (a stratified or topped-up batch).
  const probs = primary.map((p) => p.item.inclusionProb);
  const stratified = probs.some((p) => Math.abs(p - probs[0]) > 1e-12);
  const left = rateFigure(overall.leftShare.k, overall.leftShare.n);
  const gapOrder = GAP_ORDER(opts.delta);
  const rank = (list: string[]) => (a: string, b: string) =>
    (list.indexOf(a) < 0 ? 99 : list.indexOf(a)) - (list.indexOf(b) < 0 ? 99 : list.indexOf(b)) || a.localeCompare(b);
  const byText = (a: string, b: string) => a.localeCompare(b);
  const byNumber = (a: string, b: string) => parseInt(a, 10) - parseInt(b, 10);

  const inversions = inversionRows(items, opts.basis);
  return {
    basis: opts.basis,
    delta: opts.delta,
    window: opts.window,
    pairs: primary.length,
    /** Judgements recorded but not counted (their author could have seen a ledger number), listed apart. */
    excluded,
    stratified,
    overall: { ...figures(primary), weighted: stratified ? weightedFigure(overall.weighted) : null },
    position: {
      /** left / (left + right) over the counted non-tie choices: its interval should contain 0.5. */
      leftShare: left,
      containsHalf: left.interval ? left.interval.lower <= 0.5 && 0.5 <= left.interval.upper : null,
    },
    byGap: breakdown(primary, (p) => (p.gap === null ? "unscored" : gapBin(p.gap, opts.delta)), rank(gapOrder)),
    byStratum: breakdown(primary, (p) => p.item.stratum ?? "none", byText),
    byCategory: breakdown(primary, (p) => p.item.category ?? "uncategorised", byText),
    byWindow: breakdown(primary, (p) => stepWindow(p.item.step, opts.window), byNumber),
    betweenAnnotators: betweenAnnotators(items),
    inversions,
    tally: tallyOf(items, inversions),
  };
}
export type PairReport = ReturnType<typeof buildPairReport>;

/**
 * Pairs where a counted judgement prefers the rollout the ledger rewards lower (on the basis), largest reward gap
 * first: the strongest evidence that the ledger pushes the policy the wrong way, and what a lead adjudicates.
 */
export function inversionRows(items: readonly PairReportItem[], basis: AgreementBasis): InversionRow[] {
  const out: InversionRow[] = [];
  for (const item of items) {
    const c = counted(item);
    const verdicts = c.map((j) => judgementVerdict(item, j, basis));
    const inverted = verdicts.filter((v) => v.verdict === "inversion").length;
    if (!inverted) continue;
    const o = verdicts.find((v) => v.verdict === "inversion")!;
    const reward = (s: PairSideRow) => (basis === "now" ? (s.now ?? s.reviewed) : s.reviewed).reward!;
    const [hi, lo] = o.ledgerPreferred === item.a.trajectoryId ? [item.a, item.b] : [item.b, item.a];
    out.push({
      itemId: item.itemId.toString(),
      batchId: item.batchId,
      ticketId: item.ticketId,
      step: item.step,
      stratum: item.stratum,
      gap: o.gap!,
      higher: { trajectoryId: hi.trajectoryId, reward: reward(hi) },
      lower: { trajectoryId: lo.trajectoryId, reward: reward(lo) },
      inverted,
      counted: c.length,
      cause: (item.adjudication?.cause as DisagreementCause | undefined) ?? null,
    });
  }
  return out.sort((x, y) => y.gap - x.gap || Number(BigInt(x.itemId) - BigInt(y.itemId)));
}

/** Current verdicts on the scope's pairs by cause, and the inversions still waiting for one. */
function tallyOf(items: readonly PairReportItem[], inversions: readonly InversionRow[]) {
  const byCause = Object.fromEntries(DISAGREEMENT_CAUSES.map((c) => [c, 0])) as Record<DisagreementCause, number>;
  let total = 0;
  for (const i of items)
    if (i.adjudication) {
      byCause[i.adjudication.cause as DisagreementCause]++;
      total++;
    }
  return { total, pending: inversions.filter((r) => r.cause === null).length, byCause };
}

const fig = (f: Figure) => ({
  value: f.value,
  n: f.n,
  label: f.label,
  too_few: f.tooFew,
  interval: f.interval,
  detail: f.detail,
});
const ordering = (o: OrderingFigures) => ({
  judgements: o.judgements,
  agree: o.agree,
  inversions: o.inversions,
  ties: o.ties,
  unordered: o.unordered,
  agreement: fig(o.agreement),
  tie_share: fig(o.tieShare),
});
const rows = (list: BreakdownRow[]) => list.map((r) => ({ key: r.key, ...ordering(r) }));

/** The report as JSON (snake_case, like the ticket report's): what the console route and `GET /api/v1` return. */
export function pairReportJson(r: PairReport, scope: { runId: string; batchId: number | null }, truncated: boolean) {
  return {
    run: scope.runId,
    batch: scope.batchId,
    basis: r.basis,
    delta: r.delta,
    window: r.window,
    pairs: r.pairs,
    excluded_judgements: r.excluded,
    truncated,
    stratified: r.stratified,
    ordering: { ...ordering(r.overall), weighted: r.overall.weighted && fig(r.overall.weighted) },
    position_bias: { left_share: fig(r.position.leftShare), contains_half: r.position.containsHalf },
    by_gap: rows(r.byGap),
    by_stratum: rows(r.byStratum),
    by_category: rows(r.byCategory),
    by_window: rows(r.byWindow),
    between_annotators: {
      pairs: r.betweenAnnotators.pairs,
      categories: PAIR_LABELS,
      table: r.betweenAnnotators.table,
      raw_agreement: fig(r.betweenAnnotators.rawAgreement),
      kappa: fig(r.betweenAnnotators.kappa),
      ac1: fig(r.betweenAnnotators.ac1),
    },
    inversions: r.inversions.map((i) => ({
      item_id: i.itemId,
      batch_id: i.batchId,
      ticket_id: i.ticketId,
      step: i.step,
      stratum: i.stratum,
      gap: i.gap,
      higher: { trajectory_id: i.higher.trajectoryId, reward: i.higher.reward },
      lower: { trajectory_id: i.lower.trajectoryId, reward: i.lower.reward },
      inverted_judgements: i.inverted,
      counted_judgements: i.counted,
      cause: i.cause,
    })),
    adjudication: { adjudicated: r.tally.total, pending: r.tally.pending, by_cause: r.tally.byCause },
  };
}
