import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemoAudit } from "@/lib/audit/demo.ts";
import { seedDemoIfEmpty } from "@/lib/demo/seed.ts";
import { seedRun } from "@/lib/audit/test-data.ts";
import { createDemoUsersIfEmpty } from "@/lib/auth/demo-users.ts";
import { createClient } from "@/lib/db/client.ts";
import { migrate } from "@/lib/db/migrate.ts";
import { createScratchDatabase } from "@/lib/db/scratch.ts";
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";
import { closeBulkPool } from "@/lib/ingest/pool.ts";
import { listOverlapItems, listReviewsWithLedger } from "@/lib/review/data.ts";

describe("the demo shadow audit", () => {
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
  let client: PrismaClient;

  beforeAll(async () => {
    scratch = await createScratchDatabase("demo_audit");
    await migrate(scratch.url);
    client = createClient(scratch.url);
  });
  afterAll(async () => {
    await client?.$disconnect();
    await closeBulkPool(scratch.url);
    await scratch?.drop();
  });

  it("does nothing without the demo run and users", async () => {
    expect(await seedDemoAudit(scratch.url)).toBeNull();
    expect(await client.auditBatch.count()).toBe(0);
  });

  it("reviews a batch of the demo run at about 88% agreement, one guardrail clearly worse, with overlap and verdicts", async () => {
    await createDemoUsersIfEmpty(client);
    // 400 tickets: 15% refund before reading (missing_evidence), 5% empty promises, the rest honest.
    await seedRun(scratch.url, { runId: "grpo-main", tickets: 400, variant: (i) => (i % 20 < 3 ? "missing_evidence" : i % 20 === 3 ? "empty_promise" : "honest") });
    const line = await seedDemoAudit(scratch.url);
    expect(line).toMatch(/^demo shadow audit: batch \d+/);

    const rows = await listReviewsWithLedger({}, client);
    expect(rows.length).toBeGreaterThan(50);
    const agree = (rs: typeof rows) => rs.filter((r) => !r.comparison.rewardDisagrees).length / rs.length;
    expect(agree(rows)).toBeGreaterThan(0.85);
    expect(agree(rows)).toBeLessThan(0.91);
    const worse = rows.filter((r) => r.ledger.decidingGuardrail === "missing_evidence");
    const rest = rows.filter((r) => r.ledger.decidingGuardrail !== "missing_evidence");
    expect(worse.length).toBeGreaterThanOrEqual(5);
    expect(agree(worse)).toBeLessThan(0.75);
    expect(agree(rest)).toBeGreaterThan(0.9);

    const reviewers = new Set(rows.map((r) => r.review.reviewerEmail));
    expect(reviewers).toEqual(new Set(["annotator@verity.local", "annotator2@verity.local"]));
    const overlap = await listOverlapItems({}, client);
    expect(overlap.length).toBeGreaterThan(0);
    for (const o of overlap) expect(new Set(o.reviews.map((r) => r.reviewerId)).size).toBe(2);

    const verdicts = await client.adjudication.findMany({ select: { cause: true, guardrail: true, item: { select: { disputedAt: true } } } });
    expect(verdicts.length).toBeGreaterThanOrEqual(1);
    expect(verdicts.length).toBeLessThanOrEqual(2);
    expect(verdicts.every((v) => v.item.disputedAt !== null)).toBe(true);
    expect(verdicts.some((v) => v.cause === "verifier_rule_wrong" && v.guardrail === "missing_evidence")).toBe(true);
    // some work is left in the queue, and nothing is leased
    expect(await client.auditItem.count({ where: { status: "open" } })).toBeGreaterThan(0);
    expect(await client.auditItem.count({ where: { leaseUserId: { not: null } } })).toBe(0);
    // every review is in the audit log
    expect(await client.auditLogEntry.count({ where: { action: "review.submit" } })).toBe(rows.length);

    // once is enough
    expect(await seedDemoAudit(scratch.url)).toBeNull();
  });
});

describe("the demo shadow audit on the real demo ledger", () => {
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
  let client: PrismaClient;

  beforeAll(async () => {
    scratch = await createScratchDatabase("demo_audit_real");
    await migrate(scratch.url);
    client = createClient(scratch.url);
  });
  afterAll(async () => {
    await client?.$disconnect();
    await scratch?.drop();
  });

  it("samples the generated run and reviews it near 88% agreement", async () => {
    expect(await seedDemoIfEmpty(scratch.url, { size: "small" })).toMatch(/grpo-main/);
    await createDemoUsersIfEmpty(client);
    const line = await seedDemoAudit(scratch.url);
    expect(line).toMatch(/^demo shadow audit: batch \d+/);
    const batch = await client.auditBatch.findFirstOrThrow({ select: { runId: true, _count: { select: { items: true } } } });
    expect(batch.runId).toBe("grpo-main");
    expect(batch._count.items).toBeGreaterThan(40);
    const rows = await listReviewsWithLedger({}, client);
    const agreement = rows.filter((r) => !r.comparison.rewardDisagrees).length / rows.length;
    expect(agreement).toBeGreaterThan(0.82);
    expect(agreement).toBeLessThan(0.93);
    expect(await client.adjudication.count()).toBeGreaterThanOrEqual(1);
  }, 240_000);
});
