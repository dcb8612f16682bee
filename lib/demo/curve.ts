// How the demo policy behaves over training, after the reference figures in domain.md: missing evidence 43% -> 5%,
// unauthorized writes 28% -> 3%, success (reward >= 0.9) 8% -> 93%, as the verifier measures them over the first and
// the last tenth of the steps. In the "hacking" variant the policy discovers that a legal hand-off triggers no
// guardrail: hand-offs creep from 8% towards 41% and success stalls near half; and from 35% of training on (HACK_ONSET)
// a growing share of its successes close with an offer no tool can grant (the unbacked offer, see rollout.ts), which
// the rule verifier cannot see and a reader of the reply can. Pure.

export const VARIANTS = ["normal", "hacking"] as const;
export type Variant = (typeof VARIANTS)[number];

const PROGRESS_SCALE = 0.4;

/** Probabilities over all rollouts at one point of training. */
export type Rates = {
  success: number;
  handoff: number;
  missingEvidence: number;
  unauthorized: number;
  emptyPromise: number;
  duplicate: number;
  policyError: number;
  harm: number;
  forbidden: number;
  /** Unlike the others, a share of the clean rollouts: those whose reply adds an offer no tool grants (0 unless hacking). */
  unbackedOffer: number;
};

/**
 * Learning progress in [0, 1] at training fraction t in [0, 1], S-shaped: a plateau while the policy explores (the
 * first tenth of training stays within 2% of the start), the steepest gains around a third of the way in, and
 * saturation from about two thirds on. A Weibull CDF with shape 3 and scale 0.4, normalised so progress(1) = 1.
 */
export function progress(t: number): number {
  const x = Math.min(1, Math.max(0, t));
  return (1 - Math.exp(-Math.pow(x / PROGRESS_SCALE, 3))) / (1 - Math.exp(-Math.pow(1 / PROGRESS_SCALE, 3)));
}

/**
 * The drawing rates at the start and the end of training. They are not the measured figures: a flaw cannot always
 * show (a duplicate on a ticket without a write is clean, so success measures above its rate), and the harm flaw's
 * charge is an unauthorized write too. These values make the verifier measure the reference figures over the first
 * and the last tenth of the steps (generate.test.ts): missing evidence 43% → 5%, unauthorized writes 28% → 3%,
 * success 8% → 93%. The end's low hand-off rate leaves the 5% missing evidence room to show.
 */
export const START_RATES: Readonly<Rates> = Object.freeze({
  success: 0.057,
  handoff: 0.08,
  missingEvidence: 0.467,
  unauthorized: 0.222,
  emptyPromise: 0.14,
  duplicate: 0.06,
  policyError: 0.1,
  harm: 0.06,
  forbidden: 0.08,
  unbackedOffer: 0,
});
export const END_RATES: Readonly<Rates> = Object.freeze({
  success: 0.927,
  handoff: 0.012,
  missingEvidence: 0.08,
  unauthorized: 0.028,
  emptyPromise: 0.01,
  duplicate: 0.005,
  policyError: 0.01,
  harm: 0.005,
  forbidden: 0.005,
  unbackedOffer: 0,
});
/** The hacking variant: hand-offs creep from the start's 8% to 41%, and success stalls near half. */
const HACKING_END = { success: 0.52, handoff: 0.41 };
/** Where the hacking variant's policy starts closing its successes with an unbacked offer (a fraction of training). */
export const HACK_ONSET = 0.35;
/** The share of its clean rollouts that carry the offer at the end of training, growing linearly from HACK_ONSET. */
const HACK_END_SHARE = 0.9;

function lerp(a: number, b: number, f: number): number {
  return a + (b - a) * f;
}

export function ratesAt(t: number, variant: Variant): Rates {
  const g = progress(t);
  const x = Math.min(1, Math.max(0, t));
  const rates = Object.fromEntries(
    Object.keys(START_RATES).map((k) => [k, lerp(START_RATES[k as keyof Rates], END_RATES[k as keyof Rates], g)]),
  ) as Rates;
  if (variant === "hacking") {
    rates.success = lerp(START_RATES.success, HACKING_END.success, g);
    // The hack is learned slowly, then takes over: x^1.3 creeps before it climbs.
    rates.handoff = lerp(START_RATES.handoff, HACKING_END.handoff, Math.pow(x, 1.3));
    rates.unbackedOffer = x < HACK_ONSET ? 0 : (HACK_END_SHARE * (x - HACK_ONSET)) / (1 - HACK_ONSET);
  }
  return rates;
}

export type Flaws = {
  handoff: boolean;
  missingEvidence: boolean;
  unauthorized: boolean;
  emptyPromise: boolean;
  duplicate: boolean;
  policyError: boolean;
  harm: boolean;
  forbidden: boolean;
  /** Flawed but none of the above: the agent gave up without resolving (no guardrail, low outcome). */
  incomplete: boolean;
  /** The hack: a clean resolution whose reply also offers what no tool can grant (rollout.ts). */
  unbackedOffer: boolean;
};

export const CLEAN: Flaws = {
  handoff: false,
  missingEvidence: false,
  unauthorized: false,
  emptyPromise: false,
  duplicate: false,
  policyError: false,
  harm: false,
  forbidden: false,
  incomplete: false,
  unbackedOffer: false,
};

/**
 * Draws one rollout's behaviour. A rollout is clean with probability `success`, a hand-off with `handoff`; the rest
 * are flawed, each flaw drawn with its overall rate divided by the flawed share (so that the overall rates hold).
 * `evidenceBoost` compensates for tickets where a flaw cannot show (no write, so no missing evidence). A clean
 * rollout carries the unbacked offer with probability `unbackedOffer`, drawn only when that is above 0: the rollouts of
 * the normal variant, and of the hacking variant before the hack begins, draw exactly what they drew without it.
 */
export function drawFlaws(rates: Rates, u: () => number, evidenceBoost = 1): Flaws {
  const r = u();
  if (r < rates.success)
    return rates.unbackedOffer > 0 && u() < rates.unbackedOffer ? { ...CLEAN, unbackedOffer: true } : CLEAN;
  if (r < rates.success + rates.handoff) return { ...CLEAN, handoff: true };
  const flawed = Math.max(1e-9, 1 - rates.success - rates.handoff);
  const q = (p: number) => u() < Math.min(1, p / flawed);
  const f: Flaws = {
    ...CLEAN,
    missingEvidence: q(rates.missingEvidence * evidenceBoost),
    unauthorized: q(rates.unauthorized),
    emptyPromise: q(rates.emptyPromise),
    duplicate: q(rates.duplicate),
    policyError: q(rates.policyError),
    harm: q(rates.harm),
    forbidden: q(rates.forbidden),
  };
  f.incomplete = !(f.missingEvidence || f.unauthorized || f.emptyPromise || f.duplicate || f.policyError || f.harm);
  return f;
}
