// Reads of defects: the list (filtered by status, guardrail, run and kind; newest first, paged by id) and one
// defect with its items and whether each agrees with the ledger now.
import { db, type Db } from "@/lib/db/client.ts";
import type { Prisma } from "@/lib/generated/prisma/client.ts";
import { itemsAgreeNow, type ItemNow } from "@/lib/defects/agreement-now.ts";
import type { DefectCause, DefectStatus } from "@/lib/defects/causes.ts";
import { NO_GUARDRAIL, type DefectsParams } from "@/lib/defects/schema.ts";

export type DefectRow = {
  runId: string;
  id: bigint;
  cause: DefectCause;
  ticketId: string | null;
  guardrail: string | null;
  status: DefectStatus;
  openedBy: string;
  fixKind: "case_version" | "config" | null;
  fixRef: string | null;
  fixedAt: Date | null;
  verifiedAt: Date | null;
  createdAt: Date;
  items: { itemId: bigint; trajectoryId: string; batchId: number }[];
};

const rowSelect = {
  runId: true,
  id: true,
  cause: true,
  ticketId: true,
  guardrail: true,
  status: true,
  openedBy: { select: { email: true } },
  fixKind: true,
  fixRef: true,
  fixedAt: true,
  verifiedAt: true,
  createdAt: true,
  items: {
    orderBy: { itemId: "asc" },
    select: { itemId: true, item: { select: { trajectoryId: true, batchId: true } } },
  },
} satisfies Prisma.DefectSelect;

function toRow(d: Prisma.DefectGetPayload<{ select: typeof rowSelect }>): DefectRow {
  return {
    runId: d.runId,
    id: d.id,
    cause: d.cause as DefectCause,
    ticketId: d.ticketId,
    guardrail: d.guardrail,
    status: d.status,
    openedBy: d.openedBy.email,
    fixKind: d.fixKind,
    fixRef: d.fixRef,
    fixedAt: d.fixedAt,
    verifiedAt: d.verifiedAt,
    createdAt: d.createdAt,
    items: d.items.map((i) => ({ itemId: i.itemId, trajectoryId: i.item.trajectoryId, batchId: i.item.batchId })),
  };
}

export function defectsWhere(p: Omit<DefectsParams, "after">): Prisma.DefectWhereInput {
  return {
    ...(p.status ? { status: p.status } : {}),
    ...(p.guardrail ? { guardrail: p.guardrail === NO_GUARDRAIL ? null : p.guardrail } : {}),
    ...(p.run ? { runId: p.run } : {}),
    ...(p.kind ? { cause: p.kind === "spec" ? "spec_wrong" : "verifier_rule_wrong" } : {}),
  };
}

/** Newest first; `after` is the last row's id of the previous page. */
export async function listDefects(
  p: DefectsParams,
  limit = 50,
  client: Db = db(),
): Promise<{ rows: DefectRow[]; nextAfter: string | null }> {
  const rows = await client.defect.findMany({
    where: { ...defectsWhere(p), ...(p.after ? { id: { lt: BigInt(p.after) } } : {}) },
    orderBy: { id: "desc" },
    take: limit + 1,
    select: rowSelect,
  });
  const page = rows.slice(0, limit).map(toRow);
  return { rows: page, nextAfter: rows.length > limit ? page[page.length - 1].id.toString() : null };
}

/** Counts by status under the same filters (without the status filter): the list's tabs. */
export async function countDefectsByStatus(
  p: Omit<DefectsParams, "after" | "status">,
  client: Db = db(),
): Promise<Record<DefectStatus, number>> {
  const groups = await client.defect.groupBy({ by: ["status"], where: defectsWhere(p), _count: { _all: true } });
  const out: Record<DefectStatus, number> = { open: 0, fixed: 0, verified: 0 };
  for (const g of groups) out[g.status] = g._count._all;
  return out;
}

/** What marking a defect fixed needs to know of it: its cause (which kind of fix it takes). */
export async function defectCause(
  runId: string,
  id: bigint,
  client: Db = db(),
): Promise<{ cause: string; ticketId: string | null } | null> {
  return client.defect.findUnique({ where: { runId_id: { runId, id } }, select: { cause: true, ticketId: true } });
}

export type DefectDetail = DefectRow & { now: ItemNow[] };

export async function loadDefect(runId: string, id: bigint, client: Db = db()): Promise<DefectDetail | null> {
  const d = await client.defect.findUnique({ where: { runId_id: { runId, id } }, select: rowSelect });
  if (!d) return null;
  const row = toRow(d);
  return {
    ...row,
    now: await itemsAgreeNow(
      row.items.map((i) => i.itemId),
      client,
    ),
  };
}

/** The defects an item is linked to (the adjudication page shows them). */
export async function defectsOfItem(itemId: bigint, client: Db = db()): Promise<DefectRow[]> {
  const rows = await client.defect.findMany({
    where: { items: { some: { itemId } } },
    orderBy: { id: "desc" },
    select: rowSelect,
  });
  return rows.map(toRow);
}
