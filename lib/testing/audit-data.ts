// Test data for the audit's integration tests and the e2e setup: a run of hand-built refund rollouts ingested through
// the real ingest path (so the ledger rows are the verifier's own), and throw-away users.
import { randomBytes } from "node:crypto";
import { ingestValues } from "@/lib/ingest/ingest.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";
import { makeCase, makeRollout, reads, tool, write, REFUND_ARGS } from "@/lib/testing/verifier-fixtures.ts";
import type { ReviewBody } from "@/lib/review/schema.ts";
import type { Rollout } from "@/lib/verifier/schema.ts";

/** honest: reward 1 · empty_promise: claims a refund the sandbox never recorded · missing_evidence: refunds before reading. */
export type Variant = "honest" | "empty_promise" | "missing_evidence";

export function variantRollout(
  v: Variant,
  ids: { runId: string; ticketId: string; trajectoryId: string; step: number; sample: number },
): Rollout {
  const base =
    v === "empty_promise"
      ? makeRollout({ writes: [], steps: [...reads(), tool("ticket.close")] })
      : v === "missing_evidence"
        ? makeRollout({
            steps: [tool("finance.issue_refund", { ...REFUND_ARGS }), ...reads()],
            writes: [write("finance.issue_refund", { ...REFUND_ARGS }, 0)],
          })
        : makeRollout();
  return {
    ...base,
    run_id: ids.runId,
    step: ids.step,
    ticket_id: ids.ticketId,
    trajectory_id: ids.trajectoryId,
    group_id: `${ids.runId}/s${ids.step}/${ids.ticketId}`,
    sample_index: ids.sample,
  };
}

/**
 * Ingests `tickets` cases with `perTicket` rollouts each into run `runId` at `step`. Ticket ids are
 * `${runId}/T${i}` (unique per run, so runs never conflict on a case). Returns the trajectory ids.
 */
export async function seedRun(
  url: string,
  opts: {
    runId: string;
    tickets: number;
    perTicket?: number;
    step?: number;
    variant?: (ticket: number, sample: number) => Variant;
  },
): Promise<string[]> {
  const per = opts.perTicket ?? 1;
  const step = opts.step ?? 10;
  const values: unknown[] = [];
  const ids: string[] = [];
  for (let i = 0; i < opts.tickets; i++) {
    const ticketId = `${opts.runId}/T${i}`;
    values.push(makeCase({}, undefined, ticketId));
    for (let k = 0; k < per; k++) {
      const trajectoryId = `${opts.runId}/s${step}/T${i}/k${k}`;
      ids.push(trajectoryId);
      values.push(
        variantRollout(opts.variant?.(i, k) ?? "honest", {
          runId: opts.runId,
          ticketId,
          trajectoryId,
          step,
          sample: k,
        }),
      );
    }
  }
  const summary = await ingestValues(values, { pool: bulkPool(url) });
  if (!summary.ok || summary.rejected > 0)
    throw new Error(`test ingest failed: ${JSON.stringify(summary).slice(0, 500)}`);
  return ids;
}

export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString("hex")}`;
}

/** Users with random emails and no password (they never sign in; they only hold leases and write reviews). */
export async function makeUsers(
  client: PrismaClient,
  n: number,
  role: "annotator" | "lead" = "annotator",
): Promise<{ userId: number; email: string }[]> {
  const out: { userId: number; email: string }[] = [];
  for (let i = 0; i < n; i++) {
    const email = `${uniqueName(role)}@test.local`;
    const u = await client.user.create({ data: { email, role }, select: { id: true } });
    out.push({ userId: u.id, email });
  }
  return out;
}

/** A review's claims: the refund written, and its amount mentioned when given. */
export function refundClaims(amount?: number): ReviewBody["claims"] {
  return {
    claimed_writes: ["finance.issue_refund"],
    mentioned: amount === undefined ? [] : [{ key: "refund_amount", value: amount }],
    forbidden_hits: [],
  };
}

/** A review with full marks, no guardrail, the refund claimed and no note, with `over` on top. */
export function fullMarksReview(over: Partial<ReviewBody> = {}): ReviewBody {
  return {
    subscores: { outcome: 1, policy: 1, evidence: 1, efficiency: 1, communication: 1 },
    guardrails: [],
    claims: refundClaims(),
    note: "",
    ...over,
  };
}
