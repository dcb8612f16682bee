import type { AgreementItem } from "@/lib/agreement/data.ts";
import { extractionPairs } from "@/lib/agreement/extraction.ts";
import {
  applyGuardrailFilter,
  overlapItems,
  primaryPairs,
  reviewDay,
  type PrimaryPair,
} from "@/lib/agreement/pairs.ts";
import type { AgreementCellSelection, AgreementFilter } from "@/lib/agreement/schema.ts";
import { scoresAgree, SUCCESS_THRESHOLD } from "@/lib/stats/agreement.ts";
import { isFiniteNumber } from "@/lib/stats/descriptive.ts";
import { extractionAccuracy } from "@/lib/stats/extraction-accuracy.ts";

// The items behind each figure of the report, selected from the same populations (lib/agreement/pairs.ts) the
// report computes on: the number of items listed is the figure's n (or its count) under the same filters.

/** The items behind one figure of the report. */
export function itemsForCell(all: AgreementItem[], f: AgreementFilter, sel: AgreementCellSelection): AgreementItem[] {
  const items = applyGuardrailFilter(all, f.guardrail).filter((i) => i.reviews.length > 0);
  const pairs = primaryPairs(items);
  const where = (keep: (p: PrimaryPair) => boolean) => pairs.filter(keep).map((p) => p.i);
  const ok = (p: PrimaryPair) => scoresAgree(p.human.reward, p.ledger.reward, f.tolerance);
  const success = (x: number) => x >= SUCCESS_THRESHOLD;
  const fired = (p: PrimaryPair) => ({
    ledger: p.ledger.guardrails.includes(sel.code as never),
    human: p.human.guardrails.includes(sel.code!),
  });
  switch (sel.cell) {
    case "all":
      return items;
    case "agree":
      return where(ok);
    case "disagree":
      return where((p) => !ok(p));
    case "verdict_both":
      return where((p) => success(p.ledger.reward) && success(p.human.reward));
    case "verdict_neither":
      return where((p) => !success(p.ledger.reward) && !success(p.human.reward));
    case "verdict_ledger_only":
      return where((p) => success(p.ledger.reward) && !success(p.human.reward));
    case "verdict_human_only":
      return where((p) => !success(p.ledger.reward) && success(p.human.reward));
    case "guardrail_both":
      return where((p) => fired(p).ledger && fired(p).human);
    case "guardrail_ledger_only":
      return where((p) => fired(p).ledger && !fired(p).human);
    case "guardrail_human_only":
      return where((p) => !fired(p).ledger && fired(p).human);
    case "dimension":
      return where(
        (p) => isFiniteNumber(p.ledger.subscores[sel.dimension!]) && isFiniteNumber(p.human.subscores[sel.dimension!]),
      );
    case "adjudicated":
      return items.filter((i) => i.adjudication);
    case "overlap":
      return overlapItems(items);
    case "cause":
      return items.filter((i) => i.adjudication?.cause === sel.cause);
    case "extraction_slot":
    case "extraction_slot_wrong": {
      return extractionPairs(pairs)
        .filter((x) => {
          const slot = extractionAccuracy([x]).slots.find((s) => s.slot === sel.slot);
          return slot !== undefined && (sel.cell === "extraction_slot" || slot.correct === 0);
        })
        .map((x) => x.p.i);
    }
    case "annotator":
      return items.filter((i) => i.ledger.reward !== null && i.reviews.some((r) => r.reviewerEmail === sel.reviewer));
    case "annotator_adjudicated":
      return items.filter(
        (i) =>
          i.ledger.reward !== null &&
          i.adjudication &&
          i.reviews.some(
            (r) => r.reviewerEmail === sel.reviewer && !scoresAgree(r.reward, i.ledger.reward!, f.tolerance),
          ),
      );
    case "day":
      return where((p) => reviewDay(p) === sel.day);
  }
}
