// "Did the fixes pay off?": the headline agreement against the ledger as it was when each item was reviewed and as
// it is now (after re-scores), overall and per guardrail, with the items whose entry moved. Pure: the items come
// from loadAgreementItems, which fills both ledgers of each item.
import { onBasis, type AgreementItem } from "@/lib/agreement/data.ts";
import { countedItems, primaryPairs } from "@/lib/agreement/pairs.ts";
import type { AgreementFilter } from "@/lib/agreement/schema.ts";
import { scoresAgree } from "@/lib/stats/agreement.ts";
import { GUARDRAIL_CODES } from "@/lib/verifier/codes.ts";

export type BasisRate = { agreeing: number; n: number; rate: number | null };

export type BasisComparison = {
  reviewed: BasisRate;
  now: BasisRate;
  /** Counted items whose rollout has a current entry other than the one the item recorded. */
  rescored: string[];
  /** Of those, the items whose agreement (|human − ledger| ≤ tolerance) flipped: agree now, or no longer. */
  flipped: { itemId: string; agreesNow: boolean }[];
  /** Per guardrail (the items a review or either ledger flags with it), both rates; only rows where they differ. */
  byGuardrail: { guardrail: string; reviewed: BasisRate; now: BasisRate }[];
  /** The two bases give a different headline (the page shows both only then). */
  differ: boolean;
};

function rate(items: AgreementItem[], tolerance: number): BasisRate {
  const pairs = primaryPairs(countedItems(items));
  const agreeing = pairs.filter((p) => scoresAgree(p.human.reward, p.ledger.reward, tolerance)).length;
  return { agreeing, n: pairs.length, rate: pairs.length ? agreeing / pairs.length : null };
}

const itemAgrees = (i: AgreementItem, tolerance: number) =>
  i.reviews.length > 0 && i.ledger.reward !== null && scoresAgree(i.reviews[0].reward, i.ledger.reward, tolerance);

/** Items where the guardrail is flagged by a review or by either ledger: the same items under both bases. */
function flaggedEither(all: AgreementItem[], code: string): AgreementItem[] {
  return all.filter(
    (i) =>
      i.reviews.some((r) => r.guardrails.includes(code)) ||
      (i.bases ?? { reviewed: i.ledger, now: null }).reviewed.guardrails.includes(code as never) ||
      !!i.bases?.now?.guardrails.includes(code as never),
  );
}

/**
 * Both bases over the same items: under a guardrail (the filter's, and each row of `byGuardrail`), the items where
 * a review or either ledger flags it, so a fix that removes a wrong guardrail is seen moving its items rather than
 * taking them out of the count. Items are taken as loaded; `f.basis` is ignored.
 */
export function compareBases(all: AgreementItem[], f: AgreementFilter): BasisComparison {
  const tol = f.tolerance;
  const population = f.guardrail ? flaggedEither(all, f.guardrail) : all;
  const on = (items: AgreementItem[]) => ({ reviewed: onBasis(items, "reviewed"), now: onBasis(items, "now") });
  const both = on(population);
  const reviewedById = new Map(both.reviewed.map((i) => [i.item.itemId, i]));
  const nowById = new Map(both.now.map((i) => [i.item.itemId, i]));
  const rescored = countedItems(population).filter((i) => i.bases?.rescored);
  const flipped = rescored
    .map((i) => {
      const before = itemAgrees(reviewedById.get(i.item.itemId)!, tol);
      const after = itemAgrees(nowById.get(i.item.itemId)!, tol);
      return before === after ? null : { itemId: i.item.itemId.toString(), agreesNow: after };
    })
    .filter((x): x is { itemId: string; agreesNow: boolean } => x !== null);
  const byGuardrail = GUARDRAIL_CODES.map((code) => {
    const g = on(flaggedEither(population, code));
    return { guardrail: code, reviewed: rate(g.reviewed, tol), now: rate(g.now, tol) };
  }).filter((g) => g.reviewed.agreeing !== g.now.agreeing || g.reviewed.n !== g.now.n);
  const r = rate(both.reviewed, tol);
  const n = rate(both.now, tol);
  return {
    reviewed: r,
    now: n,
    rescored: rescored.map((i) => i.item.itemId.toString()),
    flipped,
    byGuardrail,
    differ: r.agreeing !== n.agreeing || r.n !== n.n,
  };
}

const pct = (r: BasisRate) => (r.rate === null ? "–" : `${Math.round(r.rate * 100)}%`);
const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "es"}`;

/** "agreement 88% → 93% after 4 spec fixes, 1 rule fix" (fixes: defects fixed or verified among these items). */
export function basisSentence(c: BasisComparison, fixes: { spec: number; rule: number }): string {
  const parts = [
    ...(fixes.spec ? [plural(fixes.spec, "spec fix")] : []),
    ...(fixes.rule ? [plural(fixes.rule, "rule fix")] : []),
  ];
  const after = parts.length
    ? `after ${parts.join(", ")}`
    : `after ${c.rescored.length} re-scored item${c.rescored.length === 1 ? "" : "s"}`;
  return `agreement ${pct(c.reviewed)} → ${pct(c.now)} ${after}`;
}
