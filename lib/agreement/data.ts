import type { Db } from "@/lib/auth/activity-log.ts";
import { listCaseSlots } from "@/lib/agreement/case-slots.ts";
import { readDb } from "@/lib/db/read-client.ts";
import type { Prisma } from "@/lib/generated/prisma/client.ts";
import type { AgreementBasis, AgreementFilter } from "@/lib/agreement/schema.ts";
import { currentLedgerOfItems } from "@/lib/defects/agreement-now.ts";
import { CURRENT_ADJUDICATION } from "@/lib/audit/adjudication-data.ts";
import type { CaseSlots } from "@/lib/stats/extraction-accuracy.ts";
import {
  CURRENT_REVIEW,
  itemSelect,
  reviewSelect,
  toHumanSide,
  toItemHead,
  toLedgerSide,
  type HumanSide,
  type ItemHead,
  type LedgerSide,
} from "@/lib/review/data.ts";

export type AgreementItem = {
  item: ItemHead;
  /** The claim slots of the item's case (lib/agreement/case-slots.ts): what its extraction is compared on. */
  slots: CaseSlots;
  category: string | null;
  ledger: LedgerSide;
  /** Current reviews that count, oldest first (restricted to one annotator when the filter names one). */
  reviews: HumanSide[];
  /** Current reviews that do not count toward agreement (their author could have seen the ledger), with why. */
  excluded?: HumanSide[];
  adjudication: { cause: string; guardrail: string | null } | null;
  /** Both ledgers of the item (loadAgreementItems fills it): the entry it recorded when sampled, and its rollout's
   * current entry (null when it has none). `ledger` is one of them, by the filter's basis. */
  bases?: { reviewed: LedgerSide; now: LedgerSide | null; rescored: boolean };
};

/** The items with `ledger` set to the entry of `basis` (an item without a current entry keeps its recorded one). */
export function onBasis(items: AgreementItem[], basis: AgreementBasis | undefined): AgreementItem[] {
  if (basis !== "now") return items.map((i) => (i.bases ? { ...i, ledger: i.bases.reviewed } : i));
  return items.map((i) => (i.bases ? { ...i, ledger: i.bases.now ?? i.bases.reviewed } : i));
}

/**
 * Every reviewed audit item under the filter, with the ledger entry of the filter's basis (by default the one it
 * was compared with when reviewed; `basis: "now"` its rollout's current entry), its current reviews and its latest
 * adjudication. Reviewed items are a 1% sample, so this is thousands of rows, not millions.
 */
export async function loadAgreementItems(f: AgreementFilter, client: Db = readDb()): Promise<AgreementItem[]> {
  const reviewWhere: Prisma.ReviewWhereInput = {
    ...CURRENT_REVIEW,
    ...(f.annotator ? { reviewer: { email: f.annotator } } : {}),
    ...(f.from || f.to
      ? {
          createdAt: {
            ...(f.from ? { gte: new Date(`${f.from}T00:00:00Z`) } : {}),
            ...(f.to ? { lt: new Date(Date.parse(`${f.to}T00:00:00Z`) + 86_400_000) } : {}),
          },
        }
      : {}),
  };
  const rows = await client.auditItem.findMany({
    where: {
      ...(f.batch !== undefined ? { batchId: f.batch } : {}),
      ...(f.run ? { batch: { runId: f.run } } : {}),
      ...(f.category ? { ledger: { category: f.category } } : {}),
      reviews: { some: reviewWhere },
    },
    orderBy: { id: "asc" },
    select: {
      ...itemSelect,
      runId: true,
      rolloutId: true,
      ledger: { select: { ...itemSelect.ledger.select, category: true } },
      reviews: { where: reviewWhere, orderBy: { id: "asc" }, select: reviewSelect },
      adjudications: {
        where: CURRENT_ADJUDICATION,
        orderBy: { id: "desc" },
        take: 1,
        select: { cause: true, guardrail: true },
      },
    },
  });
  const [slots, now] = await Promise.all([
    listCaseSlots(
      rows.map((r) => r.id),
      client,
    ),
    currentLedgerOfItems(
      rows.map((r) => ({ itemId: r.id, runId: r.runId, rolloutId: r.rolloutId, trajectoryId: r.trajectoryId })),
      client,
    ),
  ]);
  const items = rows.map((r) => {
    const reviewed = toLedgerSide(r.ledger);
    const current = now.get(r.id) ?? null;
    return {
      item: toItemHead(r),
      slots: slots.get(r.id) ?? { writeTools: [] },
      category: r.ledger.category,
      ledger: reviewed,
      reviews: r.reviews.filter((x) => x.excludedReason === null).map(toHumanSide),
      excluded: r.reviews.filter((x) => x.excludedReason !== null).map(toHumanSide),
      adjudication: r.adjudications[0] ?? null,
      bases: { reviewed, now: current, rescored: !!current && current.ledgerId !== reviewed.ledgerId },
    };
  });
  return onBasis(items, f.basis);
}
