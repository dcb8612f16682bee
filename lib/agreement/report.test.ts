import { describe, expect, it } from "vitest";
import type { AgreementItem } from "@/lib/agreement/data.ts";
import { itemsForCell } from "@/lib/agreement/cells.ts";
import { applyGuardrailFilter } from "@/lib/agreement/pairs.ts";
import { buildAgreementReport } from "@/lib/agreement/report.ts";
import { agreementFilterSchema, filterQuery, parseAgreementCellQuery } from "@/lib/agreement/schema.ts";
import type { CaseSlots } from "@/lib/stats/extraction-accuracy.ts";

const f = agreementFilterSchema.parse({});
const subs = (v: number) => ({ outcome: v, policy: v, evidence: v, efficiency: v, communication: v });
let nextId = 1;

function item(
  ledger: number | null,
  human: number[],
  opts: { lg?: string[]; hg?: string[][]; cause?: string; p?: number; who?: string[]; slots?: CaseSlots } = {},
): AgreementItem {
  const id = BigInt(nextId++);
  return {
    slots: opts.slots ?? { writeTools: ["finance.issue_refund"] },
    item: {
      itemId: id,
      batchId: 1,
      runId: "r",
      step: 10,
      trajectoryId: `t${id}`,
      ticketId: `T${id}`,
      stratum: null,
      inclusionProb: opts.p ?? 0.01,
      reviewsNeeded: human.length,
      reviewsDone: human.length,
      disputedAt: null,
      tolerance: 0.1,
    },
    category: "refund_damaged",
    ledger: {
      ledgerId: id,
      status: ledger === null ? "spec_error" : "scored",
      source: "verifier",
      reward: ledger,
      rawReward: ledger,
      subscores: subs(ledger ?? 0),
      guardrails: (opts.lg ?? []) as never,
      decidingGuardrail: opts.lg?.[0] ?? null,
      claims: { claimed_writes: ["finance.issue_refund"], mentioned: [], forbidden_hits: [] },
      claimsSource: "bundle",
      reasons: [],
      guardrailHits: [],
    },
    reviews: human.map((h, j) => ({
      reviewId: id * 10n + BigInt(j),
      reviewerId: j + 1,
      reviewerEmail: opts.who?.[j] ?? `a${j + 1}@x`,
      reward: h,
      subscores: subs(h),
      guardrails: opts.hg?.[j] ?? [],
      claims: { claimed_writes: j === 0 ? ["finance.issue_refund"] : [], mentioned: [], forbidden_hits: [] },
      note: "",
      secondsSpent: 30,
      createdAt: new Date("2026-11-20T10:00:00Z"),
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

  it("compares each item on its own case's slots, so its count does not depend on what else is selected", () => {
    // A refund case shown with one must-mention key, an address case with another write tool and a forbidden
    // code: 2 slots and 3 slots. Over a shared universe each would have been compared on 4 slots.
    const refund = item(1, [1], { slots: { writeTools: ["finance.issue_refund"], mentionKeys: ["refund_amount"] } });
    const address = item(1, [1], {
      slots: { writeTools: ["finance.issue_refund", "crm.change_address"], forbiddenCodes: ["blame_customer"] },
    });
    const one = (xs: AgreementItem[]) => buildAgreementReport(xs, f).extraction.overall;
    expect(one([refund])).toMatchObject({ correct: 2, n: 2 });
    expect(one([address])).toMatchObject({ correct: 3, n: 3 });
    expect(one([refund, address])).toMatchObject({ correct: 5, n: 5 });
  });

  it("weights by inclusion probability only when the sample was stratified", () => {
    expect(r.weighted).toBeNull();
    const strat = buildAgreementReport([item(1, [1], { p: 0.5 }), item(0.2, [0.9], { p: 0.05 })], f);
    // Hájek: agree indicator 1 with weight 2, 0 with weight 20 → 2 / 22
    expect(strat.weighted?.estimate).toBeCloseTo(2 / 22, 12);
  });
});

describe("items behind a figure", () => {
  const items = [
    item(0.3, [0.9], { lg: ["unauthorized_write"], hg: [[]] }),
    item(0.55, [0.55], { lg: ["missing_evidence"], hg: [["missing_evidence"]] }),
  ];
  it("selects ledger-only firings of one guardrail", () => {
    const g = agreementFilterSchema.parse({ guardrail: "unauthorized_write" });
    expect(
      itemsForCell(items, g, { cell: "guardrail_ledger_only", code: "unauthorized_write" }).map(
        (i) => i.item.trajectoryId,
      ),
    ).toEqual([items[0].item.trajectoryId]);
    expect(itemsForCell(items, g, { cell: "guardrail_both", code: "unauthorized_write" })).toEqual([]);
  });
  it("narrows the population to items where either side flagged the guardrail", () => {
    expect(applyGuardrailFilter(items, "missing_evidence")).toEqual([items[1]]);
    expect(itemsForCell(items, f, { cell: "disagree" })).toEqual([items[0]]);
  });
});

describe("every figure's link lists exactly its items", () => {
  const items = [
    item(1, [1], { who: ["a@x"] }),
    item(0.55, [0.6], { lg: ["missing_evidence"], hg: [["missing_evidence", "empty_promise"]], who: ["b@x"] }),
    item(0.3, [0.9, 0.8], {
      lg: ["unauthorized_write"],
      hg: [[], ["unauthorized_write"]],
      cause: "verifier_rule_wrong",
      who: ["a@x", "b@x"],
    }),
    item(0.95, [0.2], { hg: [["empty_promise"]], cause: "annotator_wrong", who: ["a@x"] }),
    item(0.2, [0.1], { lg: ["empty_promise"], hg: [["empty_promise"]], who: ["b@x"] }),
    item(0.5, [0.5], { lg: ["missing_evidence"], who: ["c@x"] }),
  ];
  // the extractor missed the refund claim the annotator labelled on the last item
  items[4].ledger.claims = { claimed_writes: [], mentioned: [], forbidden_hits: [] };
  const r = buildAgreementReport(items, f);
  const count = (sel: Parameters<typeof itemsForCell>[2], filter = f) => itemsForCell(items, filter, sel).length;

  it("matrix cells, the diagonal included", () => {
    const m = r.verdict!.matrix;
    expect([
      count({ cell: "verdict_both" }),
      count({ cell: "verdict_ledger_only" }),
      count({ cell: "verdict_human_only" }),
      count({ cell: "verdict_neither" }),
    ]).toEqual([m[0][0], m[0][1], m[1][0], m[1][1]]);
    expect(m).toEqual([
      [1, 1],
      [1, 3],
    ]);
  });
  it("guardrail rows, dimensions, causes, slots, annotators, overlap and days", () => {
    for (const g of r.guardrails) {
      expect([
        count({ cell: "guardrail_both", code: g.code }),
        count({ cell: "guardrail_ledger_only", code: g.code }),
        count({ cell: "guardrail_human_only", code: g.code }),
      ]).toEqual([g.tp, g.fp, g.fn]);
    }
    for (const d of r.dimensions) expect(count({ cell: "dimension", dimension: d.dimension })).toBe(d.n);
    for (const c of r.causes) expect(count({ cell: "cause", cause: c.cause })).toBe(c.count);
    expect(r.extraction.slots.length).toBeGreaterThan(0);
    for (const s of r.extraction.slots) {
      expect(count({ cell: "extraction_slot", slot: s.slot })).toBe(s.n);
      expect(count({ cell: "extraction_slot_wrong", slot: s.slot })).toBe(s.n - s.correct);
    }
    expect(r.extraction.slots.find((s) => s.slot === "write:finance.issue_refund")).toMatchObject({ n: 6, correct: 5 });
    expect(itemsForCell(items, f, { cell: "extraction_slot_wrong", slot: "write:finance.issue_refund" })).toEqual([
      items[4],
    ]);
    for (const a of r.annotators) {
      expect(count({ cell: "annotator", reviewer: a.email })).toBe(a.n);
      expect(count({ cell: "annotator_adjudicated", reviewer: a.email })).toBe(a.adjudicatedDisagreements);
    }
    expect(r.annotators.map((a) => [a.email, a.n, a.adjudicatedDisagreements])).toEqual([
      ["a@x", 3, 2],
      ["b@x", 3, 1],
      ["c@x", 1, 0],
    ]);
    expect(count({ cell: "overlap" })).toBe(r.interAnnotator.items);
    for (const t of r.trend) expect(count({ cell: "day", day: t.day })).toBe(t.n);
  });
  it("keeps the guardrail filter: a row within guardrail=X lists only items of the X subset", () => {
    const x = agreementFilterSchema.parse({ guardrail: "empty_promise" });
    const rx = buildAgreementReport(items, x);
    const me = rx.guardrails.find((g) => g.code === "missing_evidence")!;
    expect([me.tp, me.fp]).toEqual([1, 0]);
    expect(count({ cell: "guardrail_ledger_only", code: "missing_evidence" }, x)).toBe(me.fp);
    // the last item fires missing_evidence outside the empty_promise subset: it counts only without the filter
    expect(count({ cell: "guardrail_ledger_only", code: "missing_evidence" })).toBe(1);
    const q = filterQuery(x, { cell: "guardrail_both", code: "missing_evidence" });
    expect(new URLSearchParams(q).get("guardrail")).toBe("empty_promise");
    expect(new URLSearchParams(q).get("code")).toBe("missing_evidence");
    const back = parseAgreementCellQuery(Object.fromEntries(new URLSearchParams(q)));
    expect(back).toEqual({ ok: true, filter: x, cell: { cell: "guardrail_both", code: "missing_evidence" } });
  });
});

describe("cell links are parsed with precise errors", () => {
  it("names the missing or stray parameter and a bad value", () => {
    expect(parseAgreementCellQuery({ cell: "dimension" })).toEqual({
      ok: false,
      errors: ["dimension: required by cell dimension"],
    });
    expect(parseAgreementCellQuery({ cell: "agree", code: "empty_promise" })).toEqual({
      ok: false,
      errors: ["code: not a parameter of cell agree"],
    });
    expect(parseAgreementCellQuery({ cell: "cause", cause: "bad" })).toMatchObject({
      ok: false,
      errors: ["cause: must be a disagreement cause"],
    });
    expect(parseAgreementCellQuery({ cell: "nope", colour: "red" })).toEqual({
      ok: false,
      errors: ["cell: not a figure of the agreement page", 'unknown filter "colour"'],
    });
    expect(parseAgreementCellQuery({})).toMatchObject({ ok: true, cell: { cell: "all" } });
  });
});

describe("small-sample guard on every figure", () => {
  const few = buildAgreementReport(
    [
      item(1, [1]),
      item(0.55, [0.6], { lg: ["missing_evidence"], hg: [["missing_evidence"]] }),
      item(0.3, [0.9], { lg: ["unauthorized_write"] }),
    ],
    f,
  );
  it("reads too few to say below 30 items, with n and the interval in the detail", () => {
    const figs = [
      few.headline,
      few.verdict?.figure,
      ...few.guardrails.flatMap((g) => Object.values(g.figures)),
      ...few.dimensions.flatMap((d) => Object.values(d.figures)),
      ...few.annotators.flatMap((a) => [a.agreement, a.maeFigure]),
      few.extraction.overallFigure,
      ...few.extraction.slots.map((s) => s.figure),
      ...few.trend,
    ].filter((x) => x !== undefined && x !== null);
    expect(figs.length).toBeGreaterThan(10);
    for (const x of figs) {
      expect(x.tooFew).toBe(true);
      expect(x.label).toMatch(/^(too few to say|not defined(: [a-z ]+)?)$/);
      expect(x.label).not.toMatch(/%|\d/);
    }
    expect(few.dimensions[0].figures.mae.detail).toMatch(/^n = 3 · 95% CI /);
    expect(few.guardrails.find((g) => g.code === "missing_evidence")!.figures.precision.detail).toMatch(
      /^1 of 1 · 95% CI/,
    );
  });
  it("a κ that is undefined reads 'not defined' with the reason, and has no interval", () => {
    // every ledger verdict and guardrail flag is the same ("not success", never fires) while the humans vary
    const flat = buildAgreementReport(
      Array.from({ length: 40 }, (_, j) => item(0.2, [j % 2 ? 1 : 0.2], { hg: [j % 2 ? [] : ["empty_promise"]] })),
      f,
    );
    expect(flat.verdict!.kappa).toBeNull();
    expect(flat.verdict!.figure).toMatchObject({
      value: null,
      label: "not defined: the ledger gives every item the same verdict",
      undefinedReason: "the ledger gives every item the same verdict",
      interval: null,
    });
    expect(flat.verdict!.interval).toBeNull();
    const ep = flat.guardrails.find((g) => g.code === "empty_promise")!;
    expect(ep.figures.kappa).toMatchObject({
      value: null,
      label: "not defined: the ledger gives every item the same flag",
      interval: null,
    });
    // the spread is on the human side only: ρ of the ledger's constant sub-scores is undefined too
    expect(flat.dimensions[0].figures.spearman.label).toBe(
      `not defined: the ledger gives every item the same ${flat.dimensions[0].dimension} score`,
    );
  });

  it("prints the figure at 30 items and more", () => {
    const many = buildAgreementReport(
      Array.from({ length: 30 }, (_, j) => item(j % 3 ? 1 : 0.2, [j % 5 ? 1 : 0.2])),
      f,
    );
    expect(many.headline.tooFew).toBe(false);
    expect(many.headline.label).toMatch(/^\d+%$/);
    expect(many.verdict!.figure.label).toBe(many.verdict!.kappa!.toFixed(3));
    expect(many.dimensions[0].figures.spearman.label).toBe(many.dimensions[0].spearman!.toFixed(3));
  });
});

describe("weighted figures on a stratified sample", () => {
  const items = [
    ...Array.from({ length: 20 }, () => item(1, [1], { p: 0.5 })),
    ...Array.from({ length: 10 }, () =>
      item(0.3, [0.3], { p: 0.05, lg: ["unauthorized_write"], hg: [["unauthorized_write"]] }),
    ),
    ...Array.from({ length: 10 }, () => item(0.3, [0.9], { p: 0.05, lg: ["unauthorized_write"], hg: [[]] })),
  ];
  const r = buildAgreementReport(items, f);
  it("weights the headline, the verdict κ and each guardrail's agreement and κ by 1/π", () => {
    expect(r.stratified).toBe(true);
    // agree: 20 items × 2 + 10 × 20 = 240 of 40 + 400 = 440
    expect(r.weighted!.estimate).toBeCloseTo(240 / 440, 12);
    const g = r.guardrails.find((x) => x.code === "unauthorized_write")!;
    expect(g.weighted!.agreement.value).toBeCloseTo(240 / 440, 12);
    // weighted table: tp 200, fp 200, fn 0, tn 40 → κ = 2(200·40 − 0) / (400·240 + 200·40)
    expect(g.weighted!.kappa.value).toBeCloseTo((2 * 200 * 40) / (400 * 240 + 200 * 40), 12);
    expect(g.figures.agreement.value).toBeCloseTo(30 / 40, 12);
    // n_eff = 440² / (20·4 + 20·400) = 23.96: below 30, so the weighted figure is guarded
    expect(r.weighted!.figure.tooFew).toBe(true);
    expect(r.weighted!.figure.detail).toContain("effective n ≈ 24.0");
    expect(r.verdict!.weightedKappa!.value).not.toBeNull();
  });
  it("shows no weighted figures when every π is the same", () => {
    const eq = buildAgreementReport(
      items.map((i) => ({ ...i, item: { ...i.item, inclusionProb: 0.2 } })),
      f,
    );
    expect(eq.stratified).toBe(false);
    expect(eq.weighted).toBeNull();
    expect(eq.guardrails.every((g) => g.weighted === null)).toBe(true);
    expect(eq.verdict!.weightedKappa).toBeNull();
  });
});

describe("coefficients where there is nothing to measure, perfect tables and rare classes", () => {
  const many = (n: number, ledger: number, human: number, opts: Parameters<typeof item>[2] = {}) =>
    Array.from({ length: n }, () => item(ledger, [human], opts));

  it("says 'not defined' for κ, AC1 and PABAK when both sides give every item the same verdict", () => {
    const r = buildAgreementReport(many(40, 1, 1), f);
    const v = r.verdict!;
    const reason = "the ledger and the human side give every item the same verdict: nothing to tell apart";
    expect([v.ac1.value, v.pabak.value]).toEqual([null, null]);
    expect(v.ac1.label).toBe(`not defined: ${reason}`);
    expect(v.pabak.interval).toBeNull();
    expect(v.figure.label).toMatch(/^not defined/);
    // the class both use agrees perfectly, with an interval; the other has no item
    expect(v.positiveAgreement.value).toBe(1);
    expect(v.positiveAgreement.interval!.lower).toBeLessThan(1);
    expect(v.negativeAgreement.value).toBeNull();
    expect(v.negativeAgreement.label).toBe("not defined: both sides pass every item");
  });

  it("gives a perfect table intervals that do not collapse", () => {
    const r = buildAgreementReport([...many(20, 1, 1), ...many(20, 0.2, 0.2)], f);
    const v = r.verdict!;
    for (const fig of [v.figure, v.ac1, v.pabak]) {
      expect(fig.value).toBe(1);
      // Wilson's lower bound for 40 of 40 is 40/(40 + 1.96²) = 0.91237; p_e = 0.5: (0.91237 − 0.5)/0.5
      expect(fig.interval!.lower).toBeCloseTo(0.82476, 5);
      expect(fig.interval!.upper).toBe(1);
    }
  });

  it("reads each class's own agreement at extreme prevalence, where AC1 hides a failing rare class", () => {
    // the ledger passes 3 items, the humans confirm 1 and pass 1 more; 60 failures agreed
    const r = buildAgreementReport(
      [...many(1, 1, 1), ...many(2, 1, 0.2), ...many(1, 0.2, 1), ...many(60, 0.2, 0.2)],
      f,
    );
    const v = r.verdict!;
    expect(v.read).toBe("specific");
    expect(v.ac1.value!).toBeGreaterThan(0.93);
    expect(v.positiveAgreement.value).toBeCloseTo(2 / 5, 12);
    expect(v.positiveAgreement.detail).toMatch(/^1 both, 3 one side only · 95% CI \d+%–\d+%$/);
    expect(v.negativeAgreement.value).toBeCloseTo(120 / 123, 12);
    expect(r.prevalenceNote).toMatch(/read the positive and negative agreement/);
  });

  it("inside a guardrail filter, that guardrail has no true negative: no κ, AC1, PABAK or negative agreement", () => {
    const items = [
      ...many(20, 0.5, 0.5, { lg: ["missing_evidence"], hg: [["missing_evidence"]] }),
      ...many(10, 0.5, 0.9, { lg: ["missing_evidence"], hg: [[]] }),
      ...many(30, 1, 1),
    ];
    const unfiltered = buildAgreementReport(items, f).guardrails.find((g) => g.code === "missing_evidence")!;
    expect(unfiltered.filteredOn).toBe(false);
    expect(unfiltered.figures.ac1.value).not.toBeNull();
    const filtered = agreementFilterSchema.parse({ guardrail: "missing_evidence" });
    const g = buildAgreementReport(items, filtered).guardrails.find((x) => x.code === "missing_evidence")!;
    expect(g.filteredOn).toBe(true);
    expect(g.tn).toBe(0);
    for (const fig of [g.figures.kappa, g.figures.ac1, g.figures.pabak, g.figures.negativeAgreement]) {
      expect(fig.value).toBeNull();
      expect(fig.undefinedReason).toMatch(/filtered on this guardrail.*none can be a true negative/);
    }
    expect(g.figures.precision.value).toBeCloseTo(20 / 30, 12);
    expect(g.figures.positiveAgreement.value).toBeCloseTo(40 / 50, 12);
  });

  it("says 'not defined' between annotators who give every overlap item the same verdict", () => {
    const r = buildAgreementReport(
      Array.from({ length: 5 }, () => item(1, [1, 1])),
      f,
    );
    expect(r.interAnnotator.verdict.ac1.label).toBe(
      "not defined: the annotators give every overlap item the same verdict: nothing to tell apart",
    );
  });
});
