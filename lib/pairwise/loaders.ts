// Page data of the pairwise annotation page. BLIND BY CONSTRUCTION, like lib/review/loaders.ts: the two rollouts and
// their case are read from the rollout and case rows only — never a ledger row, never rollout.claims, never the
// item's stratum (the pair's deciding guardrails) or inclusion probability. Whatever this returns may reach the
// annotator's browser before they submit; keep it that way.
import { renewLease } from "@/lib/review/leases.ts";
import { db, type Db } from "@/lib/db/client.ts";
import { caseViewSelect, rolloutViewSelect, toRolloutView, type RolloutView } from "@/lib/review/rollout-view.ts";

export type PairAnnotationView = {
  itemId: string;
  batchId: number;
  batchName: string;
  ticketId: string;
  leaseExpiresAt: string;
  /** The case, shown once (both rollouts answer the same ticket). */
  context: Pick<RolloutView, "ticket" | "snapshot" | "spec" | "pointers">;
  /** The rollouts in the order recorded on the item. */
  left: PairSide;
  right: PairSide;
};

/** One rollout of the pair without its case (shown once for both). */
export type PairSide = Pick<RolloutView, "trajectoryId" | "steps" | "finalReply" | "writes" | "kinds">;

const sideOf = (v: RolloutView): PairSide => ({
  trajectoryId: v.trajectoryId,
  steps: v.steps,
  finalReply: v.finalReply,
  writes: v.writes,
  kinds: v.kinds,
});

export type PairAnnotationPage =
  | { state: "annotate"; view: PairAnnotationView }
  | { state: "reviewed" }
  | { state: "not_leased" }
  | { state: "done" }
  | { state: "not_found" };

/** What the annotator needs to compare one pair blind, after (re-)taking its lease. */
export async function loadPairAnnotation(
  itemId: bigint,
  userId: number,
  now = new Date(),
  client: Db = db(),
): Promise<PairAnnotationPage> {
  const item = await client.auditItem.findUnique({
    where: { id: itemId },
    select: {
      id: true,
      status: true,
      ticketId: true,
      bOnLeft: true,
      batch: { select: { id: true, name: true } },
      rollout: { select: rolloutViewSelect },
      rolloutB: { select: rolloutViewSelect },
      pairReviews: { where: { reviewerId: userId }, select: { id: true }, take: 1 },
    },
  });
  if (!item || !item.rolloutB) return { state: "not_found" };
  if (item.pairReviews.length > 0) return { state: "reviewed" };
  if (item.status === "done") return { state: "done" };
  const expires = await renewLease(itemId, userId, now, client);
  if (!expires) return { state: "not_leased" };
  const caseDoc = await client.case.findUnique({ where: { ticketId: item.ticketId }, select: caseViewSelect });
  const a = toRolloutView(item.rollout, caseDoc);
  const b = toRolloutView(item.rolloutB, caseDoc);
  return {
    state: "annotate",
    view: {
      itemId: item.id.toString(),
      batchId: item.batch.id,
      batchName: item.batch.name,
      ticketId: item.ticketId,
      leaseExpiresAt: expires.toISOString(),
      context: { ticket: a.ticket, snapshot: a.snapshot, spec: a.spec, pointers: a.pointers },
      left: sideOf(item.bOnLeft ? b : a),
      right: sideOf(item.bOnLeft ? a : b),
    },
  };
}
