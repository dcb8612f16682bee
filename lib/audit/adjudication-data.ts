// Reads of the adjudication queue for leads: disputed items (a review disagreed with the ledger), the verdicts on
// them, and the tally by cause and by guardrail. "Current" adjudications are those no later one supersedes.
import { DISAGREEMENT_CAUSES, type DisagreementCause } from "@/lib/agreement/causes.ts";
import { db, type Db } from "@/lib/db/client.ts";
import type { Prisma } from "@/lib/generated/prisma/client.ts";
import { loadItemReviews, type ItemWithReviews } from "@/lib/review/data.ts";

export const CURRENT_ADJUDICATION = { supersededBy: { is: null } } satisfies Prisma.AdjudicationWhereInput;

export type DisputeRow = {
  itemId: bigint;
  batchId: number;
  batchName: string;
  trajectoryId: string;
  ticketId: string;
  disputedAt: Date;
  ledgerReward: number | null;
  decidingGuardrail: string | null;
  humanRewards: number[];
  cause: DisagreementCause | null;
  guardrail: string | null;
};

/**
 * Disputed items, oldest dispute first, either still waiting for a verdict (`pending`) or already settled.
 * Paged by key: pass the last row's (disputedAt, itemId) as `after`.
 */
export async function listDisputes(
  opts: { pending: boolean; batchId?: number; after?: { disputedAt: Date; itemId: bigint }; limit?: number },
  client: Db = db(),
): Promise<DisputeRow[]> {
  const after = opts.after;
  const rows = await client.auditItem.findMany({
    where: {
      disputedAt: { not: null },
      // A pair's inversion is adjudicated from the pairwise report (lib/pairwise), not as a ticket dispute.
      trajectoryBId: null,
      ...(opts.batchId !== undefined ? { batchId: opts.batchId } : {}),
      adjudications: opts.pending ? { none: {} } : { some: {} },
      ...(after
        ? { OR: [{ disputedAt: { gt: after.disputedAt } }, { disputedAt: after.disputedAt, id: { gt: after.itemId } }] }
        : {}),
    },
    orderBy: [{ disputedAt: "asc" }, { id: "asc" }],
    take: Math.min(opts.limit ?? 50, 500),
    select: {
      id: true,
      batchId: true,
      trajectoryId: true,
      ticketId: true,
      disputedAt: true,
      batch: { select: { name: true } },
      ledger: { select: { reward: true, decidingGuardrail: true } },
      reviews: { where: { supersededBy: { is: null } }, orderBy: { id: "asc" }, select: { reward: true } },
      adjudications: { where: CURRENT_ADJUDICATION, take: 1, select: { cause: true, guardrail: true } },
    },
  });
  return rows.map((r) => ({
    itemId: r.id,
    batchId: r.batchId,
    batchName: r.batch.name,
    trajectoryId: r.trajectoryId,
    ticketId: r.ticketId,
    disputedAt: r.disputedAt!,
    ledgerReward: r.ledger.reward,
    decidingGuardrail: r.ledger.decidingGuardrail,
    humanRewards: r.reviews.map((x) => x.reward),
    cause: r.adjudications[0]?.cause ?? null,
    guardrail: r.adjudications[0]?.guardrail ?? null,
  }));
}

export type AdjudicationTally = {
  total: number;
  pending: number;
  byCause: Record<DisagreementCause, number>;
  /** One row per guardrail named on a verdict ("" = none named), with its split by cause. */
  byGuardrail: { guardrail: string; total: number; byCause: Record<DisagreementCause, number> }[];
};

const zeroCauses = () =>
  Object.fromEntries(DISAGREEMENT_CAUSES.map((c) => [c, 0])) as Record<DisagreementCause, number>;

/** Current verdicts counted by cause and by guardrail, and how many disputed items still wait for one. */
export async function tallyAdjudications(
  opts: { batchId?: number } = {},
  client: Db = db(),
): Promise<AdjudicationTally> {
  const itemFilter = { trajectoryBId: null, ...(opts.batchId !== undefined ? { batchId: opts.batchId } : {}) };
  const [groups, pending] = await Promise.all([
    client.adjudication.groupBy({
      by: ["cause", "guardrail"],
      where: { ...CURRENT_ADJUDICATION, item: itemFilter },
      _count: { _all: true },
    }),
    client.auditItem.count({ where: { ...itemFilter, disputedAt: { not: null }, adjudications: { none: {} } } }),
  ]);
  const byCause = zeroCauses();
  const byGuardrail = new Map<
    string,
    { guardrail: string; total: number; byCause: Record<DisagreementCause, number> }
  >();
  let total = 0;
  for (const g of groups) {
    const n = g._count._all;
    total += n;
    byCause[g.cause] += n;
    const key = g.guardrail ?? "";
    const row = byGuardrail.get(key) ?? { guardrail: key, total: 0, byCause: zeroCauses() };
    row.total += n;
    row.byCause[g.cause] += n;
    byGuardrail.set(key, row);
  }
  return {
    total,
    pending,
    byCause,
    byGuardrail: [...byGuardrail.values()].sort((a, b) => b.total - a.total || a.guardrail.localeCompare(b.guardrail)),
  };
}

export type AdjudicationEntry = {
  id: bigint;
  cause: DisagreementCause;
  guardrail: string | null;
  note: string;
  leadEmail: string;
  createdAt: Date;
  supersedesId: bigint | null;
};

export type Dispute = ItemWithReviews & { batchName: string; adjudications: AdjudicationEntry[] };

/** One disputed item for the verdict form: ledger entry, every current review, the verdict history (newest first). */
export async function loadDispute(itemId: bigint, client: Db = db()): Promise<Dispute | null> {
  const base = await loadItemReviews(itemId, client);
  if (!base) return null;
  const [batch, adjudications] = await Promise.all([
    client.auditBatch.findUniqueOrThrow({ where: { id: base.item.batchId }, select: { name: true } }),
    client.adjudication.findMany({
      where: { itemId },
      orderBy: { id: "desc" },
      select: {
        id: true,
        cause: true,
        guardrail: true,
        note: true,
        createdAt: true,
        supersedesId: true,
        lead: { select: { email: true } },
      },
    }),
  ]);
  return {
    ...base,
    batchName: batch.name,
    adjudications: adjudications.map((a) => ({
      id: a.id,
      cause: a.cause,
      guardrail: a.guardrail,
      note: a.note,
      leadEmail: a.lead.email,
      createdAt: a.createdAt,
      supersedesId: a.supersedesId,
    })),
  };
}

/** Current verdicts with their item, for the agreement statistics (paged by adjudication id). */
export async function listAdjudications(
  filter: { batchId?: number; runId?: string; afterId?: bigint; limit?: number } = {},
  client: Db = db(),
): Promise<
  {
    id: bigint;
    itemId: bigint;
    batchId: number;
    trajectoryId: string;
    cause: DisagreementCause;
    guardrail: string | null;
    note: string;
    leadId: number;
    createdAt: Date;
  }[]
> {
  const rows = await client.adjudication.findMany({
    where: {
      ...CURRENT_ADJUDICATION,
      ...(filter.afterId !== undefined ? { id: { gt: filter.afterId } } : {}),
      item: {
        ...(filter.batchId !== undefined ? { batchId: filter.batchId } : {}),
        ...(filter.runId !== undefined ? { batch: { runId: filter.runId } } : {}),
      },
    },
    orderBy: { id: "asc" },
    take: Math.min(filter.limit ?? 1000, 10_000),
    select: {
      id: true,
      itemId: true,
      cause: true,
      guardrail: true,
      note: true,
      leadId: true,
      createdAt: true,
      item: { select: { batchId: true, trajectoryId: true } },
    },
  });
  return rows.map((r) => ({
    id: r.id,
    itemId: r.itemId,
    batchId: r.item.batchId,
    trajectoryId: r.item.trajectoryId,
    cause: r.cause,
    guardrail: r.guardrail,
    note: r.note,
    leadId: r.leadId,
    createdAt: r.createdAt,
  }));
}
