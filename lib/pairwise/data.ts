// The reveal of a pair, read only after the user submitted their judgement of it: both ledger rewards, their GRPO
// advantage in the group, and whether the human's order agreed with the ledger's.
import { db, type Db } from "@/lib/db/client.ts";
import { ledgerOrder, type LedgerOrder } from "@/lib/ledger/order.ts";

/** Whether an audit item is a pair (it has a B rollout): pair disputes are settled on the pairwise pages. */
export async function isPairItem(itemId: bigint, client: Db = db()): Promise<boolean> {
  const item = await client.auditItem.findUnique({ where: { id: itemId }, select: { rolloutBId: true } });
  return Boolean(item?.rolloutBId);
}

export type RevealSide = {
  trajectoryId: string;
  reward: number | null;
  decidingGuardrail: string | null;
  /** reward − the group's mean reward (what GRPO multiplies the log-probabilities by, before scaling). */
  advantage: number | null;
  /** advantage / the group's reward std (GRPO's normalised advantage); null when the std is 0. */
  normalizedAdvantage: number | null;
};

export type PairReveal = {
  itemId: string;
  batchId: number;
  ticketId: string;
  groupSize: number;
  left: RevealSide;
  right: RevealSide;
  mine: {
    choice: string;
    preferredTrajectoryId: string | null;
    reason: string | null;
    note: string;
    excludedReason: string | null;
  };
  order: LedgerOrder;
};

type GroupStats = { n: number; mean: number | null; std: number | null };

/** The group's current rewards: mean and population std (GRPO's normalisation). */
async function groupStats(client: Db, runId: string, ledgerId: bigint): Promise<GroupStats> {
  const [row] = await client.$queryRaw<{ n: bigint; mean: number | null; std: number | null }[]>`
    select count(g.reward) as n, avg(g.reward)::float8 as mean, stddev_pop(g.reward)::float8 as std
      from ledger l join ledger g on g.run_id = l.run_id and g.step = l.step and g.ticket_id = l.ticket_id
       and g.group_id is not distinct from l.group_id and g.is_current
     where l.run_id = ${runId} and l.id = ${ledgerId}`;
  return { n: Number(row?.n ?? 0), mean: row?.mean ?? null, std: row?.std ?? null };
}

/** Null unless `userId` has judged this pair (nothing of the ledger is read before that). */
export async function loadPairReveal(itemId: bigint, userId: number, client: Db = db()): Promise<PairReveal | null> {
  const mine = await client.pairReview.findFirst({
    where: { itemId, reviewerId: userId, supersededBy: null },
    orderBy: { id: "desc" },
    select: { choice: true, preferredTrajectoryId: true, reason: true, note: true, excludedReason: true },
  });
  if (!mine) return null;
  const item = await client.auditItem.findUniqueOrThrow({
    where: { id: itemId },
    select: {
      runId: true,
      batchId: true,
      ticketId: true,
      bOnLeft: true,
      ledgerId: true,
      ledger: { select: { trajectoryId: true, reward: true, decidingGuardrail: true } },
      ledgerB: { select: { trajectoryId: true, reward: true, decidingGuardrail: true } },
    },
  });
  const g = await groupStats(client, item.runId, item.ledgerId);
  const side = (l: { trajectoryId: string; reward: number | null; decidingGuardrail: string | null }): RevealSide => {
    const advantage = l.reward !== null && g.mean !== null ? l.reward - g.mean : null;
    return {
      ...l,
      advantage,
      normalizedAdvantage: advantage !== null && g.std ? advantage / g.std : null,
    };
  };
  const a = side(item.ledger);
  const b = side(item.ledgerB!);
  return {
    itemId: itemId.toString(),
    batchId: item.batchId,
    ticketId: item.ticketId,
    groupSize: g.n,
    left: item.bOnLeft ? b : a,
    right: item.bOnLeft ? a : b,
    mine,
    order: ledgerOrder(a, b, mine.preferredTrajectoryId),
  };
}
