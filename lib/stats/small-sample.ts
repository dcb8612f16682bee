// The guard between a count and a percentage on screen. A 1% shadow sample sliced by guardrail and step quickly
// leaves a handful of items per cell, where "100%" means "3 of 3". Below the threshold the label says so instead of
// printing a bare percentage, and the interval is always returned so the UI can show how wide the doubt is.

import { wilson, Z_95, type Interval } from "@/lib/stats/intervals.ts";

/** Below this many items a rate is "too few to say". */
export const MIN_N_FOR_RATE = 30;

export type RateDescription = {
  /** "too few to say" when n < minN, otherwise the rounded percentage ("88%", never "100%" unless k = n). */
  label: string;
  tooFew: boolean;
  /** k / n; null when n = 0. Present even when tooFew, for tooltips and exports. */
  rate: number | null;
  k: number;
  n: number;
  /** The interval passed in, else Wilson at z; null when n = 0. */
  interval: Interval | null;
  /** "80–93%"; null when n = 0. */
  intervalLabel: string | null;
  /** Always shown next to or under the label: "3 of 12 · 95% CI 9–53%", or "no data". */
  detail: string;
};

function percent(x: number, digits: number): string {
  return (x * 100).toFixed(digits);
}

/**
 * Describes the rate k/n for display. tooFew = n < minN (default 30). The percentage is rounded to `digits`
 * (default 0) but never rounds to 100% when k < n or to 0% when k > 0 (it reads "> 99%" / "< 1%" instead).
 * `interval` overrides the Wilson interval (e.g. a weighted or bootstrap one; then n may be an effective n).
 * Throws RangeError on counts that cannot be (k < 0, k > n, not finite): those are bugs upstream, not data.
 */
export function describeRate(input: {
  k: number;
  n: number;
  interval?: Interval | null;
  minN?: number;
  z?: number;
  digits?: number;
}): RateDescription {
  const { k, n, minN = MIN_N_FOR_RATE, z = Z_95, digits = 0 } = input;
  if (!Number.isFinite(k) || !Number.isFinite(n) || k < 0 || n < 0 || k > n) {
    throw new RangeError(`impossible counts: k = ${k}, n = ${n}`);
  }
  const tooFew = n < minN;
  if (n === 0) {
    return {
      label: "too few to say",
      tooFew,
      rate: null,
      k,
      n,
      interval: null,
      intervalLabel: null,
      detail: "no data",
    };
  }
  const rate = k / n;
  const interval = input.interval ?? wilson(k, n, z);
  const intervalLabel = interval && `${percent(interval.lower, digits)}–${percent(interval.upper, digits)}%`;
  const step = 10 ** -digits;
  let shown = `${percent(rate, digits)}%`;
  if (k < n && Number(percent(rate, digits)) >= 100) shown = `> ${(100 - step).toFixed(digits)}%`;
  if (k > 0 && Number(percent(rate, digits)) <= 0) shown = `< ${step.toFixed(digits)}%`;
  const count = Number.isInteger(k) && Number.isInteger(n) ? `${k} of ${n}` : `effective n ≈ ${n.toFixed(1)}`;
  const level = input.interval ? "CI" : `${levelOf(z)}% CI`;
  return {
    label: tooFew ? "too few to say" : shown,
    tooFew,
    rate,
    k,
    n,
    interval,
    intervalLabel,
    detail: intervalLabel ? `${count} · ${level} ${intervalLabel}` : count,
  };
}

/** Two-sided level of z, rounded for labels: 1.96 → 95, 2.576 → 99. */
function levelOf(z: number): number {
  // Φ(z) via the Abramowitz–Stegun 7.1.26 erf approximation (|error| < 1.5e-7) is ample for a label.
  const x = z / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf =
    1 -
    ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return Math.round(erf * 1000) / 10;
}
