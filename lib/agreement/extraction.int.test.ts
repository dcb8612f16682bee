import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { loadAgreementItems } from "@/lib/agreement/data.ts";
import { buildAgreementReport, type AgreementReport } from "@/lib/agreement/report.ts";
import { agreementResponse } from "@/lib/agreement/respond.ts";
import { agreementFilterSchema } from "@/lib/agreement/schema.ts";
import { claimNextItem } from "@/lib/review/leases.ts";
import { createBatch } from "@/lib/audit/mutations.ts";
import { makeUsers, variantRollout } from "@/lib/testing/audit-data.ts";
import { run as agreementCli } from "@/lib/cli/agreement.ts";
import { db } from "@/lib/db/client.ts";
import { ingestValues } from "@/lib/ingest/ingest.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import { listAuditPoints } from "@/lib/monitors/audit-data.ts";
import { listAuditPairs, readAuditSteps } from "@/lib/monitors/data.ts";
import { auditPoints, auditPointsOf, auditSeries } from "@/lib/monitors/audit.ts";
import { submitReview } from "@/lib/review/mutations.ts";
import type { ReviewBody } from "@/lib/review/schema.ts";
import { makeCase } from "@/lib/testing/verifier-fixtures.ts";

// One definition of extraction accuracy: on one database with known reviews, the agreement report (page data, API,
// CLI JSON) gives the monitors' figure for the same items, and an item's slots do not depend on what else the filter
// selects. Two cases with different slots, each reviewed in its own 500-step audit window (the run's default), half
// the items by two annotators.
const url = process.env.DATABASE_URL!;
const RUN = `extraction-one-${randomBytes(3).toString("hex")}`;
const REFUND = "finance.issue_refund";

const label = (kind: string, t: number, who: number): ReviewBody => ({
  subscores: { outcome: 1, policy: 1, evidence: 1, efficiency: 1, communication: 1 },
  guardrails: [],
  // a mix: the refund and its amount, the refund alone, nothing, a forbidden hit — and the second annotator
  // differs from the first on some items, so which review counts matters; on case b some mention a key case a's
  // items never use
  claims: {
    claimed_writes: (t + who) % 3 === 2 ? [] : [REFUND],
    mentioned: [
      ...(t % 2 === 0 ? [{ key: "refund_amount", value: 59.99 }] : []),
      ...(kind === "b" && t % 3 === 0 ? [{ key: "reship_eta" }] : []),
    ],
    forbidden_hits: (t + who) % 5 === 4 ? ["blame_customer"] : [],
  },
  note: "",
});

async function seedCase(kind: "a" | "b", tickets: number, step: number) {
  const values: unknown[] = [];
  for (let t = 0; t < tickets; t++) {
    const ticketId = `${RUN}/${kind}${t}`;
    // case a: the fixture's spec (two must-mention keys, one forbidden code); case b: one key, no forbidden code
    values.push(
      makeCase(
        kind === "a" ? {} : { must_mention: [{ key: "refund_amount", value: "$order.paid_amount" }], forbidden: [] },
        undefined,
        ticketId,
      ),
    );
    values.push(
      variantRollout(t % 4 === 3 ? "empty_promise" : "honest", {
        runId: RUN,
        ticketId,
        trajectoryId: `${ticketId}/k0`,
        step,
        sample: 0,
      }),
    );
  }
  const summary = await ingestValues(values, { pool: bulkPool(url) });
  if (!summary.ok || summary.rejected > 0) throw new Error(`ingest failed: ${JSON.stringify(summary).slice(0, 500)}`);
}

async function reviewBatch(stepFrom: number, stepTo: number, annotators: { userId: number; email: string }[]) {
  const b = await createBatch(
    { runId: RUN, stepFrom, stepTo, rate: 1, salt: `x${stepFrom}`, pick: "one", overlapRate: 0.5, tolerance: 0.1 },
    { label: "test" },
  );
  if (!b.ok) throw new Error(b.error);
  for (let round = 0; round < 200; round++) {
    let progressed = false;
    for (const [who, user] of annotators.entries()) {
      const lease = await claimNextItem(user.userId, { batchId: b.batchId });
      if (!lease) continue;
      progressed = true;
      const { ticketId } = await db().auditItem.findUniqueOrThrow({
        where: { id: lease.itemId },
        select: { ticketId: true },
      });
      const at = ticketId.lastIndexOf("/") + 1;
      const r = await submitReview(lease.itemId, user, label(ticketId[at], Number(ticketId.slice(at + 1)), who), 30);
      if (!r.ok) throw new Error(r.error);
    }
    if (!progressed) break;
  }
  return b.batchId;
}

const counts = (r: AgreementReport) => ({ correct: r.extraction.overall?.correct, n: r.extraction.overall?.n });
const page = async (q: Record<string, unknown>) => {
  const f = agreementFilterSchema.parse(q);
  return buildAgreementReport(await loadAgreementItems(f), f);
};

async function cliJson(argv: string[]): Promise<AgreementReport> {
  let out = "";
  const o = vi.spyOn(process.stdout, "write").mockImplementation((s) => ((out += String(s)), true));
  try {
    expect(await agreementCli([...argv, "--json"])).toBe(0);
  } finally {
    o.mockRestore();
  }
  return JSON.parse(out) as AgreementReport;
}

describe("extraction accuracy has one definition", () => {
  let batchA: number;
  let batchB: number;

  beforeAll(async () => {
    await db().run.create({ data: { id: RUN } });
    await seedCase("a", 14, 10);
    await seedCase("b", 14, 610);
    const annotators = await makeUsers(db(), 2);
    batchA = await reviewBatch(0, 100, annotators);
    batchB = await reviewBatch(600, 700, annotators);
  });

  it("the run's reviews read in chunks of any size, pooled per step, give the audit points of all of them read at once", async () => {
    const pairs = await listAuditPairs(RUN);
    const pooled = auditPoints(pairs, 500);
    expect(pooled.map((p) => p.step)).toEqual([0, 500]);
    // overlap items have further reviews that are not primary: a chunk boundary inside an item would count their
    // claim slots twice
    expect(pairs.filter((p) => !p.primary).length).toBeGreaterThan(0);
    for (const size of [1, 3, 7, 100_000])
      expect(auditPointsOf(await readAuditSteps(RUN, {}, db(), size), 500)).toEqual(pooled);
    // a step range keeps the reviews inside it
    expect(auditPointsOf(await readAuditSteps(RUN, { from: 600, to: 700 }, db(), 5), 500)).toEqual([pooled[1]]);
  });

  it("the report's figure for a set of items is the monitors' figure for the same items", async () => {
    const points = await listAuditPoints(RUN, 500, db());
    expect(points.map((p) => p.step)).toEqual([0, 500]);
    const [w0, w1] = points;
    // the data is not trivial: overlap reviews, and the extractor is wrong on some slots in both windows
    expect((await listAuditPairs(RUN)).filter((p) => !p.primary && p.step < 500).length).toBeGreaterThan(0);
    // each of the window's 14 items counts once, through its primary review, as on the agreement page
    expect(w0.reviews).toBe(14);
    for (const w of points) expect(w.correctSlots).toBeGreaterThan(0);
    for (const w of points) expect(w.correctSlots).toBeLessThan(w.slots);

    const a = await page({ batch: batchA });
    const b = await page({ batch: batchB });
    const run = await page({ run: RUN });
    expect(counts(a)).toEqual({ correct: w0.correctSlots, n: w0.slots });
    expect(counts(b)).toEqual({ correct: w1.correctSlots, n: w1.slots });
    expect(counts(run)).toEqual({ correct: w0.correctSlots + w1.correctSlots, n: w0.slots + w1.slots });
    // and shadow agreement too: the monitors' window and the page's headline count the same items
    expect({ k: a.headline.k, n: a.headline.n }).toEqual({ k: w0.agreeing, n: w0.compared });
    expect({ k: b.headline.k, n: b.headline.n }).toEqual({ k: w1.agreeing, n: w1.compared });
    // the alarm reads the same figure per window
    expect(auditSeries(points).extraction.map((p) => p.value)).toEqual([
      a.extraction.overall!.accuracy.estimate,
      b.extraction.overall!.accuracy.estimate,
    ]);

    // the API and the CLI give the page's figure
    const api = (await (await agreementResponse(`http://x/api/v1/agreement?run=${RUN}`)).json()) as AgreementReport;
    expect(counts(api)).toEqual(counts(run));
    expect(counts(await cliJson(["--run", RUN]))).toEqual(counts(run));
  });

  it("does not move when the filter changes but the items are the same", async () => {
    const run = await page({ run: RUN });
    // a date filter that keeps every review: the same items, another filter
    const sameItems = await page({ run: RUN, from: "2000-01-01" });
    expect(sameItems.items).toBe(run.items);
    expect(counts(sameItems)).toEqual(counts(run));
    // the items of batch A count the same alone as next to batch B's (whose case has other slots)
    const a = await page({ batch: batchA });
    const b = await page({ batch: batchB });
    expect(counts(run)).toEqual({
      correct: a.extraction.overall!.correct + b.extraction.overall!.correct,
      n: a.extraction.overall!.n + b.extraction.overall!.n,
    });
    const cliA = await cliJson(["--run", RUN, "--batch", String(batchA)]);
    expect(counts(cliA)).toEqual(counts(a));
  });
});
