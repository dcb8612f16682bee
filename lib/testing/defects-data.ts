// Test data for defects and the agreement "now" basis: a run of empty-promise rollouts, every one sampled and
// reviewed by an annotator who gives the ledger's own sub-scores without the guardrail, so each review disagrees
// only by the empty_promise cap — and a verifier config that turns that guardrail off, which makes them agree.
import { claimNextItem } from "@/lib/review/leases.ts";
import { createBatch } from "@/lib/audit/mutations.ts";
import { db } from "@/lib/db/client.ts";
import { submitReview } from "@/lib/review/mutations.ts";
import type { ReviewBody } from "@/lib/review/schema.ts";
import { makeUsers, seedRun, uniqueName } from "@/lib/testing/audit-data.ts";
import { parseVerifierConfig, type VerifierConfig } from "@/lib/verifier/config.ts";

/** The empty-promise rollout as the ledger scores it, minus the guardrail: the sub-scores of the raw reward. */
export async function rawSideOf(itemId: bigint): Promise<ReviewBody> {
  const i = await db().auditItem.findUniqueOrThrow({ where: { id: itemId }, select: { ledger: true } });
  const l = i.ledger;
  return {
    subscores: {
      outcome: l.outcome!,
      policy: l.policy!,
      evidence: l.evidence!,
      efficiency: l.efficiency!,
      communication: l.communication!,
    },
    guardrails: [],
    claims: (l.claims as ReviewBody["claims"]) ?? { claimed_writes: [], mentioned: [], forbidden_hits: [] },
    note: "the guardrail is wrong here",
  };
}

/**
 * A run of `tickets` empty-promise rollouts and `honest` honest ones (one per ticket), every one sampled; an
 * annotator reviews each with the ledger's own sub-scores and no guardrail, so each empty-promise review disagrees
 * only by the empty_promise cap (0.35) and each honest one agrees. `items` are the disputed items in ticket order,
 * `agreeing` the honest ones.
 */
export async function disputedRun(url: string, tickets: number, opts: { honest?: number } = {}) {
  const runId = uniqueName("defects-run");
  const honest = opts.honest ?? 0;
  await seedRun(url, {
    runId,
    tickets: tickets + honest,
    variant: (t) => (t < tickets ? "empty_promise" : "honest"),
  });
  const b = await createBatch(
    { runId, stepFrom: 0, stepTo: 100, rate: 1, salt: "x", pick: "one", overlapRate: 0, tolerance: 0.1 },
    { label: "test" },
  );
  if (!b.ok) throw new Error(b.error);
  const [annotator] = await makeUsers(db(), 1);
  const [lead] = await makeUsers(db(), 1, "lead");
  const reviewed: { itemId: bigint; ticket: number; disagrees: boolean }[] = [];
  for (let i = 0; i < tickets + honest; i++) {
    const lease = await claimNextItem(annotator.userId, { batchId: b.batchId });
    const r = await submitReview(lease!.itemId, annotator, await rawSideOf(lease!.itemId), 30);
    if (!r.ok) throw new Error(r.error);
    const item = await db().auditItem.findUniqueOrThrow({ where: { id: lease!.itemId }, select: { ticketId: true } });
    const ticket = Number(item.ticketId.slice(item.ticketId.lastIndexOf("/T") + 2));
    if (r.disagrees !== ticket < tickets) throw new Error(`ticket ${ticket}: unexpected disagrees=${r.disagrees}`);
    reviewed.push({ itemId: lease!.itemId, ticket, disagrees: r.disagrees });
  }
  reviewed.sort((x, y) => x.ticket - y.ticket);
  return {
    runId,
    lead,
    items: reviewed.filter((x) => x.disagrees).map((x) => x.itemId),
    agreeing: reviewed.filter((x) => !x.disagrees).map((x) => x.itemId),
  };
}

export const noEmptyPromise = (): VerifierConfig => {
  const c = parseVerifierConfig({ guardrails: { empty_promise: { on: false } } });
  if (!c.ok) throw new Error(JSON.stringify(c.issues));
  return c.config;
};
