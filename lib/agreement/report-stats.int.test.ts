import { rawClient } from "@/lib/db/raw-client.ts";
import { beforeAll, describe, expect, it } from "vitest";
import { itemsForCell } from "@/lib/agreement/cells.ts";
import { loadAgreementItems } from "@/lib/agreement/data.ts";
import { agreementResponse } from "@/lib/agreement/respond.ts";
import type { AgreementReport } from "@/lib/agreement/report.ts";
import { agreementFilterSchema, type AgreementCellSelection } from "@/lib/agreement/schema.ts";
import { seedAgreementAudit } from "@/lib/testing/agreement-data.ts";
import { agreementRate, dimensionAgreement, scoresAgree } from "@/lib/stats/agreement.ts";
import { extractionAccuracy, type Claims } from "@/lib/stats/extraction-accuracy.ts";
import { krippendorffAlpha } from "@/lib/stats/krippendorff.ts";
import { weightedAgreementRate } from "@/lib/stats/weighted.ts";
import { DIMENSIONS, GUARDRAIL_CODES } from "@/lib/verifier/codes.ts";

// A stratified batch reviewed by two annotators with overlap items and adjudications, through the real paths. The
// page's JSON (the API's code path) must equal the pure statistics applied to rows read back with plain SQL, and
// the items behind each figure must number the figure's n.
const url = process.env.DATABASE_URL!;

type Row = {
  item: string;
  p: number;
  email: string;
  h: number;
  l: number;
  hs: Record<string, number>;
  ls: Record<string, number>;
  hg: string[];
  mask: number;
  hc: Claims;
  lc: Claims | null;
  wt: string[];
  mk: string[];
  fc: string[];
  day: string;
  cause: string | null;
};

async function rowsBySql(batchId: number): Promise<Row[]> {
  const c = rawClient({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query<Row>(
      `select i.id::text as item, i.inclusion_prob as p, u.email, r.reward as h, l.reward as l,
              json_build_object('outcome', r.outcome, 'policy', r.policy, 'evidence', r.evidence, 'efficiency', r.efficiency, 'communication', r.communication) as hs,
              json_build_object('outcome', l.outcome, 'policy', l.policy, 'evidence', l.evidence, 'efficiency', l.efficiency, 'communication', l.communication) as ls,
              r.guardrails as hg, l.guardrail_mask as mask, r.claims as hc, l.claims as lc,
              (select coalesce(array_agg(t->>'name'), '{}') from rollouts ro join tool_registries tr on tr.id = ro.registry_id, jsonb_array_elements(tr.tools) t
                where ro.id = i.rollout_id and t->>'kind' = 'write') as wt,
              (select coalesce(array_agg(m->>'key'), '{}') from cases c, jsonb_array_elements(c.verifier_spec->'must_mention') m where c.ticket_id = i.ticket_id) as mk,
              (select coalesce(array_agg(x), '{}') from cases c, jsonb_array_elements_text(c.verifier_spec->'forbidden') x where c.ticket_id = i.ticket_id) as fc,
              to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD') as day,
              (select a.cause::text from adjudications a where a.item_id = i.id and not exists (select 1 from adjudications s where s.supersedes_id = a.id)) as cause
         from reviews r join audit_items i on i.id = r.item_id join ledger l on l.id = i.ledger_id join users u on u.id = r.reviewer_id
        where i.batch_id = $1 and l.reward is not null and not exists (select 1 from reviews s where s.supersedes_id = r.id)
        order by i.id, r.id`,
      [batchId],
    );
    return rows;
  } finally {
    await c.end();
  }
}

describe("agreement report of a stratified, doubly-reviewed, adjudicated batch", () => {
  let batchId: number;
  let rows: Row[];
  let primary: Row[];
  let report: AgreementReport;

  beforeAll(async () => {
    ({ batchId } = await seedAgreementAudit(url, "agreement-stats"));
    rows = await rowsBySql(batchId);
    primary = rows.filter((r, j) => j === 0 || rows[j - 1].item !== r.item);
    const res = await agreementResponse(`http://x/api/v1/agreement?batch=${batchId}`);
    expect(res.status).toBe(200);
    report = (await res.json()) as AgreementReport;
  });

  it("has the shape the test needs: overlap, unequal π, adjudications, several days", () => {
    expect(primary.length).toBeGreaterThanOrEqual(20);
    expect(rows.length).toBeGreaterThan(primary.length);
    expect(new Set(primary.map((r) => r.p)).size).toBeGreaterThan(1);
    expect(primary.some((r) => r.cause)).toBe(true);
    expect(new Set(primary.map((r) => r.day)).size).toBe(3);
    expect(report.stratified).toBe(true);
  });

  it("headline and weighted rate", () => {
    const direct = agreementRate(primary.map((r) => ({ human: r.h, ledger: r.l })))!;
    expect([report.headline.k, report.headline.n]).toEqual([direct.agreeing, direct.n]);
    const w = weightedAgreementRate(primary.map((r) => ({ human: r.h, ledger: r.l, inclusionProbability: r.p })))!;
    expect(report.weighted!.estimate).toBeCloseTo(w.estimate, 12);
    expect(report.weighted!.nEffective).toBeCloseTo(w.nEffective, 12);
    expect(report.weighted!.estimate).not.toBeCloseTo(direct.rate, 6);
  });

  it("α between annotators, for the reward and each flagged guardrail", () => {
    const byItem = new Map<string, Row[]>();
    for (const r of rows) byItem.set(r.item, [...(byItem.get(r.item) ?? []), r]);
    const overlap = [...byItem.values()].filter((rs) => new Set(rs.map((r) => r.email)).size > 1);
    expect(overlap.length).toBeGreaterThan(3);
    expect(report.interAnnotator.items).toBe(overlap.length);
    const alpha = krippendorffAlpha(
      overlap.map((rs) => rs.map((r) => r.h)),
      { metric: "interval" },
    )!.alpha;
    expect(report.interAnnotator.rewardAlpha).toBeCloseTo(alpha, 12);
    expect(alpha).toBeLessThan(1);
    const flagged = GUARDRAIL_CODES.filter((code) => overlap.some((rs) => rs.some((r) => r.hg.includes(code))));
    expect(report.interAnnotator.guardrails.map((g) => g.code)).toEqual(flagged);
    for (const g of report.interAnnotator.guardrails) {
      expect(g.alpha).toBeCloseTo(
        krippendorffAlpha(
          overlap.map((rs) => rs.map((r) => r.hg.includes(g.code))),
          { metric: "nominal" },
        )?.alpha ?? NaN,
        12,
      );
    }
  });

  it("per dimension", () => {
    const direct = dimensionAgreement(
      primary.map((r) => ({ ledger: r.ls, human: r.hs })),
      DIMENSIONS,
    );
    expect(report.dimensions.map((d) => [d.dimension, d.n])).toEqual(direct.map((d) => [d.dimension, d.n]));
    for (const [j, d] of report.dimensions.entries()) {
      expect(d.mae ?? NaN).toBeCloseTo(direct[j].mae ?? NaN, 12);
      if (direct[j].spearman === null) expect(d.spearman).toBeNull();
      else expect(d.spearman).toBeCloseTo(direct[j].spearman!, 12);
    }
  });

  it("extraction, overall and per slot", () => {
    // each item over its own case's slots: its registry's write tools, its spec's must-mention and forbidden codes
    const pairs = primary
      .filter((r) => r.lc)
      .map((r) => ({
        extracted: r.lc!,
        human: r.hc,
        slots: { writeTools: r.wt, mentionKeys: r.mk, forbiddenCodes: r.fc },
      }));
    expect(pairs.every((p) => p.slots.writeTools.length > 0)).toBe(true);
    const direct = extractionAccuracy(pairs);
    expect(report.extraction.overall).toMatchObject({ correct: direct.overall!.correct, n: direct.overall!.n });
    expect(report.extraction.slots.map((s) => [s.slot, s.correct, s.n])).toEqual(
      direct.slots.map((s) => [s.slot, s.correct, s.n]),
    );
    expect(direct.overall!.correct).toBeLessThan(direct.overall!.n);
  });

  it("trend by review day", () => {
    const days = new Map<string, { k: number; n: number }>();
    for (const r of primary) {
      const d = days.get(r.day) ?? { k: 0, n: 0 };
      d.n++;
      if (scoresAgree(r.h, r.l)) d.k++;
      days.set(r.day, d);
    }
    expect(report.trend.map((t) => [t.day, t.k, t.n])).toEqual(
      [...days.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([day, d]) => [day, d.k, d.n]),
    );
    expect(report.trend.every((t) => t.tooFew === t.n < 30)).toBe(true);
  });

  it("annotator calibration and causes", () => {
    const emails = [...new Set(rows.map((r) => r.email))].sort();
    expect(report.annotators.map((a) => a.email)).toEqual(emails);
    for (const a of report.annotators) {
      const mine = rows.filter((r) => r.email === a.email);
      const direct = agreementRate(mine.map((r) => ({ human: r.h, ledger: r.l })))!;
      expect([a.n, a.agreement.k]).toEqual([direct.n, direct.agreeing]);
      expect(a.adjudicatedDisagreements).toBe(mine.filter((r) => r.cause && !scoresAgree(r.h, r.l)).length);
      expect(a.annotatorWrong).toBe(mine.filter((r) => r.cause === "annotator_wrong" && !scoresAgree(r.h, r.l)).length);
    }
    for (const c of report.causes) expect(c.count).toBe(primary.filter((r) => r.cause === c.cause).length);
    expect(report.causes.reduce((s, c) => s + c.count, 0)).toBeGreaterThan(1);
  });

  it("lists as many items behind each figure as the figure's n", async () => {
    const f = agreementFilterSchema.parse({ batch: batchId });
    const items = await loadAgreementItems(f);
    const count = (sel: AgreementCellSelection) => itemsForCell(items, f, sel).length;
    const m = report.verdict!.matrix;
    expect([
      count({ cell: "verdict_both" }),
      count({ cell: "verdict_ledger_only" }),
      count({ cell: "verdict_human_only" }),
      count({ cell: "verdict_neither" }),
    ]).toEqual(m.flat());
    for (const d of report.dimensions) expect(count({ cell: "dimension", dimension: d.dimension })).toBe(d.n);
    for (const c of report.causes) expect(count({ cell: "cause", cause: c.cause })).toBe(c.count);
    for (const s of report.extraction.slots) {
      expect(count({ cell: "extraction_slot", slot: s.slot })).toBe(s.n);
      expect(count({ cell: "extraction_slot_wrong", slot: s.slot })).toBe(s.n - s.correct);
    }
    for (const a of report.annotators) {
      expect(count({ cell: "annotator", reviewer: a.email })).toBe(a.n);
      expect(count({ cell: "annotator_adjudicated", reviewer: a.email })).toBe(a.adjudicatedDisagreements);
    }
    for (const g of report.guardrails) {
      expect([
        count({ cell: "guardrail_both", code: g.code }),
        count({ cell: "guardrail_ledger_only", code: g.code }),
        count({ cell: "guardrail_human_only", code: g.code }),
      ]).toEqual([g.tp, g.fp, g.fn]);
    }
    expect(count({ cell: "overlap" })).toBe(report.interAnnotator.items);
    for (const t of report.trend) expect(count({ cell: "day", day: t.day })).toBe(t.n);
  });

  it("keeps the guardrail filter behind a guardrail row", async () => {
    const f = agreementFilterSchema.parse({ batch: batchId, guardrail: "empty_promise" });
    const items = await loadAgreementItems(f);
    const res = await agreementResponse(`http://x/api/v1/agreement?batch=${batchId}&guardrail=empty_promise`);
    const within = (await res.json()) as AgreementReport;
    for (const g of within.guardrails) {
      const listed = itemsForCell(items, f, { cell: "guardrail_both", code: g.code });
      expect(listed).toHaveLength(g.tp);
      for (const i of listed)
        expect(
          i.ledger.guardrails.includes("empty_promise") ||
            i.reviews.some((r) => r.guardrails.includes("empty_promise")),
        ).toBe(true);
    }
  });
});
