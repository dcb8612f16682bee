import type { AgreementItem } from "@/lib/agreement/data.ts";
import { extractionPairs } from "@/lib/agreement/extraction.ts";
import { countedItems, primaryPairs } from "@/lib/agreement/pairs.ts";
import { agreementRate } from "@/lib/stats/agreement.ts";
import { extractionAccuracy } from "@/lib/stats/extraction-accuracy.ts";

// The agreement page's two headline counts, one definition for the page, the API, the CLI and the audit gate: shadow
// agreement over each item's primary review (an overlap item counts once), and claim-extraction accuracy over the
// slots of the primary pairs whose ledger entry has claims, whose evidence is the number of items behind it.

/** Shadow agreement and extraction accuracy of the items, each item once (its primary review; blind reviews only). */
export function headlineCounts(items: AgreementItem[], tolerance: number) {
  const pairs = primaryPairs(countedItems(items));
  const agreement = agreementRate(
    pairs.map((p) => ({ human: p.human.reward, ledger: p.ledger.reward })),
    { tolerance },
  );
  const ex = extractionPairs(pairs);
  return { pairs, agreement, extraction: { pairs: ex, accuracy: extractionAccuracy(ex), items: ex.length } };
}
