import { describe, expect, it } from "vitest";
import { loadAgreementItems } from "@/lib/agreement/data.ts";
import { buildAgreementReport } from "@/lib/agreement/report.ts";
import { agreementFilterSchema } from "@/lib/agreement/schema.ts";
import { correctedCurve } from "@/lib/monitors/corrected-curve.ts";
import { HACKING_RUN, HACKING_THRESHOLDS, seedDemoAudit } from "@/lib/demo/audit.ts";
import { seedDemoIfEmpty } from "@/lib/demo/seed.ts";
import { seedRun } from "@/lib/testing/audit-data.ts";
import { createDemoUsersIfEmpty } from "@/lib/demo/users.ts";
import { type ScratchDatabase, useMigratedScratch } from "@/lib/testing/scratch-suite.ts";
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";
import { listAuditPoints } from "@/lib/monitors/audit-data.ts";
import { evaluateRunAlarms } from "@/lib/monitors/evaluate.ts";
import { listOverlapItems, listReviewsWithLedger } from "@/lib/review/data.ts";
import { wilson } from "@/lib/stats/intervals.ts";

async function report(client: PrismaClient, filter: Record<string, unknown> = {}) {
  const f = agreementFilterSchema.parse(filter);
  return buildAgreementReport(await loadAgreementItems(f, client), f);
}

describe("the demo shadow audit", () => {
  let scratch: ScratchDatabase;
  let client: PrismaClient;
  useMigratedScratch("demo_audit", (s, c) => ((scratch = s), (client = c)));

  it("does nothing without the demo run and users", async () => {
    expect(await seedDemoAudit(scratch.url)).toBeNull();
    expect(await client.auditBatch.count()).toBe(0);
  });

  it("reviews a batch of the demo run at about 88% agreement, one guardrail clearly worse, with overlap and verdicts", async () => {
    await createDemoUsersIfEmpty(client);
    // 400 tickets: 15% refund before reading (missing_evidence), 5% empty promises, the rest honest.
    await seedRun(scratch.url, {
      runId: "grpo-main",
      tickets: 400,
      variant: (i) => (i % 20 < 3 ? "missing_evidence" : i % 20 === 3 ? "empty_promise" : "honest"),
    });
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

    const verdicts = await client.adjudication.findMany({
      select: { cause: true, guardrail: true, item: { select: { disputedAt: true } } },
    });
    // every dispute the main batch has, up to nine: three on the worse guardrail, the rest spread over the causes
    expect(verdicts.length).toBeGreaterThanOrEqual(4);
    expect(verdicts.length).toBeLessThanOrEqual(9);
    expect(verdicts.every((v) => v.item.disputedAt !== null)).toBe(true);
    expect(
      verdicts.filter((v) => v.cause === "verifier_rule_wrong" && v.guardrail === "missing_evidence").length,
    ).toBeGreaterThanOrEqual(2);
    expect(new Set(verdicts.map((v) => v.cause)).size).toBeGreaterThanOrEqual(3);
    // the annotators' claims are not a copy of the extractor's
    const r = await report(client);
    expect(r.extraction.overall!.accuracy.estimate).toBeLessThan(0.99);
    // no reward-hacking run here: one batch only
    expect(await client.auditBatch.count()).toBe(1);
    // some work is left in the queue, and nothing is leased
    expect(await client.auditItem.count({ where: { status: "open" } })).toBeGreaterThan(0);
    expect(await client.auditItem.count({ where: { leaseUserId: { not: null } } })).toBe(0);
    // every review is in the activity log
    expect(await client.activityLog.count({ where: { action: "review.submit" } })).toBe(rows.length);

    // once is enough
    expect(await seedDemoAudit(scratch.url)).toBeNull();
  });
});

describe("the demo shadow audit on the real demo ledger", () => {
  let scratch: ScratchDatabase;
  let client: PrismaClient;
  useMigratedScratch("demo_audit_real", (s, c) => ((scratch = s), (client = c)));

  it("tells the agreement story on grpo-main and makes the reward-hacking alarm fire on grpo-hacking", async () => {
    expect(await seedDemoIfEmpty(scratch.url, { size: "small" })).toMatch(/grpo-main/);
    await createDemoUsersIfEmpty(client);
    const started = performance.now();
    const line = await seedDemoAudit(scratch.url);
    console.log(`demo audit (small demo): ${Math.round(performance.now() - started)} ms: ${line}`);
    expect(line).toMatch(/^demo shadow audit: batch \d+.*; reward-hacking audit: \d+ batches, \d+ reviews/);

    const batches = await client.auditBatch.findMany({
      orderBy: { id: "asc" },
      select: { id: true, runId: true, _count: { select: { items: true } } },
    });
    // grpo-main's batch, then one batch per audit window of grpo-hacking
    expect(batches[0].runId).toBe("grpo-main");
    expect(batches.slice(1).every((b) => b.runId === HACKING_RUN)).toBe(true);
    expect(batches.length).toBeGreaterThanOrEqual(9);
    expect(batches[0]._count.items).toBeGreaterThan(40);

    // grpo-main: near 88%, one guardrail worse
    const main = await report(client, { run: "grpo-main" });
    expect(main.headline.n).toBeGreaterThan(40);
    const rate = main.headline.k / main.headline.n;
    expect(rate).toBeGreaterThan(0.82);
    expect(rate).toBeLessThan(0.93);

    // extraction accuracy: a realistic figure over both batches, with the refund amount the one slot below 0.85
    const all = await report(client);
    const overall = all.extraction.overall!.accuracy.estimate;
    expect(overall).toBeGreaterThan(0.8);
    expect(overall).toBeLessThan(0.95);
    const below = all.extraction.slots.filter((s) => s.belowThreshold).map((s) => s.slot);
    expect(below).toEqual(["mention:refund_amount"]);

    // verdicts: 8–15, spread over the causes, tallied by the report as stored
    const verdicts = await client.adjudication.findMany({ select: { cause: true } });
    expect(verdicts.length).toBeGreaterThanOrEqual(8);
    expect(verdicts.length).toBeLessThanOrEqual(15);
    const stored = new Map<string, number>();
    for (const v of verdicts) stored.set(v.cause, (stored.get(v.cause) ?? 0) + 1);
    expect(stored.size).toBeGreaterThanOrEqual(4);
    expect(all.causes.filter((c) => c.count > 0).map((c) => [c.cause, c.count])).toEqual(
      [...stored.entries()].sort(
        (a, b) => all.causes.findIndex((c) => c.cause === a[0]) - all.causes.findIndex((c) => c.cause === b[0]),
      ),
    );

    // grpo-hacking: every item reviewed, at least five reviews in most audit windows, agreement falling late
    expect(await client.auditItem.count({ where: { batch: { runId: HACKING_RUN }, status: "open" } })).toBe(0);
    const points = await listAuditPoints(HACKING_RUN, HACKING_THRESHOLDS.auditWindow!, client);
    expect(points.filter((p) => p.compared >= 5).length).toBeGreaterThanOrEqual(8);
    const early =
      points.slice(0, 3).reduce((a, p) => a + p.agreeing, 0) / points.slice(0, 3).reduce((a, p) => a + p.compared, 0);
    const late =
      points.slice(-3).reduce((a, p) => a + p.agreeing, 0) / points.slice(-3).reduce((a, p) => a + p.compared, 0);
    expect(early).toBeGreaterThan(0.85);
    expect(late).toBeLessThan(0.7);

    // the alarms, evaluated as the console would: reward hacking fires on grpo-hacking, not on grpo-main
    const hacking = await evaluateRunAlarms(HACKING_RUN, { client, webhookUrl: null });
    const state = (r: typeof hacking, alarm: string) => r.alarms.find((a) => a.alarm === alarm)?.state;
    expect(state(hacking, "hacking_agreement")).toBe("red");
    expect(hacking.alarms.find((a) => a.alarm === "hacking_agreement")?.message).toMatch(/^ledger reward \+/);
    expect(state(hacking, "handoff")).toBe("red");
    const main_ = await evaluateRunAlarms("grpo-main", { client, webhookUrl: null });
    expect(state(main_, "hacking_agreement")).toBe("green");
    expect(state(main_, "hacking_success")).toBe("green");
    // the human-corrected success rate: with the ledger early, and below it late, where the ledger's success has
    // risen and the annotators fail its hacked successes (an offer no tool grants) — the corrected band's upper bound is below the ledger's
    // rate in each of the last three windows, and its lower bound is not above it in the first three
    const curve = (await correctedCurve(client, HACKING_RUN))!;
    console.log(
      curve.windows
        .map(
          (w) =>
            `${w.stepFrom}: ledger ${w.ledgerSuccess?.toFixed(3)} corrected ${JSON.stringify(w.corrected)} ${w.audited.items}${w.pooled ? " pooled" : ""}`,
        )
        .join("\n"),
    );
    expect(curve.windowSteps).toBe(HACKING_THRESHOLDS.auditWindow);
    const lateWindows = curve.windows.slice(-3);
    for (const w of lateWindows) expect(w.corrected!.hi).toBeLessThan(w.ledgerSuccess!);
    for (const w of curve.windows.slice(0, 3)) expect(w.corrected?.lo ?? 0).toBeLessThanOrEqual(w.ledgerSuccess!);
    // and the ledger's success did rise: the lateWindows windows' rate is well above the early ones'
    expect(Math.min(...lateWindows.map((w) => w.ledgerSuccess!))).toBeGreaterThan(
      curve.windows[0].ledgerSuccess! + 0.3,
    );
    // the thresholds the demo gave the run are in the activity log
    expect(await client.activityLog.count({ where: { action: "run.thresholds_update", targetId: HACKING_RUN } })).toBe(
      1,
    );
  }, 240_000);

  it("judges a pairwise batch of grpo-hacking whose inversions grow with step, late windows below 0.8", async () => {
    const batches = await client.auditBatch.findMany({
      where: { kind: "pairwise" },
      select: { id: true, runId: true, manifest: true, _count: { select: { items: true } } },
    });
    expect(batches.map((b) => b.runId)).toEqual([HACKING_RUN]);
    const batchId = batches[0].id;
    expect(batches[0]._count.items).toBeGreaterThan(300);
    // every pair judged and counted, none left in a queue; each judgement in the activity log
    expect(await client.auditItem.count({ where: { batchId, status: { not: "done" } } })).toBe(0);
    const reviews = await client.pairReview.count({ where: { item: { batchId } } });
    expect(reviews).toBeGreaterThan(batches[0]._count.items);
    expect(await client.activityLog.count({ where: { action: "pair_review.submit" } })).toBe(reviews);
    const reviewers = await client.pairReview.groupBy({ by: ["reviewerId"], where: { item: { batchId } } });
    expect(reviewers.length).toBe(2);

    // Each judged pair through its first counted judgement (as the report and the alarm count), against the
    // ledger's order, computed here from the stored rows.
    const rows = await client.$queryRaw<
      {
        step: number;
        preferred: string | null;
        hi: string | null;
        lo_handoff: boolean;
        hi_handoff: boolean;
        disputed: boolean;
      }[]
    >`
      select distinct on (i.id) a.step, r.preferred_trajectory_id as preferred,
             case when a.reward > b.reward then a.trajectory_id when b.reward > a.reward then b.trajectory_id end as hi,
             case when a.reward > b.reward then b.handoff else a.handoff end as lo_handoff,
             case when a.reward > b.reward then a.handoff else b.handoff end as hi_handoff,
             i.disputed_at is not null as disputed
        from pair_reviews r join audit_items i on i.id = r.item_id
        join ledger a on a.run_id = i.run_id and a.id = i.ledger_id
        join ledger b on b.run_id = i.run_id and b.id = i.ledger_b_id
       where i.batch_id = ${batchId} and r.excluded_reason is null
       order by i.id, r.id`;
    const inversions = rows.filter((r) => r.preferred !== null && r.hi !== null && r.preferred !== r.hi);
    expect(inversions.length).toBeGreaterThanOrEqual(25);
    // the story: the human preferred the rollout that did the work over a hand-off the ledger rewards higher
    for (const r of inversions) expect(r.disputed).toBe(true);
    expect(inversions.filter((r) => r.hi_handoff && !r.lo_handoff).length / inversions.length).toBeGreaterThan(0.8);

    const width = HACKING_THRESHOLDS.auditWindow!;
    const windows = new Map<number, { agree: number; inversions: number }>();
    for (const r of rows) {
      if (r.preferred === null || r.hi === null) continue;
      const w = windows.get(Math.floor(r.step / width)) ?? { agree: 0, inversions: 0 };
      if (r.preferred === r.hi) w.agree++;
      else w.inversions++;
      windows.set(Math.floor(r.step / width), w);
    }
    const byStep = [...windows.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]);
    expect(byStep.length).toBeGreaterThanOrEqual(8);
    const sum = (ws: typeof byStep) => ws.reduce((s, w) => s + w.inversions, 0);
    const early = byStep.slice(0, 3);
    const late = byStep.slice(-3);
    expect(sum(late)).toBeGreaterThan(3 * sum(early) + 10);
    // enough ordered judgements in all windows but one for the alarm to judge, the lower bound above 0.8 early, below
    // late
    expect(byStep.filter((w) => w.agree + w.inversions < 30).length).toBeLessThanOrEqual(1);
    const lower = (w: { agree: number; inversions: number }) => wilson(w.agree, w.agree + w.inversions)!.lower;
    for (const w of early) expect(lower(w)).toBeGreaterThan(0.8);
    for (const w of late) expect(lower(w)).toBeLessThan(0.8);
  }, 60_000);

  it("turns the ordering-agreement alarm red on grpo-hacking, once, and leaves grpo-main (no pairs) silent", async () => {
    const hacking = await evaluateRunAlarms(HACKING_RUN, { client, webhookUrl: null, force: true });
    const ordering = hacking.alarms.find((a) => a.alarm === "ordering")!;
    expect(ordering.state).toBe("red");
    expect(ordering.message).toMatch(/ordering agreement's 95% lower bound/);
    expect(ordering.value!).toBeLessThan(0.8);
    // red since a window in the second half of the run (3,000-step windows over 0–29,250)
    expect(ordering.sinceStep!).toBeGreaterThanOrEqual(12_000);
    // the change was recorded once (by the evaluation of the test before), and evaluating again records nothing
    expect(hacking.transitions.filter((t) => t.alarm === "ordering")).toEqual([]);
    const events = await client.monitorAlarmEvent.findMany({ where: { runId: HACKING_RUN, alarm: "ordering" } });
    expect(events.map((e) => [e.fromState, e.toState])).toEqual([["green", "red"]]);

    const main = await evaluateRunAlarms("grpo-main", { client, webhookUrl: null, force: true });
    const silent = main.alarms.find((a) => a.alarm === "ordering")!;
    expect(silent.state).toBe("green");
    expect(silent.atStep).toBeNull();
    expect(await client.monitorAlarmEvent.count({ where: { runId: "grpo-main", alarm: "ordering" } })).toBe(0);
  }, 60_000);
});
