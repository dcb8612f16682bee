import { compareBases } from "@/lib/agreement/bases.ts";
import type { AgreementItem } from "@/lib/agreement/data.ts";
import { rateFigure, statFigure, weightedFigure, type Figure, type RateFigure } from "@/lib/agreement/figures.ts";
import { headlineCounts } from "@/lib/agreement/headline.ts";
import { applyGuardrailFilter, countedItems, excludedReviews, overlapItems, reviewDay } from "@/lib/agreement/pairs.ts";
import type { AgreementFilter } from "@/lib/agreement/schema.ts";
import { DISAGREEMENT_CAUSES } from "@/lib/agreement/causes.ts";
import {
  dimensionAgreement,
  guardrailAgreement,
  scoresAgree,
  successVerdictKappa,
  SUCCESS_THRESHOLD,
  VERDICT_RATERS,
} from "@/lib/stats/agreement.ts";
import {
  brennanPrediger,
  chanceCorrectedRawModes,
  chanceCorrectedUndefinedReason,
  coefficientToRead,
  gwetAc1,
  PREVALENCE_NOTE,
  type ChanceCorrected,
} from "@/lib/stats/chance-corrected.ts";
import { meanAbsoluteErrorInterval, spearmanIntervalOf, spearmanUndefinedReason } from "@/lib/stats/correlation.ts";
import { kappaIntervalOfMatrix, kappaUndefinedReason, type Label, type RaterNames } from "@/lib/stats/kappa.ts";
import { krippendorffAlphas, type AlphaMetric, type Unit } from "@/lib/stats/krippendorff.ts";
import { MIN_N_FOR_RATE } from "@/lib/stats/small-sample.ts";
import { specificAgreement, type SpecificAgreement } from "@/lib/stats/specific-agreement.ts";
import { weightedAgreementRate, weightedBinaryAgreement, weightedBinaryKappaInterval } from "@/lib/stats/weighted.ts";
import { DIMENSIONS, GUARDRAIL_CODES } from "@/lib/verifier/codes.ts";

// The agreement report: every figure of /agreement, the API and the CLI, computed from the reviewed items by the
// pure functions of lib/stats. The primary review of an item is its first one; overlap items' further reviews feed
// only the between-annotator figures, so an item never counts twice against the ledger. Every shown number comes
// with a Figure (lib/agreement/figures.ts): below 30 items it reads "too few to say" with n and its interval.

const SEED = 20261129;
const NO_OVERLAP = "no item was reviewed by two annotators";
const ITERATIONS = 500;

/** The raters of a binary signal, and why a class has no specific agreement (no item in it on either side). */
export type SignalNames = RaterNames & { noPositive: string; noNegative: string };

const GUARDRAIL_RATERS: SignalNames = {
  a: "the ledger",
  b: "the human side",
  what: "flag",
  noPositive: "neither side flags an item",
  noNegative: "both sides flag every item",
};

type Flags = { ledger: boolean; human: boolean; inclusionProbability: number }[];

/** Weighted κ of binary signals over the same items, each with its bootstrap interval, guarded on the effective n. */
function weightedKappaFigures(signals: { flags: Flags; raters: RaterNames }[]) {
  const ws = signals.map((s) => ({ ...s, w: weightedBinaryAgreement(s.flags) }));
  const ivs = ws.map((s) =>
    s.w !== null && s.w.kappa !== null
      ? weightedBinaryKappaInterval(s.flags, { seed: SEED, iterations: ITERATIONS })
      : null,
  );
  return ws.map(({ w, raters }, j) => {
    if (!w) return null;
    const undefinedReason = kappaUndefinedReason(
      [
        [w.tp, w.fp],
        [w.fn, w.tn],
      ],
      raters,
    );
    return {
      agreement: weightedFigure(w.agreement),
      kappa: statFigure(w.kappa, w.agreement.nEffective, ivs[j], { undefinedReason }),
    };
  });
}

const NOT_RATED = "no item was rated by both";

/** A chance-corrected coefficient as a Figure: n, and its t interval (Gwet's variance). */
function coefficientFigure(c: ChanceCorrected | null, n: number, noneReason = NOT_RATED): Figure {
  return statFigure(c?.value ?? null, c?.n ?? n, c?.interval ?? null, { undefinedReason: c ? null : noneReason });
}

/** Positive or negative agreement as a Figure: guarded on the items either side puts in the class. */
function specificFigure(s: SpecificAgreement | null, noneReason: string): RateFigure {
  if (!s) return { ...rateFigure(0, 0), undefinedReason: noneReason, label: `not defined: ${noneReason}` };
  const f = rateFigure(s.value * s.items, s.items, s.interval);
  const pct = (x: number) => `${Math.round(x * 100)}%`;
  const ci = `95% CI ${pct(s.interval.lower)}–${pct(s.interval.upper)}`;
  return { ...f, detail: `${s.both} both, ${s.items - s.both} one side only · ${ci}` };
}

/**
 * Beside κ for one binary signal (success verdict, a guardrail's flag): Gwet's AC1 and PABAK with their intervals,
 * positive and negative agreement (each class on its own), the prevalence on each side (share of items positive) and
 * n, and what to read at this prevalence. `table` rows: ledger positive / not; columns: human positive / not.
 * `filteredOn`: the report is narrowed to the items flagged with this signal, so its table has no true negative by
 * construction, and nothing chance-corrected or about the negative class (κ, AC1, PABAK, negative agreement) is
 * defined.
 */
export function prevalenceProof(table: readonly (readonly number[])[], names: SignalNames, filteredOn = false) {
  const n = table[0][0] + table[0][1] + table[1][0] + table[1][1];
  const ledger = n ? (table[0][0] + table[0][1]) / n : null;
  const human = n ? (table[0][0] + table[1][0]) / n : null;
  const none = filteredOn ? FILTERED_ON : (chanceCorrectedUndefinedReason(table, names) ?? NOT_RATED);
  const specific = specificAgreement(table);
  return {
    ac1: coefficientFigure(filteredOn ? null : gwetAc1(table), n, none),
    pabak: coefficientFigure(filteredOn ? null : brennanPrediger(table), n, none),
    positiveAgreement: specificFigure(specific.positive, names.noPositive),
    negativeAgreement: specificFigure(
      filteredOn ? null : specific.negative,
      filteredOn ? FILTERED_ON : names.noNegative,
    ),
    prevalence: { ledger, human, n },
    read: coefficientToRead([ledger, human]),
  };
}

/** Why a guardrail's chance-corrected figures are not given when the report is filtered on that guardrail. */
const FILTERED_ON =
  "the report is filtered on this guardrail: every item is one the ledger or a reviewer flags with it, so none can be a true negative";

/** AC1 and PABAK among annotators on one binary signal of the overlap items (each item rated by 2 or more). */
function betweenAnnotators(units: boolean[][], what: string) {
  const rated = units.filter((u) => u.length >= 2);
  const none =
    units.length === 0
      ? NO_OVERLAP
      : rated.length === 0
        ? "no overlap item has two reviews"
        : `the annotators give every overlap item the same ${what}: nothing to tell apart`;
  const [ac1, pabak] = chanceCorrectedRawModes(units, [true, false], ["ac1", "bp"]);
  return {
    ac1: coefficientFigure(ac1, units.length, none),
    pabak: coefficientFigure(pabak, units.length, none),
  };
}

export function buildAgreementReport(all: AgreementItem[], f: AgreementFilter) {
  const filtered = applyGuardrailFilter(all, f.guardrail);
  // Only blind reviews count (lib/review/blind.ts); the others are listed apart under `excluded`.
  const items = countedItems(filtered);
  const tol = f.tolerance;
  const counts = headlineCounts(items, tol);
  const { pairs, agreement: agree } = counts;
  const headlineFigure = rateFigure(agree?.agreeing ?? 0, agree?.n ?? 0);
  const headline = { ...headlineFigure, rate: headlineFigure.value, interval: agree?.interval ?? null };
  const { stratified, w } = weightedHeadline(pairs, tol);
  const verdict = successVerdictKappa(
    pairs.map((p) => ({ human: p.human.reward, ledger: p.ledger.reward })),
    { seed: SEED, iterations: 1000 },
  );
  const { guardrails, weightedVerdict } = guardrailSection(pairs, f, stratified);
  return {
    filter: f,
    /** The ledger the figures compare with: as each item recorded it when reviewed, or its current entry. */
    basis: f.basis ?? "reviewed",
    /** The headline (overall and per guardrail) under both bases, and the re-scored items between them. */
    bases: compareBases(all, f),
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
    verdict: verdict && verdictSection(verdict, weightedVerdict),
    guardrails,
    dimensions: dimensionSection(pairs),
    scatter: pairs.map((p) => ({
      itemId: p.i.item.itemId.toString(),
      trajectoryId: p.i.item.trajectoryId,
      human: p.human.reward,
      ledger: p.ledger.reward,
    })),
    trend: trendByDay(pairs, tol),
    interAnnotator: interAnnotatorSection(overlapItems(items)),
    annotators: annotatorSection(items, tol),
    ...causeSection(items),
    extraction: extractionSection(counts.extraction),
  };
}

type Pair = ReturnType<typeof headlineCounts>["pairs"][number];

/**
 * Inverse-probability weights matter only when the batch was stratified (items had unequal inclusion
 * probabilities); with equal π every weighted figure equals the unweighted one and none is shown.
 */
function weightedHeadline(pairs: Pair[], tolerance: number) {
  const probs = pairs.map((p) => p.i.item.inclusionProb);
  const stratified = probs.some((p) => Math.abs(p - probs[0]) > 1e-12);
  const w = stratified
    ? weightedAgreementRate(
        pairs.map((p) => ({
          human: p.human.reward,
          ledger: p.ledger.reward,
          inclusionProbability: p.i.item.inclusionProb,
        })),
        { tolerance },
      )
    : null;
  return { stratified, w };
}

/** Per guardrail that either side flags: its 2×2 table's figures; with them the verdict's weighted κ (stratified). */
function guardrailSection(pairs: Pair[], f: AgreementFilter, stratified: boolean) {
  const guardrailRows = guardrailAgreement(
    pairs.map((p) => ({ ledger: p.ledger.guardrails, human: p.human.guardrails })),
    GUARDRAIL_CODES,
  ).filter((g) => g.tp + g.fp + g.fn > 0);
  // Each guardrail's κ interval from its 2×2 table (rows: ledger flags / not; columns: human flags / not).
  const kappaCIs = guardrailRows.map((g) =>
    g.kappa === null
      ? null
      : kappaIntervalOfMatrix(
          [
            [g.tp, g.fp],
            [g.fn, g.tn],
          ],
          { seed: SEED, iterations: ITERATIONS },
        ),
  );
  const weightedKappas = stratified ? weightedKappasOf(pairs, guardrailRows) : null;
  const guardrails = guardrailRows.map((g, j) => {
    const table = [
      [g.tp, g.fp],
      [g.fn, g.tn],
    ];
    const filteredOn = f.guardrail === g.code;
    const proof = prevalenceProof(table, GUARDRAIL_RATERS, filteredOn);
    return {
      ...g,
      /** Share of items flagged by each side, and what to read at that prevalence. */
      prevalence: proof.prevalence,
      read: proof.read,
      /** The report is filtered on this guardrail: its table has no true negatives by construction. */
      filteredOn,
      figures: {
        ac1: proof.ac1,
        pabak: proof.pabak,
        positiveAgreement: proof.positiveAgreement,
        negativeAgreement: proof.negativeAgreement,
        precision: rateFigure(g.tp, g.tp + g.fp),
        recall: rateFigure(g.tp, g.tp + g.fn),
        kappa: statFigure(filteredOn ? null : g.kappa, g.n, kappaCIs[j], {
          undefinedReason: filteredOn ? FILTERED_ON : kappaUndefinedReason(table, GUARDRAIL_RATERS),
        }),
        // with no true negative this is the share of the filtered items both sides flag
        agreement: rateFigure(g.tp + g.tn, g.n),
      },
      weighted: weightedKappas && !filteredOn ? weightedKappas[j + 1] : null,
    };
  });
  return { guardrails, weightedVerdict: weightedKappas?.[0] ?? null };
}

/** The verdict's weighted κ first, then each guardrail's, each resampled as its (cell, π) counts (a stratified batch). */
function weightedKappasOf(pairs: Pair[], guardrailRows: { code: (typeof GUARDRAIL_CODES)[number] }[]) {
  return weightedKappaFigures([
    {
      flags: pairs.map((p) => ({
        ledger: p.ledger.reward >= SUCCESS_THRESHOLD,
        human: p.human.reward >= SUCCESS_THRESHOLD,
        inclusionProbability: p.i.item.inclusionProb,
      })),
      raters: VERDICT_RATERS,
    },
    ...guardrailRows.map((g) => ({
      flags: pairs.map((p) => ({
        ledger: p.ledger.guardrails.includes(g.code),
        human: p.human.guardrails.includes(g.code),
        inclusionProbability: p.i.item.inclusionProb,
      })),
      raters: GUARDRAIL_RATERS,
    })),
  ]);
}

/** The success verdict's κ (bootstrap), with AC1, PABAK, specific agreement and prevalence beside it. */
function verdictSection(
  verdict: NonNullable<ReturnType<typeof successVerdictKappa>>,
  weightedVerdict: ReturnType<typeof weightedKappaFigures>[number],
) {
  return {
    ...prevalenceProof(verdict.matrix.counts, {
      ...VERDICT_RATERS,
      noPositive: "neither side passes an item",
      noNegative: "both sides pass every item",
    }),
    kappa: verdict.kappa,
    interval: verdict.interval && { lower: verdict.interval.lower, upper: verdict.interval.upper },
    n: verdict.n,
    figure: statFigure(verdict.kappa, verdict.n, verdict.interval, { undefinedReason: verdict.undefinedReason }),
    /** Weighted κ (1/π) when the batch was stratified. */
    weightedKappa: weightedVerdict?.kappa ?? null,
    // rows: ledger success / not; columns: human success / not
    matrix: verdict.matrix.counts,
    threshold: SUCCESS_THRESHOLD,
  };
}

/** Per sub-score dimension: MAE and Spearman's ρ of the ledger against the human side, with their intervals. */
function dimensionSection(pairs: Pair[]) {
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
        spearman: statFigure(d.spearman, d.n, spearmanIntervalOf(d.spearman, d.n), {
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

/** The agreement rate by the day the primary review was submitted. */
function trendByDay(pairs: Pair[], tol: number) {
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

/** Between annotators: the overlap items (two or more distinct reviewers), on the reward, the verdict and each flag. */
function interAnnotatorSection(overlap: ReturnType<typeof overlapItems>) {
  const rewardUnits = overlap.map((i) => i.reviews.map((r) => r.reward));
  const alphaCodes = GUARDRAIL_CODES.filter((code) =>
    overlap.some((i) => i.reviews.some((r) => r.guardrails.includes(code))),
  ).map((code) => ({ code, units: overlap.map((i) => i.reviews.map((r) => r.guardrails.includes(code))) }));
  // The reward's α resamples the overlap items (by index, or as counts when their rewards take few values); each
  // guardrail's α as its counts of rating patterns. An interval only where α is defined.
  const [reward, ...codeAlphas] = krippendorffAlphas(
    [
      { units: rewardUnits as Unit<Label>[], metric: "interval" as AlphaMetric },
      ...alphaCodes.map((x) => ({ units: x.units as Unit<Label>[], metric: "nominal" as AlphaMetric })),
    ],
    { seed: SEED, iterations: ITERATIONS },
  );
  const rewardAlpha = reward.alpha;
  const rewardAlphaCI = reward.interval;
  const guardrailAlpha = alphaCodes.map(({ code, units }, j) => {
    const { alpha: a, interval: ci } = codeAlphas[j];
    return {
      code,
      ...betweenAnnotators(units, "flag"),
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
    verdict: betweenAnnotators(
      overlap.map((i) => i.reviews.map((r) => r.reward >= SUCCESS_THRESHOLD)),
      "verdict",
    ),
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
function annotatorSection(items: AgreementItem[], tol: number) {
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

/** The adjudicated items by cause, and by the guardrail the lead named. */
function causeSection(items: AgreementItem[]) {
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

/** Claims extraction against the human labels, per slot and overall. */
function extractionSection({ accuracy: acc, items: exItems }: ReturnType<typeof headlineCounts>["extraction"]) {
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
  return {
    ...acc,
    items: exItems,
    overallFigure,
    slots: acc.slots.map((s) => ({ ...s, figure: rateFigure(s.correct, s.n, s.accuracy) })),
  };
}

export type AgreementReport = ReturnType<typeof buildAgreementReport>;
export type { Figure };

/** The report as plain JSON (bigints as strings), for the API and the CLI. */
export function reportJson(r: AgreementReport): unknown {
  return JSON.parse(JSON.stringify(r, (_k, v) => (typeof v === "bigint" ? v.toString() : v)));
}
