// Page data of the lead's adjudication page: the tally, the waiting and settled disputes, and the chosen dispute
// with the rollout it is about. Leads only (the page asks the policy for "adjudicate" first): this carries ledger
// numbers and every reviewer's scores.
import {
  listDisputes,
  loadDispute,
  tallyAdjudications,
  type AdjudicationTally,
  type Dispute,
  type DisputeRow,
} from "@/lib/audit/adjudication-data.ts";
import { itemRef } from "@/lib/audit/schema.ts";
import { db, type Db } from "@/lib/db/client.ts";
import { defectsOfItem, type DefectRow } from "@/lib/defects/data.ts";
import type { Comparison } from "@/lib/review/compare.ts";
import { compare } from "@/lib/review/data.ts";
import { loadItemRolloutView, type RolloutView } from "@/lib/review/rollout-view.ts";
import { fitsInt8 } from "@/lib/db/column-ranges.ts";

export const DISPUTES_PER_PAGE = 50;

export type DisputeView = Dispute & {
  /** One comparison with the ledger per current review, in the order of `reviews`. */
  comparisons: Comparison[];
  rollout: RolloutView | null;
  /** The guardrail the verdict form proposes: the first one the two sides disagree on, else the deciding one. */
  suggested: string | null;
  /** The item's rollout id: the spec workbench opens with it selected. */
  rolloutId: bigint;
  /** The defects the item is linked to (a spec-wrong or rule-wrong verdict). */
  defects: DefectRow[];
};

export type AdjudicationPageData = {
  tally: AdjudicationTally;
  pending: DisputeRow[];
  settled: DisputeRow[];
  /** The `after` key of the next page of waiting disputes, when there may be one. */
  nextAfter: string | null;
  dispute: DisputeView | null;
};

/** "2026-01-02T03:04:05.678Z_123": the key of the last row of a page. */
export function parseDisputeKey(v: string | undefined): { disputedAt: Date; itemId: bigint } | undefined {
  const m = v?.match(/^(.+)_(\d{1,19})$/);
  const at = m ? new Date(m[1]) : null;
  return m && at && !Number.isNaN(at.getTime()) && fitsInt8(m[2])
    ? { disputedAt: at, itemId: BigInt(m[2]) }
    : undefined;
}

async function loadDisputeView(itemId: bigint, client: Db): Promise<DisputeView | null> {
  const [dispute, rollout, defects, head] = await Promise.all([
    loadDispute(itemId, client),
    loadItemRolloutView(itemId, client),
    defectsOfItem(itemId, client),
    client.auditItem.findUnique({ where: { id: itemId }, select: { rolloutId: true } }),
  ]);
  if (!dispute || !head) return null;
  const comparisons = dispute.reviews.map((r) => compare(r, dispute.ledger, dispute.item.tolerance));
  const suggested =
    comparisons.flatMap((c) => [...c.guardrails.onlyLedger, ...c.guardrails.onlyHuman])[0] ??
    dispute.ledger.decidingGuardrail;
  return { ...dispute, comparisons, rollout, suggested, rolloutId: head.rolloutId, defects };
}

/** Everything the adjudication page shows, from its URL params (`item`, `after`); bad values are ignored. */
export async function loadAdjudicationPage(
  params: { item?: string; after?: string },
  client: Db = db(),
): Promise<AdjudicationPageData> {
  const item = itemRef.safeParse({ itemId: params.item ?? "" });
  const after = parseDisputeKey(params.after);
  const [tally, pending, settled, dispute] = await Promise.all([
    tallyAdjudications({}, client),
    listDisputes({ pending: true, after, limit: DISPUTES_PER_PAGE }, client),
    listDisputes({ pending: false, limit: DISPUTES_PER_PAGE }, client),
    item.success ? loadDisputeView(item.data.itemId, client) : Promise.resolve(null),
  ]);
  const last = pending.at(-1);
  return {
    tally,
    pending,
    settled,
    nextAfter: pending.length === DISPUTES_PER_PAGE && last ? `${last.disputedAt.toISOString()}_${last.itemId}` : null,
    dispute,
  };
}
