import { describe, expect, it } from "vitest";
import { recordAdjudication } from "@/lib/audit/adjudication-mutations.ts";
import { claimNextItem } from "@/lib/review/leases.ts";
import { createPairBatch } from "@/lib/audit/pair-mutations.ts";
import { db } from "@/lib/db/client.ts";
import { listDefects, loadDefect } from "@/lib/defects/data.ts";
import { fixSpecDefects, markDefectFixed, verifyDefects } from "@/lib/defects/mutations.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import { rescoreRun } from "@/lib/ledger/mutations.ts";
import { submitPairReview } from "@/lib/pairwise/mutations.ts";
import { makeUsers, seedRun, uniqueName } from "@/lib/testing/audit-data.ts";
import { disputedRun, noEmptyPromise } from "@/lib/testing/defects-data.ts";
import { configHash, DEFAULT_CONFIG } from "@/lib/verifier/config.ts";

const url = process.env.DATABASE_URL!;

describe("defects", () => {
  it("a rule-wrong verdict opens a defect; a second item of the same guardrail joins it; a revised verdict withdraws it", async () => {
    const { runId, lead, items } = await disputedRun(url, 2);
    const a1 = await recordAdjudication(
      { itemId: items[0], cause: "verifier_rule_wrong", guardrail: "empty_promise", note: "" },
      lead,
    );
    expect(a1.ok && a1.defectId).not.toBe(null);
    const a2 = await recordAdjudication(
      { itemId: items[1], cause: "verifier_rule_wrong", guardrail: "empty_promise", note: "" },
      lead,
    );
    expect(a2.ok && a2.defectId).toBe(a1.ok && a1.defectId);
    const { rows } = await listDefects({ run: runId });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ cause: "verifier_rule_wrong", guardrail: "empty_promise", status: "open" });
    expect(rows[0].items.map((i) => i.itemId).sort()).toEqual([...items].sort());
    expect(await db().activityLog.count({ where: { action: "defect.open", targetId: rows[0].id.toString() } })).toBe(1);

    // Not a defect cause: both items leave it, and the defect nothing opens any more is withdrawn.
    await recordAdjudication({ itemId: items[0], cause: "annotator_wrong", note: "" }, lead);
    expect((await listDefects({ run: runId })).rows[0].items.map((i) => i.itemId)).toEqual([items[1]]);
    await recordAdjudication({ itemId: items[1], cause: "ambiguous", note: "" }, lead);
    expect((await listDefects({ run: runId })).rows).toEqual([]);
    expect(
      await db().activityLog.count({ where: { action: "defect.withdraw", targetId: rows[0].id.toString() } }),
    ).toBe(1);
  });

  it("a spec-wrong verdict opens one defect per case", async () => {
    const { runId, lead, items } = await disputedRun(url, 2);
    for (const itemId of items) await recordAdjudication({ itemId, cause: "spec_wrong", note: "" }, lead);
    const { rows } = await listDefects({ run: runId, kind: "spec" });
    expect(rows.map((r) => r.ticketId).sort()).toEqual([`${runId}/T0`, `${runId}/T1`]);
    expect(rows.every((r) => r.status === "open" && r.items.length === 1)).toBe(true);

    // A new version of one case fixes that case's open spec defects only; not re-scored yet, so not verified.
    const fixed = await fixSpecDefects({ ticketId: `${runId}/T0`, version: 2 }, { label: "cli" });
    expect(fixed.map((d) => [d.runId, d.status])).toEqual([[runId, "fixed"]]);
    const after = await listDefects({ run: runId, kind: "spec" });
    expect(after.rows.map((r) => [r.ticketId, r.status, r.fixKind, r.fixRef]).sort()).toEqual([
      [`${runId}/T0`, "fixed", "case_version", "2"],
      [`${runId}/T1`, "open", null, null],
    ]);
    expect(await fixSpecDefects({ ticketId: `${runId}/T0`, version: 3 }, { label: "cli" })).toEqual([]);
  });

  it("goes open → fixed → verified: verified only once the fix is re-scored and the items agree", async () => {
    const { runId, lead, items } = await disputedRun(url, 2);
    let defectId = 0n;
    for (const itemId of items) {
      const r = await recordAdjudication(
        { itemId, cause: "verifier_rule_wrong", guardrail: "empty_promise", note: "" },
        lead,
      );
      if (r.ok && r.defectId) defectId = r.defectId;
    }
    const config = noEmptyPromise();
    // The fix's kind must match the defect's.
    expect(await markDefectFixed({ runId, defectId }, { kind: "case_version", ref: "1" }, lead)).toMatchObject({
      ok: false,
      error: "A rule defect is fixed by a verifier config, not by a case version.",
    });
    expect(await markDefectFixed({ runId, defectId }, { kind: "config", ref: configHash(config) }, lead)).toEqual({
      ok: true,
      status: "fixed",
    });
    expect(await markDefectFixed({ runId, defectId }, { kind: "config", ref: configHash(config) }, lead)).toMatchObject(
      { ok: false, error: `Defect #${defectId} is already fixed.` },
    );
    // Nothing re-scored yet: the items still disagree, so it stays fixed.
    expect(await verifyDefects({ runId })).toEqual([]);
    let d = await loadDefect(runId, defectId);
    expect(d?.now.map((x) => [x.rescored, x.agrees])).toEqual([
      [false, false],
      [false, false],
    ]);

    // A re-score under the default config changes nothing (same config hash): still not verified.
    await rescoreRun(bulkPool(url), { runId, config: DEFAULT_CONFIG });
    expect(await verifyDefects({ runId })).toEqual([]);

    const summary = await rescoreRun(bulkPool(url), { runId, config });
    expect(summary.reward_changed).toBe(2);
    expect(await verifyDefects({ runId })).toEqual([{ runId, id: defectId }]);
    d = await loadDefect(runId, defectId);
    expect(d).toMatchObject({ status: "verified", fixKind: "config", fixRef: configHash(config) });
    expect(d?.now.map((x) => [x.rescored, x.agrees])).toEqual([
      [true, true],
      [true, true],
    ]);
    const log = await db().activityLog.findMany({
      where: { targetType: "defect", targetId: defectId.toString() },
      orderBy: { id: "asc" },
      select: { action: true, actorLabel: true },
    });
    expect(log.map((l) => l.action)).toEqual(["defect.open", "defect.fix", "defect.verify"]);
    expect(log[1].actorLabel).toBe(lead.email);
  });

  it("verifies a rule defect opened from a pair's inversion once the re-score no longer orders the pair against the human", async () => {
    // one group: an empty promise (capped at 0.35, raw 0.55) and a refund made before reading (0.55); the annotator
    // prefers the empty promise, an inversion while the cap holds and a ledger tie once it is off
    const runId = uniqueName("defects-pair");
    await seedRun(url, {
      runId,
      tickets: 1,
      perTicket: 2,
      variant: (_t, k) => (k === 0 ? "empty_promise" : "missing_evidence"),
    });
    const b = await createPairBatch(
      {
        runId,
        stepFrom: 0,
        stepTo: 100,
        rate: 1,
        salt: "p",
        pick: "one",
        overlapRate: 0,
        tolerance: 0.1,
        kind: "pairwise",
      },
      { label: "test" },
    );
    if (!b.ok) throw new Error(b.error);
    const [annotator] = await makeUsers(db(), 1);
    const [lead] = await makeUsers(db(), 1, "lead");
    const lease = (await claimNextItem(annotator.userId, { batchId: b.batchId }))!;
    const item = await db().auditItem.findUniqueOrThrow({
      where: { id: lease.itemId },
      select: { bOnLeft: true, ledger: { select: { decidingGuardrail: true } } },
    });
    const promiseIsA = item.ledger.decidingGuardrail === "empty_promise";
    const choice = promiseIsA !== item.bOnLeft ? "left" : "right";
    const judged = await submitPairReview(lease.itemId, annotator, { choice, reason: null, note: "" }, 10);
    expect(judged).toMatchObject({ ok: true, order: { verdict: "inversion" } });
    const v = await recordAdjudication(
      { itemId: lease.itemId, cause: "verifier_rule_wrong", guardrail: "empty_promise", note: "" },
      lead,
    );
    if (!v.ok || !v.defectId) throw new Error("no defect");
    const defectId = v.defectId;
    const config = noEmptyPromise();
    expect(await markDefectFixed({ runId, defectId }, { kind: "config", ref: configHash(config) }, lead)).toEqual({
      ok: true,
      status: "fixed",
    });
    expect((await loadDefect(runId, defectId))?.now.map((x) => [x.rescored, x.agrees])).toEqual([[false, false]]);
    await rescoreRun(bulkPool(url), { runId, config });
    expect(await verifyDefects({ runId })).toEqual([{ runId, id: defectId }]);
    expect((await loadDefect(runId, defectId))?.now.map((x) => [x.rescored, x.agrees])).toEqual([[true, true]]);
  });
});
