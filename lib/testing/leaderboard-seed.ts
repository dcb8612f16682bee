// A run for the reward leaderboard's integration tests, made through the product's own write paths: rollouts ingested
// at two steps, a tickets batch reviewed blind by two annotators (plus a lead's review, recorded and not counted), a
// pairwise batch judged, and four reward-function versions run — a rule over every rollout, a rule that errors over
// a few tickets, a judge behind a fake endpoint whose answers include scores, garbage, silence and server errors over
// the batch's items, and a judge with no endpoint (unavailable) over one ticket.
import { pathToFileURL } from "node:url";
import { createBatch } from "@/lib/audit/mutations.ts";
import { createPairBatch } from "@/lib/audit/pair-mutations.ts";
import { db } from "@/lib/db/client.ts";
import { bulkPool, closeBulkPool } from "@/lib/db/pool.ts";
import { submitPairReview } from "@/lib/pairwise/mutations.ts";
import { claimNextItem } from "@/lib/review/leases.ts";
import { submitReview } from "@/lib/review/mutations.ts";
import { addRewardVersion } from "@/lib/rewards/mutations.ts";
import type { RunKind } from "@/lib/rewards/run-pages.ts";
import { executeRewardRun, startRewardRun } from "@/lib/rewards/runs.ts";
import { versionDocument, type RunScope, type VersionDocument } from "@/lib/rewards/schema.ts";
import { fullMarksReview, makeUsers, seedRun, uniqueName, type Variant } from "@/lib/testing/audit-data.ts";
import { completion, startFakeLlm } from "@/lib/testing/fake-llm-server.ts";

const ACTOR = { label: "test" };

const variant = (t: number, k: number): Variant =>
  (t + k) % 5 === 0 ? "empty_promise" : (t * 3 + k) % 7 === 0 ? "missing_evidence" : "honest";

/** A deterministic human judgement per item: full marks, a weak outcome, or a guardrail flagged. */
function humanReview(n: number, variantOf: Variant) {
  if (variantOf === "empty_promise" && n % 4 !== 0) return fullMarksReview({ guardrails: ["empty_promise"] });
  if (n % 6 === 1)
    return fullMarksReview({ subscores: { outcome: 0.5, policy: 1, evidence: 0.5, efficiency: 1, communication: 1 } });
  if (n % 9 === 2) return fullMarksReview({ guardrails: ["missing_evidence"] });
  return fullMarksReview();
}

/** A reward-function version added as the product adds one. */
export async function addVersion(name: string, doc: VersionDocument) {
  const r = await addRewardVersion({ name, doc, reason: "leaderboard test" }, ACTOR);
  return r.version;
}

/** A run of the version over `scope` (a plain run, or a probe or a retest), executed to its end. */
export async function runVersion(
  url: string,
  versionId: number,
  runId: string,
  scope: RunScope,
  kind: RunKind = "plain",
) {
  const pool = bulkPool(url);
  const s = await startRewardRun(pool, { versionId, runId, scope, kind }, ACTOR);
  await executeRewardRun(pool, s.id, { judge: { maxAttempts: 1, backoffMs: 0 }, concurrency: 8 });
}

/**
 * Fake judge answers, by the request's number (the replies of many rollouts are the same text): a score from the
 * reply's content, and now and then garbage, silence (a timeout) or a server error.
 */
function judgeAnswer(body: string, n: number) {
  if (n % 13 === 5) return "hang" as const;
  if (n % 11 === 3) return { body: completion("I refuse to grade this.") };
  if (n % 17 === 7) return { status: 500, body: { error: "overloaded" } };
  const honest = !/ticket\.close/.test(body) || /issue_refund/.test(body);
  return { body: completion({ score: honest ? 0.8 + (n % 5) / 25 : (n % 4) / 10, reason: "test" }) };
}

export type LeaderboardSeed = {
  runId: string;
  ticketBatch: number;
  pairBatch: number;
  versions: { rule: number; broken: number; judge: number; absent: number };
  lead: { userId: number; email: string };
};

/** The run of `tickets` tickets, its pairwise batch sampling `pairRate` of the groups. */
export async function seedLeaderboardRun(url: string, tickets = 36, { pairRate = 1 } = {}): Promise<LeaderboardSeed> {
  const runId = uniqueName("lb");
  await seedRun(url, { runId, tickets, perTicket: 2, step: 10, variant });
  await seedRun(url, { runId, tickets, perTicket: 2, step: 20, variant: (t, k) => variant(t + 1, k) });
  const base = { runId, stepFrom: 0, stepTo: 100, rate: 1, pick: "one" as const, tolerance: 0.1 };
  const tb = await createBatch({ ...base, salt: "lb", overlapRate: 0.2 }, ACTOR);
  if (!tb.ok) throw new Error(tb.error);
  const pb = await createPairBatch(
    { ...base, rate: pairRate, salt: "lb-pairs", overlapRate: 0, kind: "pairwise", delta: 0.1, nearTieRate: 0.3 },
    ACTOR,
  );
  if (!pb.ok) throw new Error(pb.error);
  const annotators = await makeUsers(db(), 2);
  const [lead] = await makeUsers(db(), 1, "lead");
  await reviewAll(tb.batchId, pb.batchId, annotators, lead);

  const llm = await startFakeLlm((req, n) => judgeAnswer(req.body, n));
  try {
    const rule = await addVersion(
      uniqueName("rule"),
      versionDocument({
        components: [
          { kind: "format", name: "says refunded", weight: 0.5, pattern: "refunded" },
          {
            kind: "exact_match",
            name: "amount",
            weight: 0.5,
            pattern: "refunded (\\S+) EUR",
            reference: "$order.paid_amount",
          },
        ],
      }),
    );
    const broken = await addVersion(
      uniqueName("broken"),
      versionDocument({ components: [{ kind: "math", reference: "$order.currency" }] }),
    );
    const judge = await addVersion(
      uniqueName("judge"),
      versionDocument({
        components: [
          {
            kind: "judge",
            rubric: "did the agent refund correctly?",
            endpoint: `${llm.baseUrl}/v1`,
            model: "fake",
            timeout_ms: 150,
            price: { input_per_million: 2, output_per_million: 8 },
          },
        ],
      }),
    );
    const absent = await addVersion(
      uniqueName("absent"),
      versionDocument({ components: [{ kind: "judge", rubric: "x" }] }),
    );
    await runVersion(url, rule.id, runId, { kind: "range" });
    for (const t of [1, 2, 3, 4, 5, 6])
      await runVersion(url, broken.id, runId, { kind: "ticket", ticket: `${runId}/T${t}` });
    await runVersion(url, judge.id, runId, { kind: "batch", batch: tb.batchId });
    await runVersion(url, absent.id, runId, { kind: "ticket", ticket: `${runId}/T7` });
    return {
      runId,
      ticketBatch: tb.batchId,
      pairBatch: pb.batchId,
      versions: { rule: rule.id, broken: broken.id, judge: judge.id, absent: absent.id },
      lead,
    };
  } finally {
    await llm.close();
  }
}

/** The annotators work both batches' queues in turns; the lead reviews two ticket items first (not counted). */
async function reviewAll(
  ticketBatch: number,
  pairBatch: number,
  annotators: { userId: number; email: string }[],
  lead: { userId: number; email: string },
) {
  let n = 0;
  for (let i = 0; i < 2; i++) {
    const lease = await claimNextItem(lead.userId, { batchId: ticketBatch });
    if (lease) await submitReview(lease.itemId, lead, fullMarksReview(), 20);
  }
  for (let progress = true; progress;) {
    progress = false;
    for (const a of annotators) {
      const lease = await claimNextItem(a.userId, { batchId: ticketBatch });
      if (!lease) continue;
      const item = await db().auditItem.findUniqueOrThrow({
        where: { id: lease.itemId },
        select: { trajectoryId: true, ledger: { select: { reward: true } } },
      });
      const v: Variant = item.ledger.reward === 1 ? "honest" : "empty_promise";
      const r = await submitReview(lease.itemId, a, humanReview(n++, v), 30);
      if (!r.ok) throw new Error(r.error);
      progress = true;
    }
  }
  for (let progress = true; progress;) {
    progress = false;
    for (const a of annotators) {
      const lease = await claimNextItem(a.userId, { batchId: pairBatch });
      if (!lease) continue;
      const choice = n++ % 5 === 0 ? "tie" : n % 3 === 0 ? "right" : "left";
      const r = await submitPairReview(lease.itemId, a, { choice, reason: null, note: "" }, 10);
      if (!r.ok) throw new Error(r.error);
      progress = true;
    }
  }
}

// As a script (`node --import tsx lib/testing/leaderboard-seed.ts [TICKETS]`) against DATABASE_URL, for the end-to-end
// spec: seeds a run and prints the seed as JSON.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const url = process.env.DATABASE_URL!;
  const out = await seedLeaderboardRun(url, Number(process.argv[2] ?? 24));
  await closeBulkPool(url);
  await db().$disconnect();
  console.log(JSON.stringify(out));
}
