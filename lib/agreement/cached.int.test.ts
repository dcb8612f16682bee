import { describe, expect, it } from "vitest";
import { agreementFingerprint, loadAgreementReport, loadAgreementReportLatest } from "@/lib/agreement/cached.ts";
import { loadAgreementItems } from "@/lib/agreement/data.ts";
import { buildAgreementReport } from "@/lib/agreement/report.ts";
import { parseAgreementFilter, type AgreementFilter } from "@/lib/agreement/schema.ts";
import { recordAdjudication } from "@/lib/audit/adjudication-mutations.ts";
import { db } from "@/lib/db/client.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import { rescoreRun } from "@/lib/ledger/mutations.ts";
import { disputedRun, noEmptyPromise } from "@/lib/testing/defects-data.ts";

// The agreement report is reused while its fingerprint holds, and every write it is computed from — an
// adjudication, a re-score that supersedes the items' entries — changes the fingerprint, so the next read is the
// report computed afresh, never the one before the write.
const url = process.env.DATABASE_URL!;

const filter = (over: Record<string, string>): AgreementFilter => {
  const p = parseAgreementFilter(over);
  if (!p.ok) throw new Error(p.errors.join("; "));
  return p.filter;
};
const fresh = async (f: AgreementFilter) => buildAgreementReport(await loadAgreementItems(f, db()), f);

describe("the agreement report's cache", () => {
  it("reuses the report while nothing changes and recomputes it after each write it reads", async () => {
    const { runId, lead, items } = await disputedRun(url, 3, { honest: 2 });
    const now = filter({ run: runId, basis: "now" });

    const first = await loadAgreementReport(now, db());
    expect([first.headline.k, first.headline.n]).toEqual([2, 5]);
    expect(first).toEqual(await fresh(now));
    // unchanged: the same computation is handed back
    expect(await loadAgreementReport(now, db())).toBe(first);
    // another filter is another entry
    const asReviewed = filter({ run: runId });
    expect(await loadAgreementReport(asReviewed, db())).not.toBe(first);

    const before = await agreementFingerprint(now, db());
    await recordAdjudication(
      { itemId: items[0], cause: "verifier_rule_wrong", guardrail: "empty_promise", note: "" },
      lead,
    );
    const adjudicated = await agreementFingerprint(now, db());
    expect(adjudicated).not.toBe(before);
    const second = await loadAgreementReport(now, db());
    expect(second).not.toBe(first);
    expect(second).toEqual(await fresh(now));

    // A re-score supersedes every entry: the items' current entries change, and so does the report ("now").
    await rescoreRun(bulkPool(url), { runId, config: noEmptyPromise() });
    expect(await agreementFingerprint(now, db())).not.toBe(adjudicated);
    const third = await loadAgreementReport(now, db());
    expect([third.headline.k, third.headline.n]).toEqual([5, 5]);
    expect(third).toEqual(await fresh(now));
    expect(await loadAgreementReport(now, db())).toBe(third);
  });

  it("does not mix runs: each run's fingerprint reads its own items only", async () => {
    const a = await disputedRun(url, 1, { honest: 1 });
    const b = await disputedRun(url, 2, { honest: 1 });
    const fa = await agreementFingerprint(filter({ run: a.runId }), db());
    const fb = await agreementFingerprint(filter({ run: b.runId }), db());
    expect(fa).not.toBe(fb);
    await recordAdjudication(
      { itemId: b.items[0], cause: "verifier_rule_wrong", guardrail: "empty_promise", note: "" },
      b.lead,
    );
    expect(await agreementFingerprint(filter({ run: a.runId }), db())).toBe(fa);
    expect(await agreementFingerprint(filter({ run: b.runId }), db())).not.toBe(fb);
  });

  it("a re-score changes its run's fingerprint, under the run or its batch, and no other run's", async () => {
    const a = await disputedRun(url, 2, { honest: 1 });
    const b = await disputedRun(url, 1, { honest: 1 });
    const [item] = await db().$queryRaw<{ batch_id: number }[]>`
      select batch_id from audit_items where id = ${a.items[0]}`;
    const now = filter({ run: a.runId, basis: "now" });
    const ofBatch = filter({ batch: String(item.batch_id), basis: "now" });
    const other = filter({ run: b.runId, basis: "now" });
    const before = await loadAgreementReport(ofBatch, db());
    const [fRun, fBatch, fOther] = [
      await agreementFingerprint(now, db()),
      await agreementFingerprint(ofBatch, db()),
      await agreementFingerprint(other, db()),
    ];
    // the re-score supersedes the entries of run a's two disputed items (the others score the same)
    await rescoreRun(bulkPool(url), { runId: a.runId, config: noEmptyPromise() });
    expect(await agreementFingerprint(now, db())).not.toBe(fRun);
    expect(await agreementFingerprint(ofBatch, db())).not.toBe(fBatch);
    expect(await agreementFingerprint(other, db())).toBe(fOther);
    // the next read under the batch is the report of the new entries, not the one before them
    const after = await loadAgreementReport(ofBatch, db());
    expect(after).not.toBe(before);
    expect(after).toEqual(await fresh(ofBatch));
    expect([before.headline.k, after.headline.k]).toEqual([1, 3]);
  });

  it("the page's read: while a slow report is rebuilt after a write, the one before it with its time; a fast one never", async () => {
    const { runId, lead, items } = await disputedRun(url, 2, { honest: 1 });
    const f = filter({ run: runId });
    // slowMs 0 treats this small report as slow, as 100,000 items are
    const first = await loadAgreementReportLatest(f, db(), 0);
    expect(first.asOf).toBeNull();
    expect(first.value).toEqual(await fresh(f));

    const t0 = Date.now();
    await recordAdjudication({ itemId: items[0], cause: "ambiguous", note: "" }, lead);
    const during = await loadAgreementReportLatest(f, db(), 0);
    expect(during.value).toBe(first.value);
    expect(during.asOf).not.toBeNull();
    expect(during.asOf!).toBeLessThanOrEqual(t0);
    // the new report was started by that read: the strict read joins it and has the adjudication
    const rebuilt = await loadAgreementReport(f, db());
    expect(rebuilt).not.toBe(first.value);
    expect(rebuilt).toEqual(await fresh(f));
    expect(rebuilt.causes.find((c) => c.cause === "ambiguous")!.count).toBe(
      first.value.causes.find((c) => c.cause === "ambiguous")!.count + 1,
    );
    expect(await loadAgreementReportLatest(f, db(), 0)).toEqual({ value: rebuilt, asOf: null });

    // at the default threshold this report is fast: the read after a write waits for the new one
    await recordAdjudication({ itemId: items[1], cause: "ambiguous", note: "" }, lead);
    const next = await loadAgreementReportLatest(f, db());
    expect(next.asOf).toBeNull();
    expect(next.value).not.toBe(rebuilt);
    expect(next.value).toEqual(await fresh(f));
  });
});
