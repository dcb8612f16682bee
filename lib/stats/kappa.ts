// Cohen's κ and the confusion matrix it is computed from: two raters (the ledger and a human) labelling the same
// items on a nominal scale. A pair with a missing label (null, undefined, NaN) is ignored: that item was not rated
// by both, and κ is defined on the items both raters labelled.

import {
  bootstrapCounts,
  perfectAgreementInterval,
  type BootstrapInterval,
  type BootstrapOptions,
} from "@/lib/stats/intervals.ts";

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
  return kappaIntervalOfMatrix(confusionMatrix(pairs).counts, options);
}

/**
 * κ's interval when every item agrees (no count off the diagonal) and κ is defined (= 1): every resample agrees
 * perfectly too, so the bootstrap cannot vary and would read [1, 1]. perfectAgreementInterval instead, with p_e from
 * the marginals; no resample is drawn (iterations and valid 0). null otherwise.
 */
function perfectKappaInterval(counts: readonly (readonly number[])[], level: number): BootstrapInterval | null {
  if (kappaFromMatrix(counts) === null) return null;
  let n = 0;
  let offDiagonal = 0;
  counts.forEach((row, i) =>
    row.forEach((c, j) => {
      n += c;
      if (i !== j) offDiagonal += c;
    }),
  );
  if (offDiagonal > 0) return null;
  const rows = counts.map((row) => row.reduce((a, c) => a + c, 0) / n);
  const cols = counts.map((_, j) => counts.reduce((a, row) => a + row[j], 0) / n);
  const pe = rows.reduce((a, r, i) => a + r * cols[i], 0);
  return { estimate: 1, ...perfectAgreementInterval(n, pe, level), level, iterations: 0, valid: 0 };
}

/**
 * cohensKappaInterval from the confusion matrix itself (counts[i][j]: items rater A labelled i and rater B j). κ reads
 * the items only through these cells, so each resample is drawn as its cell counts (bootstrapCounts: one multinomial
 * draw over the k² cells, not n index draws), and a κ interval over 100,000 items costs what one over 100 does.
 */
export function kappaIntervalOfMatrix(
  counts: readonly (readonly number[])[],
  options: BootstrapOptions = {},
): BootstrapInterval | null {
  const perfect = perfectKappaInterval(counts, options.level ?? 0.95);
  if (perfect) return perfect;
  const k = counts.length;
  const matrix = counts.map(() => new Array<number>(k).fill(0));
  return bootstrapCounts(
    counts.flat(),
    {
      estimate: kappaFromMatrix(counts),
      resample: (cells) => {
        for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) matrix[i][j] = cells[i * k + j];
        return kappaFromMatrix(matrix);
      },
    },
    options,
  );
}
