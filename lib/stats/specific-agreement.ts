// Positive and negative (specific) agreement of two raters on a binary signal (Cicchetti & Feinstein 1990; Graham &
// Bull 1998): how far the two sides agree on each class on its own. With a the items both call positive, d both
// negative, b and c those only one side calls positive,
//   PA = 2a / (2a + b + c),   NA = 2d / (2d + b + c),
// each the agreeing share of the ratings in that class (PA is the F1 of either side's positives against the other's).
// κ, AC1 and PABAK summarise both classes in one number, and at extreme prevalence the common class dominates it: 3
// ledger successes of which the humans confirm 1 (and 1 they pass that the ledger fails), among 60 failures both sides
// agree on, read AC1 0.95 while PA is 0.40. Pure.
import { wilson, type Interval } from "@/lib/stats/intervals.ts";

export type SpecificAgreement = {
  /** PA or NA, in [0, 1]. */
  value: number;
  /** Items either side puts in the class (a + b + c, or d + b + c): what the interval is counted over. */
  items: number;
  /** Items both sides put in the class (a, or d). */
  both: number;
  /**
   * Wilson's 95% interval at the items either side puts in the class: the two ratings of an item are not independent,
   * so counting ratings (2a + b + c) would make it too narrow. Never zero-width, also at PA = 1.
   */
  interval: Interval;
};

/**
 * PA and NA of a 2×2 table (rows: rater A positive / not; columns: rater B positive / not). A class neither side
 * uses has no specific agreement (null). Throws a RangeError on a table that is not 2×2 or a negative count.
 */
export function specificAgreement(table: readonly (readonly number[])[]): {
  positive: SpecificAgreement | null;
  negative: SpecificAgreement | null;
} {
  if (table.length !== 2 || table.some((r) => r.length !== 2)) throw new RangeError("a 2×2 table is needed");
  const [[a, b], [c, d]] = table;
  for (const x of [a, b, c, d]) if (!(x >= 0)) throw new RangeError(`a count must be a non-negative number, got ${x}`);
  const of = (both: number): SpecificAgreement | null => {
    const items = both + b + c;
    if (!(items > 0)) return null;
    const value = (2 * both) / (2 * both + b + c);
    const w = wilson(value * items, items)!;
    return { value, items, both, interval: { lower: w.lower, upper: w.upper } };
  };
  return { positive: of(a), negative: of(d) };
}
