// Test data for a spec that is wrong: a run of honest refunds that the ledger scores 1, every one sampled and reviewed
// by an annotator who holds that a damaged-item refund also needs a return label. Each review gives exactly the
// score the verifier gives under the revised spec (the return label required), so it disagrees with the ledger now
// and agrees once that revision is applied.
import { claimNextItem } from "@/lib/review/leases.ts";
import { createBatch } from "@/lib/audit/mutations.ts";
import { db } from "@/lib/db/client.ts";
import { submitReview } from "@/lib/review/mutations.ts";
import { makeUsers, seedRun, uniqueName, variantRollout } from "@/lib/testing/audit-data.ts";
import { BASE_SPEC, makeCase } from "@/lib/testing/verifier-fixtures.ts";
import { DIMENSIONS } from "@/lib/verifier/codes.ts";
import type { Claims } from "@/lib/verifier/schema.ts";
import { scoreRollout } from "@/lib/verifier/score.ts";

/** The spec the annotator reads: the base spec with the return label a required write too. */
export const RETURN_LABEL_SPEC = {
  ...BASE_SPEC,
  required_writes: [...(BASE_SPEC.required_writes ?? []), { tool: "logistics.create_return" }],
};

export async function specDisputedRun(url: string, tickets: number, opts: { step?: number } = {}) {
  const runId = uniqueName("spec-defect-run");
  const step = opts.step ?? 10;
  await seedRun(url, { runId, tickets, step });
  const b = await createBatch(
    { runId, stepFrom: 0, stepTo: step + 100, rate: 1, salt: "x", pick: "one", overlapRate: 0, tolerance: 0.05 },
    { label: "test" },
  );
  if (!b.ok) throw new Error(b.error);
  const [annotator] = await makeUsers(db(), 1);
  const [lead] = await makeUsers(db(), 1, "lead");
  const items: { itemId: bigint; ticketId: string; trajectoryId: string }[] = [];
  for (let i = 0; i < tickets; i++) {
    const lease = await claimNextItem(annotator.userId, { batchId: b.batchId });
    const item = await db().auditItem.findUniqueOrThrow({
      where: { id: lease!.itemId },
      select: { ticketId: true, trajectoryId: true },
    });
    const t = Number(item.ticketId.slice(item.ticketId.lastIndexOf("/T") + 2));
    const rollout = variantRollout("honest", {
      runId,
      ticketId: item.ticketId,
      trajectoryId: item.trajectoryId,
      step,
      sample: 0,
    });
    const revised = scoreRollout(rollout, makeCase(RETURN_LABEL_SPEC, undefined, item.ticketId));
    if (revised.status !== "scored") throw new Error(`ticket ${t}: the revised spec does not score`);
    const r = await submitReview(
      lease!.itemId,
      annotator,
      {
        subscores: Object.fromEntries(DIMENSIONS.map((d) => [d, revised.subscores![d]!])) as never,
        guardrails: (revised.guardrails ?? []).map((g) => g.code),
        claims: revised.claims as Claims,
        note: "a damaged-item refund needs the return label too",
      },
      30,
    );
    if (!r.ok) throw new Error(r.error);
    if (!r.disagrees) throw new Error(`ticket ${t}: the review should disagree with the ledger's 1`);
    items.push({ itemId: lease!.itemId, ticketId: item.ticketId, trajectoryId: item.trajectoryId });
  }
  items.sort((x, y) => x.ticketId.localeCompare(y.ticketId));
  return { runId, lead, items };
}
