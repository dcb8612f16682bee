// How big a shadow audit must be. For a target half-width h of the agreement rate's 95% interval at an expected
// agreement p, simple random sampling of items needs n = ⌈z²·p(1 − p)/h²⌉ (±3% at 88%: 451; ±5%: 163; ±10%: 41).
// Sampling whole tickets is not simple random sampling: the K rollouts of one ticket tend to agree or disagree
// together, so m items per ticket carry the information of fewer independent ones. Kish's design effect
// deff = 1 + (m − 1)·ρ, with ρ the intra-ticket correlation of the agreement indicator, scales n up; the tickets to
// draw are ⌈n·deff/m⌉, and the rate that yields them over a window of N tickets is tickets/N. ρ measured from a few
// dozen tickets is uncertain (0 to 0.25 is common), and at 32 rollouts per ticket that is a design effect of 1.0 to
// 8.8: the planner plans at the upper end of ρ's interval, as it plans agreement at the cautious end of its own.

import { bootstrapCI, Z_95, wilson, type BootstrapInterval, type BootstrapOptions } from "@/lib/stats/intervals.ts";

/** ρ used when the reviews so far cannot estimate it (fewer than MIN_ICC_TICKETS tickets with two reviewed items). */
export const DEFAULT_INTRA_TICKET_CORRELATION = 0.3;
/** Tickets with at least two reviewed items needed before ρ is estimated from the reviews. */
export const MIN_ICC_TICKETS = 10;
/** Expected agreement used when the run has no reviews yet. */
export const DEFAULT_EXPECTED_AGREEMENT = 0.88;
/** The half-widths the batch form plans for. */
export const PLAN_HALF_WIDTHS = [0.03, 0.05, 0.1] as const;

/** Items for a ±halfWidth interval at agreement p under simple random sampling: ⌈z²·p(1 − p)/h²⌉ (at least 1). */
export function itemsForHalfWidth(p: number, halfWidth: number, z: number = Z_95): number {
  if (!(p >= 0 && p <= 1)) throw new RangeError(`expected agreement must be in [0, 1], got ${p}`);
  if (!(halfWidth > 0 && halfWidth < 1)) throw new RangeError(`half-width must be in (0, 1), got ${halfWidth}`);
  // a p of exactly 0 or 1 would plan 0 items: plan as if one item in the sample's worth of doubt remained
  const v = Math.max(p * (1 - p), 0.25 / 100);
  return Math.max(1, Math.ceil((z * z * v) / (halfWidth * halfWidth) - 1e-9));
}

/**
 * The agreement to plan a stratum with, from k agreeing items of n reviewed in it: the end of the Wilson 95% interval
 * of k/n nearest ½ (½ when the interval holds it), the cautious end for sample size, since p(1 − p) grows towards ½.
 * A stratum whose 30 reviews all agreed is planned at 0.886, not at 1 (which would plan a single item).
 */
export function plannedAgreement(k: number, n: number): number {
  const w = wilson(k, n);
  if (!w) throw new RangeError(`agreeing items must be in [0, n] with n > 0, got ${k} of ${n}`);
  return w.lower > 0.5 ? w.lower : w.upper < 0.5 ? w.upper : 0.5;
}

/** Kish's design effect of sampling clusters of m items with intra-cluster correlation ρ: 1 + (m − 1)·ρ. */
export function designEffect(itemsPerTicket: number, icc: number): number {
  return 1 + Math.max(0, itemsPerTicket - 1) * Math.max(0, icc);
}

/**
 * The ANOVA estimator of the intra-class correlation of a binary indicator (agree or not) over groups (tickets) of
 * unequal size: ρ = (MSB − MSW)/(MSB + (m₀ − 1)·MSW), m₀ = (N − Σ n_i²/N)/(g − 1). Only groups of two or more count.
 * Clamped to [0, 1] (a negative estimate means no clustering). null with fewer than two groups or no variation.
 */
export function intraTicketCorrelation(groups: readonly (readonly boolean[])[]): number | null {
  const gs = groups.filter((g) => g.length >= 2);
  const g = gs.length;
  if (g < 2) return null;
  const N = gs.reduce((s, x) => s + x.length, 0);
  const total = gs.reduce((s, x) => s + x.filter(Boolean).length, 0);
  const grand = total / N;
  let ssb = 0;
  let ssw = 0;
  for (const x of gs) {
    const k = x.filter(Boolean).length;
    const mean = k / x.length;
    ssb += x.length * (mean - grand) ** 2;
    ssw += k * (1 - mean) ** 2 + (x.length - k) * mean ** 2;
  }
  const msb = ssb / (g - 1);
  const msw = ssw / (N - g);
  const m0 = (N - gs.reduce((s, x) => s + x.length ** 2, 0) / N) / (g - 1);
  const den = msb + (m0 - 1) * msw;
  if (!(den > 0)) return null;
  return Math.min(1, Math.max(0, (msb - msw) / den));
}

/**
 * ρ with a seeded percentile-bootstrap interval (95%, 2,000 resamples by default) over tickets: whole tickets are
 * resampled, as they were sampled. Only tickets with two or more items count. null when ρ is not defined on them, or
 * on fewer than half of the resamples (intervals.ts bootstrapCI).
 */
export function intraTicketCorrelationInterval(
  groups: readonly (readonly boolean[])[],
  options: BootstrapOptions = {},
): BootstrapInterval | null {
  return bootstrapCI(
    groups.filter((g) => g.length >= 2),
    (sample) => intraTicketCorrelation(sample),
    options,
  );
}

export type PlanLine = {
  /** Items needed under simple random sampling. */
  itemsSrs: number;
  /** Items needed with the design effect. */
  items: number;
  ticketsNeeded: number;
  /** ticketsNeeded / tickets in the window; above 1 when the window cannot yield the target. */
  rate: number;
  feasible: boolean;
};

function planLine(p: number, halfWidth: number, deff: number, itemsPerTicket: number, tickets: number): PlanLine {
  const itemsSrs = itemsForHalfWidth(p, halfWidth);
  const items = Math.ceil(itemsSrs * deff - 1e-9);
  const need = Math.ceil(items / Math.max(1, itemsPerTicket) - 1e-9);
  const rate = tickets > 0 ? need / tickets : Infinity;
  return { itemsSrs, items, ticketsNeeded: need, rate, feasible: rate <= 1 };
}

export type PlanInput = {
  halfWidth: number;
  /** Expected agreement overall. */
  agreement: number;
  /** Reviewed items per sampled ticket: 1 for pick "one", rollouts per ticket for pick "all". */
  itemsPerTicket: number;
  /** Intra-ticket correlation ρ. */
  icc: number;
  /** Tickets in the step window. */
  tickets: number;
  /** Strata (deciding guardrail): tickets in the window and the stratum's expected agreement. */
  strata: readonly { stratum: string; tickets: number; agreement: number }[];
};

export type AuditPlan = Omit<PlanInput, "strata"> & {
  designEffect: number;
  overall: PlanLine;
  strata: (PlanInput["strata"][number] & PlanLine)[];
};

/** The sample size overall and per stratum for a target half-width, and the rate that yields it over the window. */
export function planAudit(input: PlanInput): AuditPlan {
  const deff = designEffect(input.itemsPerTicket, input.icc);
  return {
    ...input,
    designEffect: deff,
    overall: planLine(input.agreement, input.halfWidth, deff, input.itemsPerTicket, input.tickets),
    strata: input.strata.map((s) => ({
      ...s,
      ...planLine(s.agreement, input.halfWidth, deff, input.itemsPerTicket, s.tickets),
    })),
  };
}
