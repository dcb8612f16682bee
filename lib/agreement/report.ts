import type { AgreementItem } from "@/lib/agreement/data.ts";
import type { AgreementCell, AgreementFilter } from "@/lib/agreement/schema.ts";
import { DISAGREEMENT_CAUSES } from "@/lib/audit/causes.ts";
import { agreementRate, dimensionAgreement, guardrailAgreement, scoresAgree, successVerdictKappa, SUCCESS_THRESHOLD } from "@/lib/stats/agreement.ts";
import { extractionAccuracy, type Claims as StatClaims } from "@/lib/stats/extraction-accuracy.ts";
import { wilson } from "@/lib/stats/intervals.ts";
import { krippendorffAlpha, krippendorffAlphaInterval } from "@/lib/stats/krippendorff.ts";
import { describeRate } from "@/lib/stats/small-sample.ts";
import { weightedAgreementRate } from "@/lib/stats/weighted.ts";
import { DIMENSIONS, GUARDRAIL_CODES } from "@/lib/verifier/codes.ts";

// The agreement report: every figure of /agreement, the API and the CLI, computed from the reviewed items by the
// pure functions of lib/stats. The primary review of an item is its first one; overlap items' further reviews feed
// only the between-annotator figures, so an item never counts twice against the ledger.

const SEED = 20261129;

type Rate = ReturnType<typeof describeRate>;

function rate(k: number, n: number): Rate {
  return describeRate({ k, n });
}

function primaryPairs(items: AgreementItem[]) {
  return items.filter((i) => i.reviews.length > 0 && i.ledger.reward !== null).map((i) => ({ i, human: i.reviews[0], ledger: i.ledger }));
}

/** Narrows to the items where the ledger or a human flagged the guardrail, when the filter names one. */
export function applyGuardrailFilter(items: AgreementItem[], guardrail?: string): AgreementItem[] {
  if (!guardrail) return items;
  return items.filter((i) => i.ledger.guardrails.includes(guardrail as never) || i.reviews.some((r) => r.guardrails.includes(guardrail)));
}

function toStatClaims(c: { claimed_writes?: readonly string[]; mentioned?: readonly { key: string; value?: unknown }[]; forbidden_hits?: readonly string[] } | null): StatClaims {
  return {
    claimed_writes: c?.claimed_writes ?? [],
    mentioned: (c?.mentioned ?? []).map((m) => ({ key: m.key, ...(m.value === undefined ? {} : { value: m.value as string | number | boolean | null }) })),
    forbidden_hits: c?.forbidden_hits ?? [],
  };
}

export function buildAgreementReport(all: AgreementItem[], f: AgreementFilter) {
  const items = applyGuardrailFilter(all, f.guardrail);
  const tol = f.tolerance;
  const pairs = primaryPairs(items);
  const scorePairs = pairs.map((p) => ({ human: p.human.reward, ledger: p.ledger.reward }));
  const agree = agreementRate(scorePairs, { tolerance: tol });
  const headline = { ...rate(agree?.agreeing ?? 0, agree?.n ?? 0), interval: agree?.interval ?? null };

  const probs = pairs.map((p) => p.i.item.inclusionProb);
  const unequal = probs.some((p) => Math.abs(p - probs[0]) > 1e-12);
  const w = unequal ? weightedAgreementRate(pairs.map((p) => ({ human: p.human.reward, ledger: p.ledger.reward, inclusionProbability: p.i.item.inclusionProb })), { tolerance: tol }) : null;

  const verdict = successVerdictKappa(scorePairs, { seed: SEED, iterations: 1000 });
  const guardrails = guardrailAgreement(
    pairs.map((p) => ({ ledger: p.ledger.guardrails, human: p.human.guardrails })),
    GUARDRAIL_CODES,
  ).filter((g) => g.tp + g.fp + g.fn > 0);
  const dimensions = dimensionAgreement(
    pairs.map((p) => ({ ledger: p.ledger.subscores, human: p.human.subscores })),
    DIMENSIONS,
  );

  // trend: by the day the primary review was submitted
  const byDay = new Map<string, { k: number; n: number }>();
  for (const p of pairs) {
    const day = p.human.createdAt.toISOString().slice(0, 10);
    const d = byDay.get(day) ?? { k: 0, n: 0 };
    d.n++;
    if (scoresAgree(p.human.reward, p.ledger.reward!, tol)) d.k++;
    byDay.set(day, d);
  }
  const trend = [...byDay.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([day, { k, n }]) => {
      const iv = wilson(k, n);
      return { day, k, n, rate: iv?.estimate ?? null, lower: iv?.lower ?? null, upper: iv?.upper ?? null };
    });

  // between annotators: overlap items with two or more distinct reviewers
  const overlap = items.filter((i) => new Set(i.reviews.map((r) => r.reviewerId)).size > 1);
  const rewardUnits = overlap.map((i) => i.reviews.map((r) => r.reward));
  const rewardAlpha = krippendorffAlpha(rewardUnits, { metric: "interval" });
  const rewardAlphaCI = rewardAlpha ? krippendorffAlphaInterval(rewardUnits, { metric: "interval", seed: SEED, iterations: 500 }) : null;
  const guardrailAlpha = GUARDRAIL_CODES.map((code) => ({
    code,
    alpha: krippendorffAlpha(overlap.map((i) => i.reviews.map((r) => r.guardrails.includes(code))), { metric: "nominal" })?.alpha ?? null,
  })).filter((g) => overlap.some((i) => i.reviews.some((r) => r.guardrails.includes(g.code))));

  // each annotator against the ledger (all their reviews) and against adjudicated outcomes
  const perAnnotator = new Map<string, { k: number; n: number; absSum: number; disputes: number; annotatorWrong: number; otherCause: number }>();
  for (const i of items) {
    for (const r of i.reviews) {
      if (i.ledger.reward === null) continue;
      const a = perAnnotator.get(r.reviewerEmail) ?? { k: 0, n: 0, absSum: 0, disputes: 0, annotatorWrong: 0, otherCause: 0 };
      a.n++;
      a.absSum += Math.abs(r.reward - i.ledger.reward);
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
  const annotators = [...perAnnotator.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([email, a]) => ({
      email,
      n: a.n,
      agreement: rate(a.k, a.n),
      mae: a.n ? a.absSum / a.n : null,
      adjudicatedDisagreements: a.disputes,
      annotatorWrong: a.annotatorWrong,
      /** Of this annotator's adjudicated disagreements, the share where the lead sided with the annotator. */
      upheld: a.disputes ? a.otherCause / a.disputes : null,
    }));

  const adjudicated = items.filter((i) => i.adjudication);
  const causes = DISAGREEMENT_CAUSES.map((cause) => ({ cause, count: adjudicated.filter((i) => i.adjudication!.cause === cause).length }));
  const causeByGuardrail = new Map<string, number>();
  for (const i of adjudicated) {
    const g = i.adjudication!.guardrail ?? "none";
    causeByGuardrail.set(g, (causeByGuardrail.get(g) ?? 0) + 1);
  }

  // extraction: the ledger's claims (what the extractor produced) against the claims the annotator labelled
  const writeTools = new Set<string>();
  const mentionKeys = new Set<string>();
  const forbidden = new Set<string>();
  const extractionPairs = pairs
    .filter((p) => p.ledger.claims)
    .map((p) => {
      const extracted = toStatClaims(p.ledger.claims);
      const human = toStatClaims(p.human.claims);
      for (const c of [extracted, human]) {
        c.claimed_writes.forEach((t) => writeTools.add(t));
        c.mentioned.forEach((m) => mentionKeys.add(m.key));
        c.forbidden_hits.forEach((x) => forbidden.add(x));
      }
      return { extracted, human };
    });
  const extraction = extractionAccuracy(extractionPairs, { writeTools: [...writeTools].sort(), mentionKeys: [...mentionKeys].sort(), forbiddenCodes: [...forbidden].sort() });

  return {
    filter: f,
    tolerance: tol,
    items: items.length,
    headline,
    weighted: w && { estimate: w.estimate, nEffective: w.nEffective, interval: w.interval },
    verdict: verdict && {
      kappa: verdict.kappa,
      interval: verdict.interval && { lower: verdict.interval.lower, upper: verdict.interval.upper },
      n: verdict.n,
      // rows: ledger success / not; columns: human success / not
      matrix: verdict.matrix.counts,
      threshold: SUCCESS_THRESHOLD,
    },
    guardrails,
    dimensions,
    scatter: pairs.map((p) => ({ itemId: p.i.item.itemId.toString(), trajectoryId: p.i.item.trajectoryId, human: p.human.reward, ledger: p.ledger.reward! })),
    trend,
    interAnnotator: {
      items: overlap.length,
      rewardAlpha: rewardAlpha?.alpha ?? null,
      rewardAlphaInterval: rewardAlphaCI && { lower: rewardAlphaCI.lower, upper: rewardAlphaCI.upper },
      guardrails: guardrailAlpha,
    },
    annotators,
    causes,
    causesByGuardrail: [...causeByGuardrail.entries()].map(([guardrail, count]) => ({ guardrail, count })).sort((a, b) => b.count - a.count),
    extraction,
  };
}

export type AgreementReport = ReturnType<typeof buildAgreementReport>;

/** The items behind one figure of the report. */
export function itemsForCell(all: AgreementItem[], f: AgreementFilter, cell: AgreementCell): AgreementItem[] {
  const items = applyGuardrailFilter(all, f.guardrail).filter((i) => i.reviews.length > 0);
  const h = (i: AgreementItem) => i.reviews[0];
  const ok = (i: AgreementItem) => i.ledger.reward !== null && scoresAgree(h(i).reward, i.ledger.reward, f.tolerance);
  const g = f.guardrail;
  switch (cell) {
    case "all":
      return items;
    case "agree":
      return items.filter(ok);
    case "disagree":
      return items.filter((i) => i.ledger.reward !== null && !ok(i));
    case "verdict_ledger_only":
      return items.filter((i) => (i.ledger.reward ?? 0) >= SUCCESS_THRESHOLD && h(i).reward < SUCCESS_THRESHOLD);
    case "verdict_human_only":
      return items.filter((i) => i.ledger.reward !== null && i.ledger.reward < SUCCESS_THRESHOLD && h(i).reward >= SUCCESS_THRESHOLD);
    case "guardrail_ledger_only":
      return g ? items.filter((i) => i.ledger.guardrails.includes(g as never) && !h(i).guardrails.includes(g)) : [];
    case "guardrail_human_only":
      return g ? items.filter((i) => !i.ledger.guardrails.includes(g as never) && h(i).guardrails.includes(g)) : [];
    case "guardrail_both":
      return g ? items.filter((i) => i.ledger.guardrails.includes(g as never) && h(i).guardrails.includes(g)) : [];
    case "adjudicated":
      return items.filter((i) => i.adjudication);
  }
}

/** The report as plain JSON (bigints as strings), for the API and the CLI. */
export function reportJson(r: AgreementReport): unknown {
  return JSON.parse(JSON.stringify(r, (_k, v) => (typeof v === "bigint" ? v.toString() : v)));
}
