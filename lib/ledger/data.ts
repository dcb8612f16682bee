import { db } from "@/lib/db/client.ts";

export type LedgerRow = {
  id: bigint;
  trajectoryId: string;
  runId: string;
  step: number;
  ticketId: string;
  category: string | null;
  status: string;
  source: string;
  reward: number | null;
  rawReward: number | null;
  outcome: number | null;
  policy: number | null;
  evidence: number | null;
  efficiency: number | null;
  communication: number | null;
  decidingGuardrail: string | null;
  capped: boolean;
  handoff: boolean | null;
  toolSteps: number | null;
};

const rowSelect = {
  id: true,
  trajectoryId: true,
  runId: true,
  step: true,
  ticketId: true,
  category: true,
  status: true,
  source: true,
  reward: true,
  rawReward: true,
  outcome: true,
  policy: true,
  evidence: true,
  efficiency: true,
  communication: true,
  decidingGuardrail: true,
  capped: true,
  handoff: true,
  toolSteps: true,
} as const;

/**
 * One page of current ledger entries, newest first, paged by key: `before` is the id of the last row of the
 * previous page (never an OFFSET scan).
 */
export async function listLedgerPage(opts: { runId?: string; before?: bigint; limit?: number }): Promise<{
  rows: LedgerRow[];
  nextBefore: bigint | null;
}> {
  const limit = Math.min(Math.max(opts.limit ?? 50, 1), 500);
  const rows = await db().ledgerEntry.findMany({
    where: {
      isCurrent: true,
      ...(opts.runId ? { runId: opts.runId } : {}),
      ...(opts.before ? { id: { lt: opts.before } } : {}),
    },
    orderBy: { id: "desc" },
    take: limit + 1,
    select: rowSelect,
  });
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  return { rows: page, nextBefore: more ? page[page.length - 1].id : null };
}

/** The current ledger entry of a trajectory with its rollout and case, or null. */
export async function getTrajectoryDetail(trajectoryId: string) {
  const entry = await db().ledgerEntry.findFirst({
    where: { trajectoryId, isCurrent: true },
    include: { rollout: { include: { registry: true } } },
  });
  if (!entry) return null;
  const [caseDoc, history] = await Promise.all([
    db().case.findUnique({ where: { ticketId: entry.ticketId } }),
    db().ledgerEntry.findMany({
      where: { trajectoryId },
      orderBy: { id: "asc" },
      select: { id: true, createdAt: true, reward: true, configHash: true, verifierVersion: true, isCurrent: true, decidingGuardrail: true },
    }),
  ]);
  return { entry, caseDoc, history };
}
