// A judged pairwise batch for the pairwise report's end-to-end spec, made through the product's own functions:
// a run of GRPO groups of two (an honest rollout and an empty promise the verifier caps) ingested through the real
// ingest path, a pairwise batch drawn by the pair sampler, and two annotators who judge every pair through the
// leased queue — preferring the honest rollout, except on `inverted` pairs where the first prefers the other.
// Run as a script (`node --import tsx lib/testing/pair-report-data.ts PREFIX`) against DATABASE_URL, it prints
// the batch as one line of JSON.
import { pathToFileURL } from "node:url";
import { claimNextItem } from "@/lib/review/leases.ts";
import { createPairBatch } from "@/lib/audit/pair-mutations.ts";
import { db } from "@/lib/db/client.ts";
import { closeBulkPool } from "@/lib/db/pool.ts";
import { submitPairReview } from "@/lib/pairwise/mutations.ts";
import { makeUsers, seedRun, uniqueName } from "@/lib/testing/audit-data.ts";

export type JudgedPairBatch = { runId: string; batchId: number; inversions: string[]; pairs: number };

export async function seedJudgedPairBatch(
  url: string,
  opts: { prefix: string; groups: number; inverted: number },
): Promise<JudgedPairBatch> {
  const runId = uniqueName(opts.prefix);
  await seedRun(url, {
    runId,
    tickets: opts.groups,
    perTicket: 2,
    variant: (_t, k) => (k === 0 ? "honest" : "empty_promise"),
  });
  const r = await createPairBatch(
    {
      runId,
      stepFrom: 0,
      stepTo: 100,
      rate: 1,
      salt: runId,
      pick: "one",
      overlapRate: 0,
      tolerance: 0.1,
      kind: "pairwise",
      name: `${runId}-pairs`,
    },
    { label: "pair-report-data" },
  );
  if (!r.ok) throw new Error(r.error);
  const [first] = await makeUsers(db(), 1);
  const inversions: string[] = [];
  for (let n = 0; ; n++) {
    const lease = await claimNextItem(first.userId, { batchId: r.batchId });
    if (!lease) break;
    const item = await db().auditItem.findUniqueOrThrow({
      where: { id: lease.itemId },
      select: { bOnLeft: true, ledger: { select: { reward: true } }, ledgerB: { select: { reward: true } } },
    });
    const aHigher = item.ledger.reward! > item.ledgerB!.reward!;
    const higherSide = aHigher !== item.bOnLeft ? "left" : "right";
    const invert = n < opts.inverted;
    const choice = invert ? (higherSide === "left" ? "right" : "left") : higherSide;
    const s = await submitPairReview(lease.itemId, first, { choice, reason: invert ? "outcome" : null, note: "" }, 9);
    if (!s.ok) throw new Error(s.error);
    if (invert) inversions.push(lease.itemId.toString());
  }
  return { runId, batchId: r.batchId, inversions, pairs: r.items };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const url = process.env.DATABASE_URL!;
  const out = await seedJudgedPairBatch(url, { prefix: process.argv[2] ?? "pair-report", groups: 6, inverted: 2 });
  await closeBulkPool(url);
  await db().$disconnect();
  console.log(JSON.stringify(out));
}
