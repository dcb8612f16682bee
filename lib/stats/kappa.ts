// Cohen's κ and the confusion matrix it is computed from: two raters (the ledger and a human) labelling the same
// items on a nominal scale. A pair with a missing label (null, undefined, NaN) is ignored: that item was not rated
// by both, and κ is defined on the items both raters labelled.

import { bootstrapMany, type BootstrapInterval, type BootstrapOptions } from "@/lib/stats/intervals.ts";

export type Label = string | number | boolean;
/** One item: [label from rater A, label from rater B]. Missing labels are null or undefined. */
export type LabelPair<L extends Label> = readonly [L | null | undefined, L | null | undefined];

export type ConfusionMatrix<L extends Label> = {
  /** Row and column labels, in the order given, then any other label in order of first appearance. */
  labels: L[];
  /** counts[i][j] = items rater A labelled labels[i] and rater B labelled labels[j]. */
  counts: number[][];
  /** Items rated by both (the sum of counts). */
  n: number;
};

function isMissing(v: unknown): boolean {
  return v === null || v === undefined || (typeof v === "number" && Number.isNaN(v));
}

/** Cross-tabulates rater A (rows) against rater B (columns); pairs with a missing side are ignored. */
export function confusionMatrix<L extends Label>(
  pairs: readonly LabelPair<L>[],
  labels: readonly L[] = [],
): ConfusionMatrix<L> {
  const index = new Map<L, number>();
  const all: L[] = [];
  const add = (l: L) => {
    if (!index.has(l)) {
      index.set(l, all.length);
      all.push(l);
    }
  };
  for (const l of labels) add(l);
  for (const [a, b] of pairs) {
    if (isMissing(a) || isMissing(b)) continue;
    add(a as L);
    add(b as L);
  }
  const counts = all.map(() => new Array<number>(all.length).fill(0));
  let n = 0;
  for (const [a, b] of pairs) {
    if (isMissing(a) || isMissing(b)) continue;
    counts[index.get(a as L)!][index.get(b as L)!]++;
    n++;
  }
  return { labels: all, counts, n };
}

/** Who the two raters of a matrix are (rows, columns) and what they give, for the reason κ is undefined. */
export type RaterNames = { a: string; b: string; what: string };

/**
 * Why κ is undefined on this square count matrix, or null when it is defined: no item rated by both, or a rater
 * who gave every item the same label. With one rater constant, p_o = p_e whatever the other does, so κ is 0 on
 * every sample — a number that says nothing about agreement, with a zero-width bootstrap interval; it is reported
 * as undefined instead. E.g. "the ledger gives every item the same verdict".
 */
export function kappaUndefinedReason(
  counts: readonly (readonly number[])[],
  names: RaterNames = { a: "rater A", b: "rater B", what: "label" },
): string | null {
  const k = counts.length;
  const rows = counts.map((r) => r.reduce((s, c) => s + c, 0));
  const cols = Array.from({ length: k }, (_, j) => counts.reduce((s, r) => s + (r[j] ?? 0), 0));
  const n = rows.reduce((s, c) => s + c, 0);
  if (!(n > 0)) return "no item was rated by both";
  const constantA = rows.filter((c) => c > 0).length <= 1;
  const constantB = cols.filter((c) => c > 0).length <= 1;
  if (constantA && constantB) return `${names.a} and ${names.b} each give every item the same ${names.what}`;
  if (constantA) return `${names.a} gives every item the same ${names.what}`;
  if (constantB) return `${names.b} gives every item the same ${names.what}`;
  return null;
}

/**
 * Cohen's κ from a square count matrix: κ = (p_o − p_e) / (1 − p_e), p_o = Σ_i c_ii / n (observed agreement),
 * p_e = Σ_i (row_i / n)(col_i / n) (agreement expected if the raters labelled independently with their own
 * marginals). Range [−1, 1]: 1 is perfect agreement, 0 chance-level, negative worse than chance.
 * null when n = 0 or either rater used one label for everything (see kappaUndefinedReason).
 */
export function kappaFromMatrix(counts: readonly (readonly number[])[]): number | null {
  const k = counts.length;
  let n = 0;
  let diagonal = 0;
  const rows = new Array<number>(k).fill(0);
  const cols = new Array<number>(k).fill(0);
  for (let i = 0; i < k; i++) {
    if (counts[i].length !== k) throw new RangeError("a confusion matrix must be square");
    for (let j = 0; j < k; j++) {
      const c = counts[i][j];
      n += c;
      rows[i] += c;
      cols[j] += c;
      if (i === j) diagonal += c;
    }
  }
  if (!(n > 0)) return null;
  if (rows.filter((c) => c > 0).length <= 1 || cols.filter((c) => c > 0).length <= 1) return null;
  let pe = 0;
  for (let i = 0; i < k; i++) pe += (rows[i] / n) * (cols[i] / n);
  const po = diagonal / n;
  // p_e is a sum of rounded products; treat "equal to 1 within rounding" as the degenerate case.
  if (1 - pe < 1e-12) return null;
  return Math.min(1, (po - pe) / (1 - pe));
}

/** Cohen's κ of two raters over labelled pairs (see kappaFromMatrix for the formula, range and null cases). */
export function cohensKappa<L extends Label>(pairs: readonly LabelPair<L>[]): number | null {
  return kappaFromMatrix(confusionMatrix(pairs).counts);
}

/**
 * Cohen's κ with a seeded percentile-bootstrap interval over items (default 2000 resamples, 95%). Chosen over the
 * large-sample standard error because shadow samples are small and κ's sampling distribution is skewed near 1.
 * Pairs with a missing side are dropped before resampling. null as for κ, or when fewer than half the
 * resamples have a defined κ.
 */
export function cohensKappaInterval<L extends Label>(
  pairs: readonly LabelPair<L>[],
  options: BootstrapOptions = {},
): BootstrapInterval | null {
  return cohensKappaIntervals([{ pairs }], options)[0];
}

/**
 * cohensKappaInterval of each list of pairs, with the same options (each list may set its own `iterations`): lists of
 * the same size share one stream of draws (bootstrapMany), so κ intervals of many signals over the same items — each
 * guardrail's flags, the success verdict — cost one bootstrap's draws, not one each. Each result equals
 * cohensKappaInterval's for that list to the bit.
 *
 * The resampled items are cell indices sorted by cell (as in cohensKappaInterval), so a draw d lands in the cell
 * whose run of indices holds d; a resample's count of a cell is the number of draws in that run, read off one count
 * of the draws per resample shared by every list (below[x] = draws < x).
 */
export function cohensKappaIntervals<L extends Label>(
  lists: readonly { pairs: readonly LabelPair<L>[]; iterations?: number }[],
  options: BootstrapOptions = {},
): (BootstrapInterval | null)[] {
  const tables = lists.map(({ pairs, iterations }) => {
    const { counts } = confusionMatrix(pairs);
    const k = counts.length;
    // start of each cell's run of indices; the last entry is n
    const starts = new Int32Array(k * k + 1);
    for (let c = 0; c < k * k; c++) starts[c + 1] = starts[c] + counts[Math.floor(c / k)][c % k];
    return { k, counts, starts, n: starts[k * k], iterations };
  });
  const out = new Array<BootstrapInterval | null>(lists.length).fill(null);
  for (const n of new Set(tables.map((t) => t.n))) {
    const group = tables.map((t, j) => ({ t, j })).filter((x) => x.t.n === n);
    const below = new Int32Array(n + 1);
    const single = group.length === 1 ? group[0].t : null;
    // one list: each draw's cell directly; several: the draws counted once, each list reading its runs
    const cellOf = single ? new Int32Array(n) : null;
    if (single && cellOf)
      for (let c = 0; c < single.k * single.k; c++) cellOf.fill(c, single.starts[c], single.starts[c + 1]);
    const flat = new Int32Array(Math.max(1, ...group.map((x) => x.t.k * x.t.k)));
    const results = bootstrapMany(
      n,
      group.map(({ t }) => {
        const matrix = t.counts.map(() => new Array<number>(t.k));
        const kappaOfFlat = () => {
          for (let i = 0; i < t.k; i++) for (let j = 0; j < t.k; j++) matrix[i][j] = flat[i * t.k + j];
          return kappaFromMatrix(matrix);
        };
        return {
          estimate: kappaFromMatrix(t.counts),
          iterations: t.iterations,
          resample: (draws: Int32Array) => {
            if (cellOf) {
              flat.fill(0);
              for (let d = 0; d < draws.length; d++) flat[cellOf[draws[d]]]++;
            } else for (let c = 0; c < t.k * t.k; c++) flat[c] = below[t.starts[c + 1]] - below[t.starts[c]];
            return kappaOfFlat();
          },
        };
      }),
      options,
      cellOf
        ? undefined
        : (draws) => {
            below.fill(0);
            for (let d = 0; d < draws.length; d++) below[draws[d] + 1]++;
            for (let x = 1; x <= n; x++) below[x] += below[x - 1];
          },
    );
    group.forEach(({ j }, g) => (out[j] = results[g]));
  }
  return out;
}
