import type { Interval } from "@/lib/stats/intervals.ts";
import { describeRate, MIN_N_FOR_RATE } from "@/lib/stats/small-sample.ts";
import type { WeightedProportion } from "@/lib/stats/weighted.ts";

// One shape for every number the agreement page shows, so the small-sample guard is applied in one place: below
// MIN_N_FOR_RATE items the label is "too few to say" and the detail (always shown with it) gives n and the interval,
// never the bare figure. The value stays in the JSON for exports.

export type Figure = {
  /** The estimate; null when undefined (no data, or a statistic that is 0/0). */
  value: number | null;
  /** Items the figure is derived from (for weighted figures, Kish's effective n). */
  n: number;
  tooFew: boolean;
  /**
   * What the page prints: "88%", "0.712", "too few to say", or "not defined: <reason>" for a statistic that has no
   * value on these items (κ when one side gives every item the same verdict; α or ρ without spread).
   */
  label: string;
  /** Why the statistic is undefined ("the ledger gives every item the same verdict"); null when it is defined. */
  undefinedReason: string | null;
  interval: Interval | null;
  /** n and the interval: "12 of 14 · 95% CI 60–96%", "n = 12 · 95% CI 0.101 to 0.800". */
  detail: string;
};

export type RateFigure = Figure & { k: number };

/** A proportion k/n (Wilson interval unless one is given), through describeRate. */
export function rateFigure(k: number, n: number, interval?: Interval | null): RateFigure {
  const d = describeRate({ k, n, interval });
  return {
    value: d.rate,
    k,
    n,
    tooFew: d.tooFew,
    label: d.label,
    undefinedReason: null,
    interval: d.interval && { lower: d.interval.lower, upper: d.interval.upper },
    detail: d.detail,
  };
}

/** A weighted (Hájek) proportion, guarded on its effective n. */
export function weightedFigure(w: WeightedProportion | null): RateFigure {
  if (!w) return rateFigure(0, 0);
  // estimate ≤ 1, so estimate · n_eff ≤ n_eff exactly in floating point
  const f = rateFigure(w.estimate * w.nEffective, w.nEffective, w.interval);
  return { ...f, detail: `${f.detail} · weighted 1/π over ${w.n} items` };
}

/**
 * A statistic that is not a proportion (κ, α, MAE, ρ), printed with 3 decimals when n ≥ MIN_N_FOR_RATE. An undefined
 * one (value null) reads "not defined: <reason>" and has no interval, never a zero-width one.
 */
export function statFigure(
  value: number | null,
  n: number,
  interval: Interval | null,
  opts: { unit?: string; undefinedReason?: string | null } = {},
): Figure {
  const tooFew = n < MIN_N_FOR_RATE;
  const iv = value === null ? null : interval;
  const ivText = iv && `95% CI ${iv.lower.toFixed(3)} to ${iv.upper.toFixed(3)}`;
  const count = Number.isInteger(n) ? `n = ${n}` : `effective n ≈ ${n.toFixed(1)}`;
  const reason = value === null ? (opts.undefinedReason ?? null) : null;
  return {
    value,
    n,
    tooFew,
    label:
      value === null
        ? reason
          ? `not defined: ${reason}`
          : "not defined"
        : tooFew
          ? "too few to say"
          : `${value.toFixed(3)}${opts.unit ?? ""}`,
    undefinedReason: reason,
    interval: iv && { lower: iv.lower, upper: iv.upper },
    detail: ivText ? `${count} · ${ivText}` : count,
  };
}
