// What the trajectory browser says of its match count: the number when it is exact, the bound when only the bound is
// known, an estimate labelled as one, and that it was not counted when the search's timeout stopped the count (null).
import type { LedgerCount } from "@/lib/ledger/browse.ts";

export function matchCountLabel(c: LedgerCount | null): string {
  if (c === null) return "matches not counted: counting them took too long";
  const n = c.count.toLocaleString("en-US");
  if (c.exact) return `${n} matching`;
  if (c.atLeast) return `more than ${n} matching`;
  return `≈ ${n} matching (estimated from a sample of the rows)`;
}
