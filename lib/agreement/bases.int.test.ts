import { describe, expect, it } from "vitest";
import { basisSentence } from "@/lib/agreement/bases.ts";
import { loadAgreementItems } from "@/lib/agreement/data.ts";
import { buildAgreementReport } from "@/lib/agreement/report.ts";
import { parseAgreementFilter, type AgreementFilter } from "@/lib/agreement/schema.ts";
import { recordAdjudication } from "@/lib/audit/adjudication-mutations.ts";
import { db } from "@/lib/db/client.ts";
import { countFixes } from "@/lib/agreement/fixes-data.ts";
import { markDefectFixed } from "@/lib/defects/mutations.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import { rescoreRun } from "@/lib/ledger/mutations.ts";
import { disputedRun, noEmptyPromise } from "@/lib/testing/defects-data.ts";
import { configHash } from "@/lib/verifier/config.ts";

const url = process.env.DATABASE_URL!;

const filter = (over: Record<string, string>): AgreementFilter => {
  const p = parseAgreementFilter(over);
  if (!p.ok) throw new Error(p.errors.join("; "));
  return p.filter;
};

describe("agreement now and as reviewed", () => {
  it("refuses a basis it does not know, naming the field", () => {
    expect(parseAgreementFilter({ basis: "later" })).toEqual({ ok: false, errors: ["basis: must be reviewed or now"] });
  });

  it("differs by exactly the items whose re-scored entry changed their agreement", async () => {
    const { runId, lead, items, agreeing } = await disputedRun(url, 3, { honest: 2 });
    const reviewed = filter({ run: runId });
    const now = filter({ run: runId, basis: "now" });

    // Before any re-score both bases are the same ledger.
    let r = buildAgreementReport(await loadAgreementItems(now, db()), now);
    expect(r.basis).toBe("now");
    expect(r.bases).toMatchObject({ differ: false, rescored: [], flipped: [] });
    expect([r.headline.k, r.headline.n]).toEqual([2, 5]);

    for (const itemId of items)
      await recordAdjudication({ itemId, cause: "verifier_rule_wrong", guardrail: "empty_promise", note: "" }, lead);
    const defect = await db().defect.findFirstOrThrow({ where: { runId }, select: { id: true } });
    const config = noEmptyPromise();
    await markDefectFixed({ runId, defectId: defect.id }, { kind: "config", ref: configHash(config) }, lead);
    await rescoreRun(bulkPool(url), { runId, config });

    const asReviewed = buildAgreementReport(await loadAgreementItems(reviewed, db()), reviewed);
    r = buildAgreementReport(await loadAgreementItems(now, db()), now);
    // As reviewed: the 2 honest items agree. Now: the 3 empty promises agree too (their cap is gone).
    expect([asReviewed.headline.k, asReviewed.headline.n]).toEqual([2, 5]);
    expect([r.headline.k, r.headline.n]).toEqual([5, 5]);
    // A new config hash re-scores every entry of the run; the agreement moved on exactly the three.
    expect([...r.bases.rescored].sort()).toEqual([...items, ...agreeing].map(String).sort());
    expect([...r.bases.flipped.map((x) => x.itemId)].sort()).toEqual(items.map(String).sort());
    expect(r.bases.flipped.every((x) => x.agreesNow)).toBe(true);
    expect(r.bases.now.agreeing - r.bases.reviewed.agreeing).toBe(r.bases.flipped.length);
    // The same comparison from either basis.
    expect(asReviewed.bases).toEqual(r.bases);
    expect(r.bases.byGuardrail).toEqual([
      { guardrail: "empty_promise", reviewed: { agreeing: 0, n: 3, rate: 0 }, now: { agreeing: 3, n: 3, rate: 1 } },
    ]);
    const fixes = await countFixes(r.bases.rescored.map((id) => BigInt(id)));
    expect(fixes).toEqual({ spec: 0, rule: 1 });
    expect(basisSentence(r.bases, fixes)).toBe("agreement 40% → 100% after 1 rule fix");
  });
});
