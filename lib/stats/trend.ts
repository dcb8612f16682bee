// Trends over training steps and the within-group spread GRPO learns from. A per-step series is a list of
// StepPoint; points whose value is missing (null, NaN, ±Infinity) or whose n is 0 are ignored.

import { isFiniteNumber, mean, populationStd } from "@/lib/stats/descriptive.ts";
import { studentTQuantile } from "@/lib/stats/student-t.ts";

/** One evaluation of a per-step quantity: a rate or a mean at `step`, computed from n items (n optional). */
export type StepPoint = { step: number; value: number | null; n?: number };

/** The usable points, ascending by step, with their weights (n when weightByN, else 1). */
export function usablePoints(
  series: readonly StepPoint[],
  weightByN = false,
): { step: number; value: number; w: number }[] {
  const out: { step: number; value: number; w: number }[] = [];
  for (const p of series) {
    if (!isFiniteNumber(p.step) || !isFiniteNumber(p.value) || p.n === 0) continue;
    const w = weightByN ? (p.n ?? 1) : 1;
    if (!(w > 0) || !Number.isFinite(w)) continue;
    out.push({ step: p.step, value: p.value, w });
  }
  return out.sort((a, b) => a.step - b.step);
}

/**
 * Least-squares slope of value on step, β = Σ w(x − x̄)(y − ȳ) / Σ w(x − x̄)² (x̄, ȳ weighted means), in value units
 * per step (a share's slope of 1e-5 is +1 percentage point per 1,000 steps). Unweighted by default; weightByN
 * weights each step by its n (shares from small steps are noisier). Range (−∞, ∞).
 * null when fewer than two usable points or all at the same step.
 */
export function leastSquaresSlope(series: readonly StepPoint[], options: { weightByN?: boolean } = {}): number | null {
  const pts = usablePoints(series, options.weightByN);
  if (pts.length < 2) return null;
  const { sxx, sxy } = weightedMoments(pts);
  return sxx === 0 ? null : sxy / sxx;
}

/** Weighted means of step and value, and the weighted sums Σ w(x − x̄)² and Σ w(x − x̄)(y − ȳ), of usable points. */
function weightedMoments(pts: ReturnType<typeof usablePoints>) {
  let sw = 0;
  let sx = 0;
  let sy = 0;
  for (const p of pts) {
    sw += p.w;
    sx += p.w * p.step;
    sy += p.w * p.value;
  }
  const mx = sx / sw;
  const my = sy / sw;
  let sxy = 0;
  let sxx = 0;
  for (const p of pts) {
    sxy += p.w * (p.step - mx) * (p.value - my);
    sxx += p.w * (p.step - mx) * (p.step - mx);
  }
  return { mx, my, sxx, sxy };
}

export type SlopeInterval = { slope: number; lower: number; upper: number; df: number };

/**
 * The least-squares slope (as leastSquaresSlope) with its t interval: weighted least squares under Var(yᵢ) = σ²/wᵢ,
 * σ̂² = Σ w r² / (N − 2) from the residuals r about the fitted line, SE(β) = √(σ̂² / Σ w(x − x̄)²), and
 * β ± t(1 − (1 − level)/2, N − 2)·SE. The interval measures the points' scatter about the line, so it assumes the
 * points' errors independent. Scale-free in w (weights by n give the same interval as n/2). null with fewer than three
 * usable points or all at one step.
 */
export function slopeInterval(
  series: readonly StepPoint[],
  options: { weightByN?: boolean; level?: number } = {},
): SlopeInterval | null {
  const pts = usablePoints(series, options.weightByN);
  if (pts.length < 3) return null;
  const { mx, my, sxx, sxy } = weightedMoments(pts);
  if (sxx === 0) return null;
  const slope = sxy / sxx;
  const intercept = my - slope * mx;
  let rss = 0;
  for (const p of pts) rss += p.w * (p.value - intercept - slope * p.step) ** 2;
  const df = pts.length - 2;
  const se = Math.sqrt(rss / df / sxx);
  const t = studentTQuantile(1 - (1 - (options.level ?? 0.95)) / 2, df);
  return { slope, lower: slope - t * se, upper: slope + t * se, df };
}

export type EarlyLate = {
  /** Mean value over the first third of the usable points (by step; weighted by n when weightByN). */
  early: number;
  /** Mean value over the last third. */
  late: number;
  /** late − early. */
  change: number;
  /** late / early; null when early = 0. */
  ratio: number | null;
};

/**
 * Early-vs-late comparison: the (weighted) mean of the first ⌊N/3⌋ usable points by step against the last ⌊N/3⌋;
 * with weightByN and value = share this is the pooled share Σ k / Σ n of each third. null when N < 3.
 */
export function earlyVsLate(series: readonly StepPoint[], options: { weightByN?: boolean } = {}): EarlyLate | null {
  const pts = usablePoints(series, options.weightByN);
  const third = Math.floor(pts.length / 3);
  if (third < 1) return null;
  const avg = (part: typeof pts) => {
    let sw = 0;
    let s = 0;
    for (const p of part) {
      sw += p.w;
      s += p.w * p.value;
    }
    return s / sw;
  };
  const early = avg(pts.slice(0, third));
  const late = avg(pts.slice(pts.length - third));
  return { early, late, change: late - early, ratio: early === 0 ? null : late / early };
}

/**
 * GRPO group-relative advantage A_i = (r_i − mean) / std with the population std of the group's rewards. Range
 * (−∞, ∞), in practice |A| ≤ sqrt(K − 1). A member with a missing reward gets null and is left out of mean and
 * std; every member gets null ("no gradient") when the std is 0 — all rewards equal, e.g. every rollout capped by
 * the same guardrail — or fewer than two rewards are present.
 */
export function groupAdvantage(rewards: readonly (number | null | undefined)[]): (number | null)[] {
  const present = rewards.filter(isFiniteNumber);
  const std = populationStd(present);
  if (std === null || std === 0) return rewards.map(() => null);
  const m = mean(present)!;
  return rewards.map((r) => (isFiniteNumber(r) ? (r - m) / std : null));
}

/** A group's running sums, as the ledger's rollups store them: n rewards, their sum and their sum of squares. */
export type GroupMoments = { n: number; sum: number; sumsq: number };

/**
 * Population std from moments, sqrt(max(0, sumsq/n − (sum/n)²)). The subtraction cancels catastrophically when
 * the rewards are (nearly) equal, so a variance within 1e-12 of 0 relative to sumsq/n is taken as exactly 0 (no
 * gradient), not as a 1e-9 spread. Range [0, ∞). null when n ≤ 0 or a moment is not finite.
 */
export function groupStdFromMoments({ n, sum, sumsq }: GroupMoments): number | null {
  if (!(n > 0) || !Number.isFinite(sum) || !Number.isFinite(sumsq)) return null;
  const m2 = sumsq / n;
  const variance = m2 - (sum / n) ** 2;
  return variance <= 1e-12 * Math.max(m2, Number.MIN_VALUE) ? 0 : Math.sqrt(variance);
}

/**
 * Mean within-group reward std, (1/G) Σ_g std_g over the G groups with n ≥ 1 (a group of one counts, with std 0: it
 * gives no gradient either). The monitor alarms when this falls below 0.05. Range [0, 0.5] for rewards in [0, 1].
 * null when no group has rewards.
 */
export function meanWithinGroupStd(groups: readonly GroupMoments[]): number | null {
  const stds: number[] = [];
  for (const g of groups) {
    const s = groupStdFromMoments(g);
    if (s !== null) stds.push(s);
  }
  return mean(stds);
}

/** Share of groups (n ≥ 1) whose rewards are all equal (std 0): no gradient at all. Range [0, 1]. null if none. */
export function noGradientShare(groups: readonly GroupMoments[]): number | null {
  let counted = 0;
  let flat = 0;
  for (const g of groups) {
    const s = groupStdFromMoments(g);
    if (s === null) continue;
    counted++;
    if (s === 0) flat++;
  }
  return counted === 0 ? null : flat / counted;
}
