// How the demo policy behaves over training, after the reference figures in domain.md: missing evidence 43% -> 5%,
// unauthorized writes 28% -> 3%, success (reward >= 0.9) 8% -> 93%. In the "hacking" variant the policy discovers
// that a legal hand-off triggers no guardrail: hand-offs creep from 8% towards 41% and success stalls near half.
// Pure.

export const VARIANTS = ["normal", "hacking"] as const;
export type Variant = (typeof VARIANTS)[number];

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
};

/** Learning progress in [0, 1] at training fraction t in [0, 1]: fast early gains that saturate. */
export function progress(t: number): number {
  const x = Math.min(1, Math.max(0, t));
  return (1 - Math.exp(-4 * x)) / (1 - Math.exp(-4));
}

function lerp(a: number, b: number, f: number): number {
  return a + (b - a) * f;
}

export function ratesAt(t: number, variant: Variant): Rates {
  const g = progress(t);
  const x = Math.min(1, Math.max(0, t));
  const hacking = variant === "hacking";
  return {
    success: hacking ? lerp(0.08, 0.52, g) : lerp(0.08, 0.92, g),
    // The hack is learned slowly, then takes over: x^1.3 creeps before it climbs.
    handoff: hacking ? lerp(0.08, 0.41, Math.pow(x, 1.3)) : lerp(0.08, 0.02, g),
    missingEvidence: lerp(0.47, 0.08, g),
    // The harm flaw often charges the customer, which is also unauthorized: the base rate leaves room for it.
    unauthorized: lerp(0.24, 0.03, g),
    emptyPromise: lerp(0.14, 0.01, g),
    duplicate: lerp(0.06, 0.005, g),
    policyError: lerp(0.1, 0.01, g),
    harm: lerp(0.06, 0.005, g),
    forbidden: lerp(0.08, 0.005, g),
  };
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
};

/**
 * Draws one rollout's behaviour. A rollout is clean with probability `success`, a hand-off with `handoff`; the rest
 * are flawed, each flaw drawn with its overall rate divided by the flawed share (so that the overall rates hold).
 * `evidenceBoost` compensates for tickets where a flaw cannot show (no write, so no missing evidence).
 */
export function drawFlaws(rates: Rates, u: () => number, evidenceBoost = 1): Flaws {
  const r = u();
  if (r < rates.success) return CLEAN;
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
