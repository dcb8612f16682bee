import { describe, expect, it } from "vitest";
import { recordAdjudication } from "@/lib/audit/adjudication-mutations.ts";
import { applyCaseFix } from "@/lib/cases/apply-fix.ts";
import { answeredAdjudication, listCaseVersions } from "@/lib/cases/data.ts";
import { itemsAgreeNow } from "@/lib/defects/agreement-now.ts";
import { listDefects } from "@/lib/defects/data.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import { RETURN_LABEL_SPEC, specDisputedRun } from "@/lib/testing/spec-defect-data.ts";

const url = process.env.DATABASE_URL!;

describe("applying a case revision closes its spec defects", () => {
  it("marks the case's open spec-wrong defect fixed by the new version, verified once its items agree", async () => {
    const { runId, lead, items } = await specDisputedRun(url, 2);
    const adjudications: bigint[] = [];
    for (const { itemId } of items) {
      const a = await recordAdjudication({ itemId, cause: "spec_wrong", note: "return label" }, lead);
      if (!a.ok) throw new Error(a.error);
      adjudications.push(a.adjudicationId);
    }
    const [t0, t1] = items.map((i) => i.ticketId);
    expect((await listDefects({ run: runId })).rows.map((d) => [d.ticketId, d.status]).sort()).toEqual([
      [t0, "open"],
      [t1, "open"],
    ]);
    expect(await itemsAgreeNow([items[0].itemId])).toMatchObject([{ rescored: false, agrees: false }]);

    // An adjudication of the other ticket is not one this revision can answer.
    expect(await answeredAdjudication(bulkPool(url), adjudications[1], t0)).toEqual({
      ok: false,
      error: `Adjudication #${adjudications[1]} is about ${t1}, not ${t0}.`,
    });
    expect(await answeredAdjudication(bulkPool(url), 999_999_999n, t0)).toEqual({
      ok: false,
      error: "No adjudication #999999999.",
    });

    const r = await applyCaseFix(bulkPool(url), {
      ticketId: t0,
      draft: { spec: RETURN_LABEL_SPEC },
      reason: "the return label is part of a damaged-item refund",
      authorId: lead.userId,
      actor: lead,
      answers: { adjudicationIds: [adjudications[0]] },
    });
    if (!r.ok) throw new Error(JSON.stringify(r.issues));
    expect(r).toMatchObject({ status: "created", version: 2, rescore: { rollouts: 1, reward_changed: 1 } });
    const d0 = (await listDefects({ run: runId })).rows.find((d) => d.ticketId === t0)!;
    expect(r.defects).toEqual([{ runId, id: d0.id, status: "verified" }]);
    expect(d0).toMatchObject({ status: "verified", fixKind: "case_version", fixRef: "2" });
    // The other case's defect is untouched; its item still disagrees.
    const d1 = (await listDefects({ run: runId })).rows.find((d) => d.ticketId === t1)!;
    expect(d1.status).toBe("open");
    const now = await itemsAgreeNow(items.map((i) => i.itemId));
    expect(items.map((i) => now.find((x) => x.itemId === i.itemId))).toMatchObject([
      { rescored: true, agrees: true },
      { rescored: false, agrees: false },
    ]);
    // The version records the adjudication it answers.
    const [v2] = await listCaseVersions(bulkPool(url), t0);
    expect(v2).toMatchObject({ version: 2, answersAdjudicationIds: [String(adjudications[0])] });

    // The same draft again stores nothing and fixes nothing more.
    const again = await applyCaseFix(bulkPool(url), {
      ticketId: t0,
      draft: { spec: RETURN_LABEL_SPEC },
      reason: "again",
      actor: lead,
    });
    expect(again).toMatchObject({ ok: true, status: "unchanged", defects: [], verifiedEarlier: 0 });
  });
});
