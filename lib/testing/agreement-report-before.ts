// Baseline kept on purpose: the agreement report as it was built before the bootstrap and bases rewrite of 2026-12-02
// (the code of lib/agreement/report.ts, lib/agreement/bases.ts's compareBases and the four interval functions of
// lib/stats it called, as they were), kept for bench/agreement.ts to time before and after in the same run and for
// lib/agreement/report-same.test.ts to check that no figure moved. Test support, not product code: only bench/ and
// that test import it; what did not change since (pairs, filters, figures, the kappa and alpha point estimates) it
// takes from lib/.
import type { AgreementItem } from "@/lib/agreement/data.ts";
import { onBasis } from "@/lib/agreement/data.ts";
import type { BasisComparison, BasisRate } from "@/lib/agreement/bases.ts";
import { rateFigure, statFigure, weightedFigure, type Figure } from "@/lib/agreement/figures.ts";
import { extractionPairs } from "@/lib/agreement/extraction.ts";
import {
  applyGuardrailFilter,
  countedItems,
  excludedReviews,
  overlapItems,
  primaryPairs,
  reviewDay,
  type PrimaryPair,
} from "@/lib/agreement/pairs.ts";
import type { AgreementFilter } from "@/lib/agreement/schema.ts";
import { DISAGREEMENT_CAUSES } from "@/lib/agreement/causes.ts";
import {
  agreementRate,
  binaryKappa,
  dimensionAgreement,
  guardrailAgreement,
  scoresAgree,
  SUCCESS_THRESHOLD,
  VERDICT_RATERS,
  type ScorePair,
  type VerdictKappa,
} from "@/lib/stats/agreement.ts";
import {
  brennanPrediger,
  chanceCorrectedRaw,
  coefficientToRead,
  gwetAc1,
  PREVALENCE_NOTE,
  type ChanceCorrected,
} from "@/lib/stats/chance-corrected.ts";
import { meanAbsoluteErrorInterval, spearmanInterval, spearmanUndefinedReason } from "@/lib/stats/correlation.ts";
import { isFiniteNumber } from "@/lib/stats/descriptive.ts";
import { extractionAccuracy } from "@/lib/stats/extraction-accuracy.ts";
import { bootstrapCI, type BootstrapInterval, type BootstrapOptions } from "@/lib/stats/intervals.ts";
import {
  confusionMatrix,
  kappaFromMatrix,
  kappaUndefinedReason,
  type Label,
  type LabelPair,
  type RaterNames,
} from "@/lib/stats/kappa.ts";
import { krippendorffAlpha, type AlphaMetric, type Unit } from "@/lib/stats/krippendorff.ts";
import { MIN_N_FOR_RATE } from "@/lib/stats/small-sample.ts";
import { weightedAgreementRate, weightedBinaryAgreement } from "@/lib/stats/weighted.ts";
import { DIMENSIONS, GUARDRAIL_CODES } from "@/lib/verifier/codes.ts";

/**
 * Cohen's κ with a seeded percentile-bootstrap interval over items (default 2000 resamples, 95%). Chosen over the
 * large-sample standard error because shadow samples are small and κ's sampling distribution is skewed near 1.
 * Pairs with a missing side are dropped before resampling. null as for κ, or when fewer than half the
 * resamples have a defined κ.
 */
function cohensKappaIntervalBefore<L extends Label>(
  pairs: readonly LabelPair<L>[],
  options: BootstrapOptions = {},
): BootstrapInterval | null {
  // Resample cell indices rather than label pairs: a resample is then counted into a flat array, no Map per draw.
  const { labels, counts } = confusionMatrix(pairs);
  const k = labels.length;
  const cells: number[] = [];
  for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) for (let c = 0; c < counts[i][j]; c++) cells.push(i * k + j);
  const flat = new Array<number>(k * k);
  const matrix = labels.map(() => new Array<number>(k));
  return bootstrapCI(
    cells,
    (sample) => {
      flat.fill(0);
      for (const cell of sample) flat[cell]++;
      for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) matrix[i][j] = flat[i * k + j];
      return kappaFromMatrix(matrix);
    },
    options,
  );
}

/**
 * Cohen's κ on the success verdict (reward ≥ threshold, default 0.9) of ledger vs human, with a seeded
 * bootstrap interval (see cohensKappaIntervalBefore). Range [−1, 1]. null when n = 0; kappa null, with the reason, when
 * either side gives every item the same verdict (κ undefined; the agreement rate still says how often they agree).
 */
function successVerdictKappaBefore(
  pairs: readonly ScorePair[],
  options: BootstrapOptions & { threshold?: number } = {},
): VerdictKappa | null {
  const { threshold = SUCCESS_THRESHOLD, ...bootstrap } = options;
  const verdicts: (readonly [boolean, boolean])[] = [];
  for (const { human, ledger } of pairs) {
    if (isFiniteNumber(human) && isFiniteNumber(ledger)) verdicts.push([ledger >= threshold, human >= threshold]);
  }
  const matrix = confusionMatrix(verdicts, [true, false]);
  if (matrix.n === 0) return null;
  const kappa = binaryKappa(matrix.counts[0][0], matrix.counts[0][1], matrix.counts[1][0], matrix.counts[1][1]);
  if (kappa === null)
    return {
      kappa,
      undefinedReason: kappaUndefinedReason(matrix.counts, VERDICT_RATERS),
      interval: null,
      matrix,
      n: matrix.n,
    };
  return {
    kappa,
    undefinedReason: null,
    interval: cohensKappaIntervalBefore(verdicts, bootstrap),
    matrix,
    n: matrix.n,
  };
}

/**
 * Seeded percentile bootstrap (see bootstrapCI) of the weighted κ of weightedBinaryAgreement, resampling items with
 * their π. null as for bootstrapCI.
 */
function weightedBinaryKappaIntervalBefore(
  items: readonly { ledger: boolean; human: boolean; inclusionProbability: number }[],
  options: BootstrapOptions = {},
): BootstrapInterval | null {
  return bootstrapCI(items, (sample) => weightedBinaryAgreement(sample)?.kappa ?? null, options);
}

function present<V>(unit: Unit<V>, metric: AlphaMetric): V[] {
  const out: V[] = [];
  for (const v of unit) {
    if (v === null || v === undefined) continue;
    // The interval metric reads numbers only: anything else (which the types already keep out) is missing.
    if (metric === "interval" ? typeof v !== "number" || !Number.isFinite(v) : typeof v === "number" && Number.isNaN(v))
      continue;
    out.push(v);
  }
  return out;
}

function sumOfSquares(values: readonly number[]): number {
  if (values.every((v) => v === values[0])) return 0;
  let m = 0;
  for (const v of values) m += v;
  m /= values.length;
  let ss = 0;
  for (const v of values) ss += (v - m) * (v - m);
  return ss;
}

/**
 * What α needs from a pairable unit, computed once so a bootstrap resample costs O(units) instead of re-reading
 * every rating: m (ratings), the unit's observed-disagreement term, and its values (nominal: category index →
 * count; interval: Σx and Σx²).
 */
type UnitSummary = {
  m: number;
  observed: number;
  categories: [number, number][];
  sum: number;
  sumsq: number;
  first: number;
};

function summarize(
  units: readonly Unit<Label>[],
  metric: AlphaMetric,
): { summaries: UnitSummary[]; categories: number } {
  const index = new Map<Label, number>();
  const summaries: UnitSummary[] = [];
  for (const unit of units) {
    const values = present(unit, metric);
    const m = values.length;
    if (m < 2) continue;
    if (metric === "interval") {
      const xs = values as number[];
      let sum = 0;
      let sumsq = 0;
      for (const x of xs) {
        sum += x;
        sumsq += x * x;
      }
      summaries.push({ m, observed: (m * sumOfSquares(xs)) / (m - 1), categories: [], sum, sumsq, first: xs[0] });
    } else {
      const counts = new Map<number, number>();
      for (const v of values) {
        let c = index.get(v);
        if (c === undefined) index.set(v, (c = index.size));
        counts.set(c, (counts.get(c) ?? 0) + 1);
      }
      let sq = 0;
      for (const c of counts.values()) sq += c * c;
      summaries.push({
        m,
        observed: (m * m - sq) / (m - 1),
        categories: [...counts.entries()],
        sum: 0,
        sumsq: 0,
        first: 0,
      });
    }
  }
  return { summaries, categories: index.size };
}

function alphaOf(summaries: readonly UnitSummary[], metric: AlphaMetric, categories: number): number | null {
  let n = 0;
  let observed = 0;
  for (const u of summaries) {
    n += u.m;
    observed += u.observed;
  }
  if (n < 2) return null;
  if (metric === "nominal") {
    const totals = new Float64Array(categories);
    for (const u of summaries) for (const [c, k] of u.categories) totals[c] += k;
    let sq = 0;
    for (const t of totals) sq += t * t;
    const expected = n * n - sq;
    return expected === 0 ? null : 1 - ((n - 1) * observed) / expected;
  }
  let sum = 0;
  let sumsq = 0;
  let constant = true;
  for (const u of summaries) {
    sum += u.sum;
    sumsq += u.sumsq;
    constant &&= u.observed === 0 && u.first === summaries[0].first;
  }
  // SS = Σx² − (Σx)²/n cancels when all values are (nearly) equal; equal values are detected exactly instead.
  const total = sumsq - (sum * sum) / n;
  if (constant || total <= 1e-12 * sumsq) return null;
  return 1 - ((n - 1) * observed) / (n * total);
}

/**
 * α with a seeded percentile-bootstrap interval over the pairable units (resampled with replacement, each keeping
 * all its ratings). This is the unit bootstrap (e.g. Zapf et al. 2016, BMC Med Res Methodol 16:93), not
 * Krippendorff's own resampling of pairable values; it keeps the dependence among an item's ratings.
 * null as for bootstrapCI.
 */
function krippendorffAlphaIntervalBefore(
  units: readonly Unit<number>[],
  options: BootstrapOptions & { metric: AlphaMetric },
): BootstrapInterval | null;
function krippendorffAlphaIntervalBefore(
  units: readonly Unit<Label>[],
  options: BootstrapOptions & { metric: "nominal" },
): BootstrapInterval | null;
function krippendorffAlphaIntervalBefore(
  units: readonly Unit<Label>[],
  options: BootstrapOptions & { metric: AlphaMetric },
): BootstrapInterval | null {
  const { metric, ...bootstrap } = options;
  const { summaries, categories } = summarize(units, metric);
  return bootstrapCI(summaries, (sample) => alphaOf(sample, metric, categories), bootstrap);
}

function rate(items: AgreementItem[], tolerance: number): BasisRate {
  const pairs = primaryPairs(countedItems(items));
  const agreeing = pairs.filter((p) => scoresAgree(p.human.reward, p.ledger.reward, tolerance)).length;
  return { agreeing, n: pairs.length, rate: pairs.length ? agreeing / pairs.length : null };
}

const itemAgrees = (i: AgreementItem, tolerance: number) =>
  i.reviews.length > 0 && i.ledger.reward !== null && scoresAgree(i.reviews[0].reward, i.ledger.reward, tolerance);

/** Items where the guardrail is flagged by a review or by either ledger: the same items under both bases. */
function flaggedEither(all: AgreementItem[], code: string): AgreementItem[] {
  return all.filter(
    (i) =>
      i.reviews.some((r) => r.guardrails.includes(code)) ||
      (i.bases ?? { reviewed: i.ledger, now: null }).reviewed.guardrails.includes(code as never) ||
      !!i.bases?.now?.guardrails.includes(code as never),
  );
}

/**
 * Both bases over the same items: under a guardrail (the filter's, and each row of `byGuardrail`), the items where
 * a review or either ledger flags it, so a fix that removes a wrong guardrail is seen moving its items rather than
 * taking them out of the count. Items are taken as loaded; `f.basis` is ignored.
 */
function compareBasesBefore(all: AgreementItem[], f: AgreementFilter): BasisComparison {
  const tol = f.tolerance;
  const population = f.guardrail ? flaggedEither(all, f.guardrail) : all;
  const on = (items: AgreementItem[]) => ({ reviewed: onBasis(items, "reviewed"), now: onBasis(items, "now") });
  const both = on(population);
  const reviewedById = new Map(both.reviewed.map((i) => [i.item.itemId, i]));
  const nowById = new Map(both.now.map((i) => [i.item.itemId, i]));
  const rescored = countedItems(population).filter((i) => i.bases?.rescored);
  const flipped = rescored
    .map((i) => {
      const before = itemAgrees(reviewedById.get(i.item.itemId)!, tol);
      const after = itemAgrees(nowById.get(i.item.itemId)!, tol);
      return before === after ? null : { itemId: i.item.itemId.toString(), agreesNow: after };
    })
    .filter((x): x is { itemId: string; agreesNow: boolean } => x !== null);
  const byGuardrail = GUARDRAIL_CODES.map((code) => {
    const g = on(flaggedEither(population, code));
    return { guardrail: code, reviewed: rate(g.reviewed, tol), now: rate(g.now, tol) };
  }).filter((g) => g.reviewed.agreeing !== g.now.agreeing || g.reviewed.n !== g.now.n);
  const r = rate(both.reviewed, tol);
  const n = rate(both.now, tol);
  return {
    reviewed: r,
    now: n,
    rescored: rescored.map((i) => i.item.itemId.toString()),
    flipped,
    byGuardrail,
    differ: r.agreeing !== n.agreeing || r.n !== n.n,
  };
}

const SEED = 20261129;
const NO_OVERLAP = "no item was reviewed by two annotators";
const ITERATIONS = 500;

const GUARDRAIL_RATERS: RaterNames = { a: "the ledger", b: "the human side", what: "flag" };

/** Weighted κ of a binary signal with its bootstrap interval, guarded on the effective n. */
function weightedKappaFigure(
  items: { ledger: boolean; human: boolean; inclusionProbability: number }[],
  raters: RaterNames,
) {
  const w = weightedBinaryAgreement(items);
  if (!w) return null;
  const iv = w.kappa === null ? null : weightedBinaryKappaIntervalBefore(items, { seed: SEED, iterations: ITERATIONS });
  const undefinedReason = kappaUndefinedReason(
    [
      [w.tp, w.fp],
      [w.fn, w.tn],
    ],
    raters,
  );
  return {
    agreement: weightedFigure(w.agreement),
    kappa: statFigure(w.kappa, w.agreement.nEffective, iv, { undefinedReason }),
  };
}

const NOT_RATED = "no item was rated by both";

/** A chance-corrected coefficient as a Figure: n, and its t interval (Gwet's variance). */
function coefficientFigure(c: ChanceCorrected | null, n: number, noneReason = NOT_RATED): Figure {
  return statFigure(c?.value ?? null, c?.n ?? n, c?.interval ?? null, { undefinedReason: c ? null : noneReason });
}

/**
 * Beside κ for one binary signal (success verdict, a guardrail's flag): Gwet's AC1 and PABAK with their intervals, the
 * prevalence on each side (share of items positive) and n, and which coefficient to read at this prevalence.
 * `table` rows: ledger positive / not; columns: human positive / not.
 */
function prevalenceProof(table: readonly (readonly number[])[]) {
  const n = table[0][0] + table[0][1] + table[1][0] + table[1][1];
  const ledger = n ? (table[0][0] + table[0][1]) / n : null;
  const human = n ? (table[0][0] + table[1][0]) / n : null;
  return {
    ac1: coefficientFigure(gwetAc1(table), n),
    pabak: coefficientFigure(brennanPrediger(table), n),
    prevalence: { ledger, human, n },
    read: coefficientToRead([ledger, human]),
  };
}

/** AC1 and PABAK among annotators on one binary signal of the overlap items (each item rated by 2 or more). */
function betweenAnnotators(units: boolean[][]) {
  const none = units.length === 0 ? NO_OVERLAP : "no overlap item has two reviews";
  return {
    ac1: coefficientFigure(chanceCorrectedRaw(units, [true, false], "ac1"), units.length, none),
    pabak: coefficientFigure(chanceCorrectedRaw(units, [true, false], "bp"), units.length, none),
  };
}

type Pairs = PrimaryPair[];

/** The headline against the ledger, and its inverse-probability weighted estimate when the batch was stratified. */
function headlineBefore(pairs: Pairs, tol: number) {
  const scorePairs = pairs.map((p) => ({ human: p.human.reward, ledger: p.ledger.reward }));
  const agree = agreementRate(scorePairs, { tolerance: tol });
  const headlineFigure = rateFigure(agree?.agreeing ?? 0, agree?.n ?? 0);
  const headline = { ...headlineFigure, rate: headlineFigure.value, interval: agree?.interval ?? null };

  // Inverse-probability weights matter only when the batch was stratified (items had unequal inclusion
  // probabilities); with equal π every weighted figure equals the unweighted one and none is shown.
  const probs = pairs.map((p) => p.i.item.inclusionProb);
  const stratified = probs.some((p) => Math.abs(p - probs[0]) > 1e-12);
  const w = stratified
    ? weightedAgreementRate(
        pairs.map((p) => ({
          human: p.human.reward,
          ledger: p.ledger.reward,
          inclusionProbability: p.i.item.inclusionProb,
        })),
        { tolerance: tol },
      )
    : null;
  return { scorePairs, headline, stratified, w };
}

/** The success verdict's κ (and its weighted κ on a stratified batch). */
function verdictBefore(pairs: Pairs, scorePairs: ScorePair[], stratified: boolean) {
  const verdict = successVerdictKappaBefore(scorePairs, { seed: SEED, iterations: 1000 });
  const weightedVerdict = stratified
    ? weightedKappaFigure(
        pairs.map((p) => ({
          ledger: p.ledger.reward >= SUCCESS_THRESHOLD,
          human: p.human.reward >= SUCCESS_THRESHOLD,
          inclusionProbability: p.i.item.inclusionProb,
        })),
        VERDICT_RATERS,
      )
    : null;
  return (
    verdict && {
      ...prevalenceProof(verdict.matrix.counts),
      kappa: verdict.kappa,
      interval: verdict.interval && { lower: verdict.interval.lower, upper: verdict.interval.upper },
      n: verdict.n,
      figure: statFigure(verdict.kappa, verdict.n, verdict.interval, { undefinedReason: verdict.undefinedReason }),
      /** Weighted κ (1/π) when the batch was stratified. */
      weightedKappa: weightedVerdict?.kappa ?? null,
      // rows: ledger success / not; columns: human success / not
      matrix: verdict.matrix.counts,
      threshold: SUCCESS_THRESHOLD,
    }
  );
}

/** Each guardrail flagged by either side: its table, κ with the index-draw bootstrap, AC1, PABAK, precision, recall. */
function guardrailsBefore(pairs: Pairs, stratified: boolean) {
  return guardrailAgreement(
    pairs.map((p) => ({ ledger: p.ledger.guardrails, human: p.human.guardrails })),
    GUARDRAIL_CODES,
  )
    .filter((g) => g.tp + g.fp + g.fn > 0)
    .map((g) => {
      const flags = pairs.map((p) => ({
        ledger: p.ledger.guardrails.includes(g.code),
        human: p.human.guardrails.includes(g.code),
        inclusionProbability: p.i.item.inclusionProb,
      }));
      const kappaCI =
        g.kappa === null
          ? null
          : cohensKappaIntervalBefore(
              flags.map((x) => [x.ledger, x.human] as const),
              { seed: SEED, iterations: ITERATIONS },
            );
      const proof = prevalenceProof([
        [g.tp, g.fp],
        [g.fn, g.tn],
      ]);
      return {
        ...g,
        /** Share of items flagged by each side, and which coefficient to read at that prevalence. */
        prevalence: proof.prevalence,
        read: proof.read,
        figures: {
          ac1: proof.ac1,
          pabak: proof.pabak,
          precision: rateFigure(g.tp, g.tp + g.fp),
          recall: rateFigure(g.tp, g.tp + g.fn),
          kappa: statFigure(g.kappa, g.n, kappaCI, {
            undefinedReason: kappaUndefinedReason(
              [
                [g.tp, g.fp],
                [g.fn, g.tn],
              ],
              GUARDRAIL_RATERS,
            ),
          }),
          agreement: rateFigure(g.tp + g.tn, g.n),
        },
        weighted: stratified ? weightedKappaFigure(flags, GUARDRAIL_RATERS) : null,
      };
    });
}

/** Each dimension's sub-score agreement: MAE and Spearman's ρ, each with its interval. */
function dimensionsBefore(pairs: Pairs) {
  return dimensionAgreement(
    pairs.map((p) => ({ ledger: p.ledger.subscores, human: p.human.subscores })),
    DIMENSIONS,
  ).map((d) => {
    const ledger = pairs.map((p) => p.ledger.subscores[d.dimension]);
    const human = pairs.map((p) => p.human.subscores[d.dimension]);
    return {
      ...d,
      figures: {
        mae: statFigure(d.mae, d.n, meanAbsoluteErrorInterval(ledger, human)),
        spearman: statFigure(d.spearman, d.n, spearmanInterval(ledger, human), {
          undefinedReason: spearmanUndefinedReason(ledger, human, {
            a: "the ledger",
            b: "the human side",
            what: `${d.dimension} score`,
          }),
        }),
      },
    };
  });
}

/** The agreement by the day the primary review was submitted. */
function trendBefore(pairs: Pairs, tol: number) {
  const byDay = new Map<string, { k: number; n: number }>();
  for (const p of pairs) {
    const day = reviewDay(p);
    const d = byDay.get(day) ?? { k: 0, n: 0 };
    d.n++;
    if (scoresAgree(p.human.reward, p.ledger.reward, tol)) d.k++;
    byDay.set(day, d);
  }
  return [...byDay.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([day, { k, n }]) => {
      const fig = rateFigure(k, n);
      return {
        day,
        k,
        n,
        rate: fig.value,
        lower: fig.interval?.lower ?? null,
        upper: fig.interval?.upper ?? null,
        tooFew: fig.tooFew,
        label: fig.label,
        detail: fig.detail,
      };
    });
}

/** Between annotators, on overlap items with two or more distinct reviewers: α of the reward and of each flag. */
function interAnnotatorBefore(items: AgreementItem[]) {
  const overlap = overlapItems(items);
  const rewardUnits = overlap.map((i) => i.reviews.map((r) => r.reward));
  const rewardAlpha = krippendorffAlpha(rewardUnits, { metric: "interval" });
  const rewardAlphaCI = rewardAlpha
    ? krippendorffAlphaIntervalBefore(rewardUnits, { metric: "interval", seed: SEED, iterations: ITERATIONS })
    : null;
  const guardrailAlpha = GUARDRAIL_CODES.filter((code) =>
    overlap.some((i) => i.reviews.some((r) => r.guardrails.includes(code))),
  ).map((code) => {
    const units = overlap.map((i) => i.reviews.map((r) => r.guardrails.includes(code)));
    const a = krippendorffAlpha(units, { metric: "nominal" });
    const ci = a
      ? krippendorffAlphaIntervalBefore(units, { metric: "nominal", seed: SEED, iterations: ITERATIONS })
      : null;
    return {
      code,
      ...betweenAnnotators(units),
      alpha: a?.alpha ?? null,
      units: overlap.length,
      figure: statFigure(a?.alpha ?? null, overlap.length, ci, {
        undefinedReason: overlap.length === 0 ? NO_OVERLAP : "the annotators give every overlap item the same flag",
      }),
    };
  });
  return {
    items: overlap.length,
    /** AC1 and PABAK of the success verdict (reward ≥ threshold) among the annotators of each overlap item. */
    verdict: betweenAnnotators(overlap.map((i) => i.reviews.map((r) => r.reward >= SUCCESS_THRESHOLD))),
    rewardAlpha: rewardAlpha?.alpha ?? null,
    rewardAlphaInterval: rewardAlphaCI && { lower: rewardAlphaCI.lower, upper: rewardAlphaCI.upper },
    rewardAlphaFigure: statFigure(rewardAlpha?.alpha ?? null, overlap.length, rewardAlphaCI, {
      undefinedReason: overlap.length === 0 ? NO_OVERLAP : "the annotators give every overlap item the same reward",
    }),
    guardrails: guardrailAlpha,
  };
}

type Tally = {
  k: number;
  n: number;
  human: number[];
  ledger: number[];
  disputes: number;
  annotatorWrong: number;
  otherCause: number;
};

/** Each annotator against the ledger (all their reviews) and against adjudicated outcomes. */
function annotatorsBefore(items: AgreementItem[], tol: number) {
  const perAnnotator = new Map<string, Tally>();
  for (const i of items) {
    if (i.ledger.reward === null) continue;
    for (const r of i.reviews) {
      const a = perAnnotator.get(r.reviewerEmail) ?? {
        k: 0,
        n: 0,
        human: [],
        ledger: [],
        disputes: 0,
        annotatorWrong: 0,
        otherCause: 0,
      };
      a.n++;
      a.human.push(r.reward);
      a.ledger.push(i.ledger.reward);
      const ok = scoresAgree(r.reward, i.ledger.reward, tol);
      if (ok) a.k++;
      if (!ok && i.adjudication) {
        a.disputes++;
        if (i.adjudication.cause === "annotator_wrong") a.annotatorWrong++;
        else a.otherCause++;
      }
      perAnnotator.set(r.reviewerEmail, a);
    }
  }
  return [...perAnnotator.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([email, a]) => {
      const mae = meanAbsoluteErrorInterval(a.human, a.ledger);
      const maeValue = a.n ? a.human.reduce((s, h, j) => s + Math.abs(h - a.ledger[j]), 0) / a.n : null;
      return {
        email,
        n: a.n,
        agreement: rateFigure(a.k, a.n),
        mae: maeValue,
        maeFigure: statFigure(maeValue, a.n, mae),
        adjudicatedDisagreements: a.disputes,
        annotatorWrong: a.annotatorWrong,
        /** Of this annotator's adjudicated disagreements, the share where the lead sided with the annotator. */
        upheld: a.disputes ? a.otherCause / a.disputes : null,
        upheldFigure: rateFigure(a.otherCause, a.disputes),
      };
    });
}

/** The lead's causes of the adjudicated disagreements, overall and by guardrail. */
function causesBefore(items: AgreementItem[]) {
  const adjudicated = items.filter((i) => i.adjudication);
  const causes = DISAGREEMENT_CAUSES.map((cause) => ({
    cause,
    count: adjudicated.filter((i) => i.adjudication!.cause === cause).length,
  }));
  const causeByGuardrail = new Map<string, number>();
  for (const i of adjudicated) {
    const g = i.adjudication!.guardrail ?? "none";
    causeByGuardrail.set(g, (causeByGuardrail.get(g) ?? 0) + 1);
  }
  return {
    causes,
    causesByGuardrail: [...causeByGuardrail.entries()]
      .map(([guardrail, count]) => ({ guardrail, count }))
      .sort((a, b) => b.count - a.count),
  };
}

/** The extractor's claims against the annotators', slot by slot. */
function extractionBefore(pairs: Pairs) {
  const ex = extractionPairs(pairs);
  const acc = extractionAccuracy(ex);
  const exItems = ex.length;
  // The overall accuracy pools slots, but its doubt is about items: guard it on the items compared.
  const overallFigure = (() => {
    if (!acc.overall) return rateFigure(0, 0);
    const fig = rateFigure(acc.overall.correct, acc.overall.n, acc.overall.accuracy);
    const tooFew = fig.tooFew || exItems < MIN_N_FOR_RATE;
    return {
      ...fig,
      tooFew,
      label: tooFew ? "too few to say" : fig.label,
      detail: `${fig.detail} · ${exItems} item${exItems === 1 ? "" : "s"}`,
    };
  })();
  const extraction = {
    ...acc,
    items: exItems,
    overallFigure,
    slots: acc.slots.map((s) => ({ ...s, figure: rateFigure(s.correct, s.n, s.accuracy) })),
  };
  return extraction;
}

export function buildAgreementReportBefore(all: AgreementItem[], f: AgreementFilter) {
  const filtered = applyGuardrailFilter(all, f.guardrail);
  // Only blind reviews count (lib/review/blind.ts); the others are listed apart under `excluded`.
  const items = countedItems(filtered);
  const tol = f.tolerance;
  const pairs = primaryPairs(items);
  const { scorePairs, headline, stratified, w } = headlineBefore(pairs, tol);
  return {
    filter: f,
    /** The ledger the figures compare with: as each item recorded it when reviewed, or its current entry. */
    basis: f.basis ?? "reviewed",
    /** The headline (overall and per guardrail) under both bases, and the re-scored items between them. */
    bases: compareBasesBefore(all, f),
    tolerance: tol,
    minItems: MIN_N_FOR_RATE,
    items: items.length,
    /** Reviews recorded but left out of every figure, with the reason (their author could have seen the ledger). */
    excluded: excludedReviews(filtered),
    headline,
    /** True when inclusion probabilities differ: weighted figures are then shown beside the unweighted ones. */
    stratified,
    weighted: w && { estimate: w.estimate, nEffective: w.nEffective, interval: w.interval, figure: weightedFigure(w) },
    /** How to read κ, AC1 and PABAK when prevalence is extreme (shown beside them). */
    prevalenceNote: PREVALENCE_NOTE,
    verdict: verdictBefore(pairs, scorePairs, stratified),
    guardrails: guardrailsBefore(pairs, stratified),
    dimensions: dimensionsBefore(pairs),
    scatter: pairs.map((p) => ({
      itemId: p.i.item.itemId.toString(),
      trajectoryId: p.i.item.trajectoryId,
      human: p.human.reward,
      ledger: p.ledger.reward,
    })),
    trend: trendBefore(pairs, tol),
    interAnnotator: interAnnotatorBefore(items),
    annotators: annotatorsBefore(items, tol),
    ...causesBefore(items),
    extraction: extractionBefore(pairs),
  };
}
