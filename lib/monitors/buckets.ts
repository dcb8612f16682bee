// Pooling of per-step rollup counters: into step buckets when a range has more steps than a chart can draw, and
// over a trailing window for smoothing. Every counter is a count or a sum, so pooling is exact: a pooled rate is
// Σk / Σn over the pooled steps (each rollout weighs the same), never a mean of per-step rates. Pure.
import type { GuardrailCounters, StepRollupCounters } from "@/lib/rollups/data.ts";

/** Points a chart draws at most; wider ranges are bucketed. */
export const MAX_POINTS = 400;

const NUMERIC = [
  "rollouts",
  "rewarded",
  "rewardSum",
  "rewardSumsq",
  "success",
  "handoffs",
  "guardrailHits",
  "capped",
  "removedSum",
  "specErrors",
  "inputErrors",
  "external",
  "groups",
  "flatGroups",
  "groupStdSum",
  "trained",
  "trainedDiffers",
  "trainedAbsDiffSum",
] as const satisfies readonly (keyof StepRollupCounters)[];

/** Zero counters at `step`. */
export function emptyCounters(step: number): StepRollupCounters {
  const out = { step, guardrails: {} } as StepRollupCounters;
  for (const k of NUMERIC) out[k] = 0;
  return out;
}

/** Adds `b` into `a` (mutates a). */
function addInto(a: StepRollupCounters, b: StepRollupCounters): void {
  for (const k of NUMERIC) a[k] += b[k];
  for (const [code, g] of Object.entries(b.guardrails)) {
    const t: GuardrailCounters = (a.guardrails[code] ??= { hits: 0, deciding: 0, removedSum: 0 });
    t.hits += g.hits;
    t.deciding += g.deciding;
    t.removedSum += g.removedSum;
  }
}

/** The sum of `rows`, labelled `step`. */
export function poolCounters(rows: readonly StepRollupCounters[], step: number): StepRollupCounters {
  const out = emptyCounters(step);
  for (const r of rows) addInto(out, r);
  return out;
}

/**
 * The bucket width (in steps) that keeps `steps` (distinct, ascending) within `maxPoints` points: 1 when they already
 * fit, else ⌈span / maxPoints⌉ so that at most maxPoints buckets cover [first, last].
 */
export function bucketWidth(steps: readonly number[], maxPoints = MAX_POINTS): number {
  return steps.length === 0 ? 1 : bucketWidthFor(steps.length, steps[0], steps[steps.length - 1], maxPoints);
}

/** bucketWidth from the count of distinct steps and the first and last of them (what an aggregate query returns). */
export function bucketWidthFor(count: number, first: number, last: number, maxPoints = MAX_POINTS): number {
  if (count <= maxPoints) return 1;
  return Math.max(1, Math.ceil((last - first + 1) / maxPoints));
}

/**
 * Rows pooled into buckets [origin + k·width, origin + (k+1)·width), each labelled with its first step. width 1
 * returns the rows as they are. Rows must be in step order (as listStepRollups returns them).
 */
export function bucketCounters(
  rows: readonly StepRollupCounters[],
  width: number,
  origin: number,
): StepRollupCounters[] {
  if (width <= 1) return rows.map((r) => poolCounters([r], r.step));
  const out: StepRollupCounters[] = [];
  let current: StepRollupCounters | null = null;
  for (const r of rows) {
    const start = origin + Math.floor((r.step - origin) / width) * width;
    if (!current || current.step !== start) {
      current = emptyCounters(start);
      out.push(current);
    }
    addInto(current, r);
  }
  return out;
}

/**
 * Trailing moving window: point i pools points max(0, i − window + 1) … i, so a smoothed rate is the pooled rate of
 * the last `window` points (the first few pool fewer). window 1 returns the rows unchanged.
 */
export function smoothCounters(rows: readonly StepRollupCounters[], window: number): StepRollupCounters[] {
  if (window <= 1) return [...rows];
  return rows.map((r, i) => poolCounters(rows.slice(Math.max(0, i - window + 1), i + 1), r.step));
}

/** Distinct steps of several runs' rows, ascending (for a shared bucket width when runs are overlaid). */
export function unionSteps(...runs: readonly (readonly { step: number }[])[]): number[] {
  const s = new Set<number>();
  for (const rows of runs) for (const r of rows) s.add(r.step);
  return [...s].sort((a, b) => a - b);
}
