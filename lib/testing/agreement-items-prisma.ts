// Baseline kept on purpose: the agreement report's items read through Prisma's relation queries, as
// loadAgreementItems read them before its SQL rewrite of 2026-12-02. lib/agreement/data.int.test.ts checks the SQL
// loader gives the same items; bench/agreement.ts and bench/lib/scale-baseline.ts time it. Test support, not product.
import type { Db } from "@/lib/db/client.ts";
import { listCaseSlots } from "@/lib/agreement/case-slots.ts";
import { onBasis, type AgreementItem } from "@/lib/agreement/data.ts";
import type { AgreementFilter } from "@/lib/agreement/schema.ts";
import { CURRENT_ADJUDICATION } from "@/lib/audit/adjudication-data.ts";
import { readDb } from "@/lib/db/read-client.ts";
import { currentLedgerOfItems } from "@/lib/defects/agreement-now.ts";
import type { Prisma } from "@/lib/generated/prisma/client.ts";
import { CURRENT_REVIEW, itemSelect, reviewSelect, toHumanSide, toItemHead, toLedgerSide } from "@/lib/review/data.ts";

/**
 * The agreement report's items through Prisma's relation queries, as loadAgreementItems read them before the SQL
 * rewrite of 2026-12-02: bench/agreement.ts times it beside the SQL loader, and lib/agreement/data.int.test.ts checks
 * the two give the same items.
 */
export async function loadAgreementItemsPrisma(f: AgreementFilter, client: Db = readDb()): Promise<AgreementItem[]> {
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
