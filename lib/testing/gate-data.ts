// Test data for the audit gate: a steady run built to pass the gate's default rules (hit rate 20%, no hand-offs,
// success flat over the steps), ingested through the real ingest path, and a shadow audit of it whose reviews repeat
// the ledger's own sub-scores, guardrails and claims (so agreement and extraction accuracy are 100%).
import { createBatch } from "@/lib/audit/mutations.ts";
import { claimNextItem } from "@/lib/review/leases.ts";
import { db } from "@/lib/db/client.ts";
import { codesOfMask } from "@/lib/verifier/guardrail-mask.ts";
import { ingestValues } from "@/lib/ingest/ingest.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import { submitReview } from "@/lib/review/mutations.ts";
import { makeUsers, variantRollout } from "@/lib/testing/audit-data.ts";
import { makeCase } from "@/lib/testing/verifier-fixtures.ts";
import type { Claims } from "@/lib/verifier/schema.ts";

/**
 * `tickets` new tickets at each of `steps`, one rollout each; every fifth refunds before reading (missing_evidence,
 * a guardrail hit), the rest are honest refunds. Ticket ids are unique per step so a sample spreads over the steps.
 */
export async function seedSteadyRun(url: string, runId: string, steps: readonly number[], tickets = 40): Promise<void> {
  const values: unknown[] = [];
  for (const step of steps)
    for (let i = 0; i < tickets; i++) {
      const ticketId = `${runId}/s${step}/T${i}`;
      values.push(makeCase({}, undefined, ticketId));
      values.push(
        variantRollout(i % 5 === 0 ? "missing_evidence" : "honest", {
          runId,
          ticketId,
          trajectoryId: `${ticketId}/k0`,
          step,
          sample: 0,
        }),
      );
    }
  const s = await ingestValues(values, { pool: bulkPool(url) });
  if (!s.ok || s.rejected > 0) throw new Error(`test ingest failed: ${JSON.stringify(s).slice(0, 400)}`);
}

/** Samples every ticket of the run in [0, stepTo] and reviews each item as the ledger scored it. */
export async function reviewAsTheLedger(runId: string, stepTo: number): Promise<number> {
  const batch = await createBatch(
    { runId, stepFrom: 0, stepTo, rate: 1, salt: "gate", pick: "one", overlapRate: 0, tolerance: 0.1 },
    { label: "test" },
  );
  if (!batch.ok) throw new Error(batch.error);
  const [annotator] = await makeUsers(db(), 1);
  let reviews = 0;
  for (;;) {
    const lease = await claimNextItem(annotator.userId, { batchId: batch.batchId });
    if (!lease) break;
    const item = await db().auditItem.findUniqueOrThrow({
      where: { id: lease.itemId },
      select: {
        ledger: {
          select: {
            outcome: true,
            policy: true,
            evidence: true,
            efficiency: true,
            communication: true,
            guardrailMask: true,
            claims: true,
          },
        },
      },
    });
    const l = item.ledger;
    const r = await submitReview(
      lease.itemId,
      annotator,
      {
        subscores: {
          outcome: l.outcome ?? 0,
          policy: l.policy ?? 0,
          evidence: l.evidence ?? 0,
          efficiency: l.efficiency ?? 0,
          communication: l.communication ?? 0,
        },
        guardrails: codesOfMask(l.guardrailMask),
        claims: (l.claims as Claims | null) ?? { claimed_writes: [], mentioned: [], forbidden_hits: [] },
        note: "",
      },
      30,
    );
    if (!r.ok) throw new Error(r.error);
    reviews++;
  }
  return reviews;
}
