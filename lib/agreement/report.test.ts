import { describe, expect, it } from "vitest";
import type { AgreementItem } from "@/lib/agreement/data.ts";
import { applyGuardrailFilter, buildAgreementReport, itemsForCell } from "@/lib/agreement/report.ts";
import { agreementFilterSchema } from "@/lib/agreement/schema.ts";

const f = agreementFilterSchema.parse({});
const subs = (v: number) => ({ outcome: v, policy: v, evidence: v, efficiency: v, communication: v });
let nextId = 1;

function item(ledger: number | null, human: number[], opts: { lg?: string[]; hg?: string[][]; cause?: string; p?: number; who?: string[] } = {}): AgreementItem {
  const id = BigInt(nextId++);
  return {
    item: {
      itemId: id, batchId: 1, runId: "r", step: 10, trajectoryId: `t${id}`, ticketId: `T${id}`, stratum: null,
      inclusionProb: opts.p ?? 0.01, reviewsNeeded: human.length, reviewsDone: human.length, disputedAt: null, tolerance: 0.1,
    },
    category: "refund_damaged",
    ledger: {
      ledgerId: id, status: ledger === null ? "spec_error" : "scored", source: "verifier", reward: ledger, rawReward: ledger,
      subscores: subs(ledger ?? 0), guardrails: (opts.lg ?? []) as never, decidingGuardrail: opts.lg?.[0] ?? null,
      claims: { claimed_writes: ["finance.issue_refund"], mentioned: [], forbidden_hits: [] }, claimsSource: "bundle", reasons: [], guardrailHits: [],
    },
    reviews: human.map((h, j) => ({
      reviewId: id * 10n + BigInt(j), reviewerId: j + 1, reviewerEmail: opts.who?.[j] ?? `a${j + 1}@x`, reward: h, subscores: subs(h),
      guardrails: opts.hg?.[j] ?? [], claims: { claimed_writes: j === 0 ? ["finance.issue_refund"] : [], mentioned: [], forbidden_hits: [] },
      note: "", secondsSpent: 30, createdAt: new Date("2026-11-20T10:00:00Z"),
    })),
    adjudication: opts.cause ? { cause: opts.cause, guardrail: opts.lg?.[0] ?? null } : null,
  };
}

describe("buildAgreementReport", () => {
  const items = [
    item(1, [1]), // agree, both success
    item(0.55, [0.6], { lg: ["missing_evidence"], hg: [["missing_evidence"]] }), // agree
    item(0.3, [0.9], { lg: ["unauthorized_write"], hg: [[]], cause: "verifier_rule_wrong" }), // disagree, ledger-only guardrail
    item(0.95, [0.2, 0.25], { hg: [["empty_promise"], ["empty_promise"]], cause: "extraction_wrong" }), // disagree, human-only; overlap
    item(null, [0.5]), // error record: not compared
  ];
  const r = buildAgreementReport(items, f);

  it("counts the primary review of each item with a ledger reward, never an item twice", () => {
    expect(r.items).toBe(5);
    expect(r.headline.k).toBe(2);
    expect(r.headline.n).toBe(4);
    expect(r.headline.tooFew).toBe(true);
    expect(r.headline.label).toBe("too few to say");
  });

  it("builds the verdict matrix with ledger rows and human columns", () => {
    // ledger success: items 1 (human 1 → success) and 4 (human 0.2 → not); ledger not: 2, 3 (human 0.9 → success)
    expect(r.verdict?.matrix).toEqual([
      [1, 1],
      [1, 1],
    ]);
  });

  it("tabulates each guardrail that fired on either side", () => {
    const byCode = Object.fromEntries(r.guardrails.map((g) => [g.code, g]));
    expect(Object.keys(byCode).sort()).toEqual(["empty_promise", "missing_evidence", "unauthorized_write"]);
    expect(byCode.missing_evidence).toMatchObject({ tp: 1, fp: 0, fn: 0, tn: 3 });
    expect(byCode.unauthorized_write).toMatchObject({ tp: 0, fp: 1, fn: 0 });
    expect(byCode.empty_promise).toMatchObject({ tp: 0, fp: 0, fn: 1, precision: null, recall: 0 });
  });

  it("uses overlap items for between-annotator alpha and tallies adjudication causes", () => {
    expect(r.interAnnotator.items).toBe(1);
    expect(r.causes.find((c) => c.cause === "verifier_rule_wrong")?.count).toBe(1);
    expect(r.causes.find((c) => c.cause === "extraction_wrong")?.count).toBe(1);
  });

  it("calibrates each annotator against the ledger over all their reviews", () => {
    const a1 = r.annotators.find((a) => a.email === "a1@x")!;
    expect(a1.n).toBe(4);
    expect(a1.agreement.k).toBe(2);
    expect(a1.adjudicatedDisagreements).toBe(2);
    expect(a1.upheld).toBe(1); // neither cause blamed the annotator
    expect(r.annotators.find((a) => a.email === "a2@x")!.n).toBe(1);
  });

  it("measures extraction: the ledger claims against the primary reviewer's claims", () => {
    expect(r.extraction.overall).toMatchObject({ correct: 4, n: 4 });
  });

  it("weights by inclusion probability only when the sample was stratified", () => {
    expect(r.weighted).toBeNull();
    const strat = buildAgreementReport([item(1, [1], { p: 0.5 }), item(0.2, [0.9], { p: 0.05 })], f);
    // Hájek: agree indicator 1 with weight 2, 0 with weight 20 → 2 / 22
    expect(strat.weighted?.estimate).toBeCloseTo(2 / 22, 12);
  });
});

describe("items behind a figure", () => {
  const items = [item(0.3, [0.9], { lg: ["unauthorized_write"], hg: [[]] }), item(0.55, [0.55], { lg: ["missing_evidence"], hg: [["missing_evidence"]] })];
  it("selects ledger-only firings of one guardrail", () => {
    const g = agreementFilterSchema.parse({ guardrail: "unauthorized_write" });
    expect(itemsForCell(items, g, "guardrail_ledger_only").map((i) => i.item.trajectoryId)).toEqual([items[0].item.trajectoryId]);
    expect(itemsForCell(items, g, "guardrail_both")).toEqual([]);
  });
  it("narrows the population to items where either side flagged the guardrail", () => {
    expect(applyGuardrailFilter(items, "missing_evidence")).toEqual([items[1]]);
    expect(itemsForCell(items, f, "disagree")).toEqual([items[0]]);
  });
});
