// "Did the fixes pay off?": the headline agreement against the ledger as it was when each item was reviewed and as
// it is now (after re-scores), overall and per guardrail, with the items whose entry moved. Pure: the items come
// from loadAgreementItems, which fills both ledgers of each item.
import { entryOnBasis, type AgreementItem } from "@/lib/agreement/data.ts";
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

/** The ledger of an item on a basis, as onBasis sets it. */
const ledgerOn = (i: AgreementItem, basis: "reviewed" | "now") => (i.bases ? entryOnBasis(i.bases, basis) : i.ledger);

/** Whether the item's primary review counts against that ledger (a primary pair), and whether it agrees. */
function side(i: AgreementItem, ledger: AgreementItem["ledger"], tolerance: number) {
  const counted = i.reviews.length > 0 && ledger.reward !== null;
  return { counted, agrees: counted && scoresAgree(i.reviews[0].reward, ledger.reward!, tolerance) };
}

/** Is the guardrail flagged by a review or by either ledger: the same items under both bases. */
const flaggedEither = (i: AgreementItem, code: string) =>
  i.reviews.some((r) => r.guardrails.includes(code)) ||
  (i.bases ?? { reviewed: i.ledger, now: null }).reviewed.guardrails.includes(code as never) ||
  !!i.bases?.now?.guardrails.includes(code as never);

type Tally = { agreeing: number; n: number };
const tally = (): Tally => ({ agreeing: 0, n: 0 });
const add = (t: Tally, s: { counted: boolean; agrees: boolean }) => {
  if (s.counted) t.n++;
  if (s.agrees) t.agreeing++;
};
const basisRate = (t: Tally): BasisRate => ({ agreeing: t.agreeing, n: t.n, rate: t.n ? t.agreeing / t.n : null });

/**
 * Both bases over the same items: under a guardrail (the filter's, and each row of `byGuardrail`), the items where
 * a review or either ledger flags it, so a fix that removes a wrong guardrail is seen moving its items rather than
 * taking them out of the count. Items are taken as loaded; `f.basis` is ignored. One pass over the items, each
 * compared with each ledger once (10,000 items: the rates of both bases and of every guardrail in ~10 ms).
 */
export function compareBases(all: AgreementItem[], f: AgreementFilter): BasisComparison {
  const tol = f.tolerance;
  const population = f.guardrail ? all.filter((i) => flaggedEither(i, f.guardrail!)) : all;
  const reviewed = tally();
  const now = tally();
  const byCode = GUARDRAIL_CODES.map(() => ({ reviewed: tally(), now: tally() }));
  const rescored: string[] = [];
  const flipped: { itemId: string; agreesNow: boolean }[] = [];
  for (const i of population) {
    const r = side(i, ledgerOn(i, "reviewed"), tol);
    const n = side(i, ledgerOn(i, "now"), tol);
    add(reviewed, r);
    add(now, n);
    GUARDRAIL_CODES.forEach((code, c) => {
      if (!flaggedEither(i, code)) return;
      add(byCode[c].reviewed, r);
      add(byCode[c].now, n);
    });
    if (i.reviews.length > 0 && i.bases?.rescored) {
      const id = i.item.itemId.toString();
      rescored.push(id);
      if (r.agrees !== n.agrees) flipped.push({ itemId: id, agreesNow: n.agrees });
    }
  }
  const byGuardrail = GUARDRAIL_CODES.map((code, c) => ({
    guardrail: code,
    reviewed: basisRate(byCode[c].reviewed),
    now: basisRate(byCode[c].now),
  })).filter((g) => g.reviewed.agreeing !== g.now.agreeing || g.reviewed.n !== g.now.n);
  const rr = basisRate(reviewed);
  const nr = basisRate(now);
  return {
    reviewed: rr,
    now: nr,
    rescored,
    flipped,
    byGuardrail,
    differ: rr.agreeing !== nr.agreeing || rr.n !== nr.n,
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
