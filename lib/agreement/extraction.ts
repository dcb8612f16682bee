import type { PrimaryPair } from "@/lib/agreement/pairs.ts";
import { toStatClaims, type ExtractionPair } from "@/lib/stats/extraction-accuracy.ts";

// The report's extraction population: which items count and what they are compared on. The counting itself is
// lib/stats/extraction-accuracy.ts, the same function the monitors' audit series and the extraction alarm call
// (lib/monitors/audit.ts, whose extractionPair applies the same rule), so the page, the API, the CLI and the
// monitors give one figure for the same items.

/**
 * The ledger's claims (what the extractor produced) against the claims the primary annotator labelled, for pairs
 * whose ledger entry has claims, each over the slots of the item's own case — never over slots other items of the
 * selection use, so an item counts the same whatever else the filter selects.
 */
export function extractionPairs(pairs: PrimaryPair[]): (ExtractionPair & { p: PrimaryPair })[] {
  return pairs
    .filter((p) => p.ledger.claims)
    .map((p) => ({
      p,
      extracted: toStatClaims(p.ledger.claims),
      human: toStatClaims(p.human.claims),
      slots: p.i.slots,
    }));
}
