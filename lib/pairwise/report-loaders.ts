// Page data of the read-only side-by-side view of one judged pair (/agreement/pairwise/[item]): both rollouts with
// their case, both ledger entries (as recorded on the pair and as now), every current judgement and the verdict
// history. NOT BLIND: readers of the ledger only (the page asks for "ledger.read" first); annotators judge pairs
// through lib/pairwise/loaders.ts. Read from the primary: the view is opened again right after a verdict is recorded.
import { CURRENT_ADJUDICATION } from "@/lib/audit/adjudication-data.ts";
import type { DisagreementCause } from "@/lib/agreement/causes.ts";
import { db, type Db } from "@/lib/db/client.ts";
import { currentLedgerOfItems } from "@/lib/defects/agreement-now.ts";
import { defectsOfItem, type DefectRow } from "@/lib/defects/data.ts";
import { ledgerOrder, type LedgerOrder } from "@/lib/ledger/order.ts";
import { ledgerSelect, toLedgerSide, type LedgerSide } from "@/lib/review/data.ts";
import { caseViewSelect, rolloutViewSelect, toRolloutView, type RolloutView } from "@/lib/review/rollout-view.ts";

export type PairCaseSide = {
  /** "A" is the item's rollout, "B" its second; `shownLeft`: where annotators saw it. */
  label: "A" | "B";
  shownLeft: boolean;
  rollout: RolloutView;
  reviewed: LedgerSide;
  /** The rollout's current entry when a re-score superseded the recorded one; null when it is the same. */
  now: LedgerSide | null;
};

export type PairCaseJudgement = {
  reviewId: string;
  reviewerEmail: string;
  choice: string;
  /** "A", "B" or "tie" */
  preferred: "A" | "B" | "tie";
  reason: string | null;
  note: string;
  excludedReason: string | null;
  createdAt: Date;
  order: LedgerOrder;
};

export type PairCase = {
  itemId: string;
  batchId: number;
  batchName: string;
  runId: string;
  ticketId: string;
  stratum: string | null;
  disputedAt: Date | null;
  a: PairCaseSide;
  b: PairCaseSide;
  judgements: PairCaseJudgement[];
  adjudications: {
    id: string;
    cause: DisagreementCause;
    guardrail: string | null;
    note: string;
    leadEmail: string;
    createdAt: Date;
    current: boolean;
  }[];
  defects: DefectRow[];
};

/** One pair item with everything the side-by-side view shows; null when there is no such pair. */
/** Whether the item is a judged pair's (both rollouts ledgered): the pair page's layout answers 404 otherwise. */
export async function pairCaseExists(itemId: bigint, client: Db = db()): Promise<boolean> {
  const item = await client.auditItem.findFirst({
    where: { id: itemId, rolloutB: { isNot: null }, ledgerB: { isNot: null } },
    select: { id: true },
  });
  return item !== null;
}

export async function loadPairCase(itemId: bigint, client: Db = db()): Promise<PairCase | null> {
  const item = await client.auditItem.findUnique({
    where: { id: itemId },
    select: {
      id: true,
      batchId: true,
      runId: true,
      ticketId: true,
      stratum: true,
      disputedAt: true,
      bOnLeft: true,
      rolloutId: true,
      rolloutBId: true,
      trajectoryId: true,
      trajectoryBId: true,
      batch: { select: { name: true } },
      rollout: { select: rolloutViewSelect },
      rolloutB: { select: rolloutViewSelect },
      ledger: { select: ledgerSelect },
      ledgerB: { select: ledgerSelect },
      pairReviews: {
        where: { supersededBy: { is: null } },
        orderBy: { id: "asc" },
        select: {
          id: true,
          choice: true,
          preferredTrajectoryId: true,
          reason: true,
          note: true,
          excludedReason: true,
          createdAt: true,
          reviewer: { select: { email: true } },
        },
      },
      adjudications: {
        orderBy: { id: "desc" },
        select: {
          id: true,
          cause: true,
          guardrail: true,
          note: true,
          createdAt: true,
          lead: { select: { email: true } },
        },
      },
    },
  });
  if (!item || !item.rolloutB || !item.ledgerB) return null;
  const [caseDoc, nowA, nowB, current, defects] = await Promise.all([
    client.case.findUnique({ where: { ticketId: item.ticketId }, select: caseViewSelect }),
    currentLedgerOfItems(
      [{ itemId: item.id, runId: item.runId, rolloutId: item.rolloutId, trajectoryId: item.trajectoryId }],
      client,
    ),
    currentLedgerOfItems(
      [{ itemId: item.id, runId: item.runId, rolloutId: item.rolloutBId!, trajectoryId: item.trajectoryBId! }],
      client,
    ),
    client.adjudication.findFirst({ where: { itemId, ...CURRENT_ADJUDICATION }, select: { id: true } }),
    defectsOfItem(itemId, client),
  ]);
  const side = (
    label: "A" | "B",
    rollout: typeof item.rollout,
    ledger: typeof item.ledger,
    now: LedgerSide | undefined,
  ): PairCaseSide => {
    const reviewed = toLedgerSide(ledger);
    return {
      label,
      shownLeft: label === "B" ? item.bOnLeft! : !item.bOnLeft,
      rollout: toRolloutView(rollout, caseDoc),
      reviewed,
      now: now && now.ledgerId !== reviewed.ledgerId ? now : null,
    };
  };
  const a = side("A", item.rollout, item.ledger, nowA.get(item.id));
  const b = side("B", item.rolloutB, item.ledgerB, nowB.get(item.id));
  return {
    itemId: item.id.toString(),
    batchId: item.batchId,
    batchName: item.batch.name,
    runId: item.runId,
    ticketId: item.ticketId,
    stratum: item.stratum,
    disputedAt: item.disputedAt,
    a,
    b,
    judgements: item.pairReviews.map((p) => ({
      reviewId: p.id.toString(),
      reviewerEmail: p.reviewer.email,
      choice: p.choice,
      preferred: p.preferredTrajectoryId === null ? "tie" : p.preferredTrajectoryId === item.trajectoryId ? "A" : "B",
      reason: p.reason,
      note: p.note,
      excludedReason: p.excludedReason,
      createdAt: p.createdAt,
      order: ledgerOrder(
        { trajectoryId: item.trajectoryId, reward: a.reviewed.reward },
        { trajectoryId: item.trajectoryBId!, reward: b.reviewed.reward },
        p.preferredTrajectoryId,
      ),
    })),
    adjudications: item.adjudications.map((x) => ({
      id: x.id.toString(),
      cause: x.cause,
      guardrail: x.guardrail,
      note: x.note,
      leadEmail: x.lead.email,
      createdAt: x.createdAt,
      current: x.id === current?.id,
    })),
    defects,
  };
}
