import { describe, expect, it } from "vitest";
import {
  bucketCounters,
  bucketWidth,
  bucketWidthFor,
  emptyCounters,
  poolCounters,
  smoothCounters,
  unionSteps,
} from "@/lib/monitors/buckets.ts";
import {
  auditPlotRows,
  chartTable,
  codesIn,
  correctedTable,
  handoffTable,
  hitRateTable,
  mergeTables,
  outcomesTable,
  removedTable,
  groupStdTable,
} from "@/lib/monitors/series.ts";
import type { StepRollupCounters } from "@/lib/rollups/data.ts";

function c(step: number, over: Partial<StepRollupCounters> = {}): StepRollupCounters {
  return { ...emptyCounters(step), ...over };
}

// Two hand-made steps: 10 and 30 rollouts.
const s0 = c(0, {
  rollouts: 10,
  rewarded: 8,
  rewardSum: 4,
  rewardSumsq: 2.5,
  success: 2,
  handoffs: 1,
  guardrailHits: 3,
  capped: 2,
  removedSum: 0.6,
  groups: 2,
  flatGroups: 1,
  groupStdSum: 0.3,
  guardrails: {
    missing_evidence: { hits: 2, deciding: 1, removedSum: 0.4 },
    unauthorized_write: { hits: 1, deciding: 1, removedSum: 0.2 },
  },
});
const s1 = c(10, {
  rollouts: 30,
  rewarded: 30,
  rewardSum: 24,
  rewardSumsq: 20,
  success: 15,
  handoffs: 6,
  guardrailHits: 3,
  capped: 1,
  removedSum: 0.5,
  groups: 6,
  flatGroups: 0,
  groupStdSum: 1.2,
  guardrails: {
    customer_harm: { hits: 1, deciding: 1, removedSum: 0.5 },
    missing_evidence: { hits: 2, deciding: 0, removedSum: 0 },
  },
});

describe("pooling counters", () => {
  it("sums every counter and guardrail, so a pooled rate is Σk/Σn", () => {
    const p = poolCounters([s0, s1], 0);
    expect(p).toMatchObject({
      step: 0,
      rollouts: 40,
      rewarded: 38,
      handoffs: 7,
      guardrailHits: 6,
      groups: 8,
      groupStdSum: 1.5,
    });
    expect(p.guardrails.missing_evidence).toEqual({ hits: 4, deciding: 1, removedSum: 0.4 });
    // pooled hand-off rate 7/40, not the mean of 10% and 20%
    expect(handoffTable([p]).rows[0].handoffRate).toBe(7 / 40);
    // the inputs are not mutated
    expect(s0.rollouts).toBe(10);
  });

  it("bucket width keeps a range within the point budget", () => {
    expect(bucketWidth([0, 1, 2], 3)).toBe(1);
    expect(bucketWidth([0, 1, 2, 3], 3)).toBe(2);
    expect(
      bucketWidth(
        Array.from({ length: 1001 }, (_, i) => i * 10),
        400,
      ),
    ).toBe(26); // span 10001 / 400
    expect(bucketWidth([], 3)).toBe(1);
    expect(bucketWidthFor(401, 0, 399_999, 400)).toBe(1000);
    expect(bucketWidthFor(400, 0, 399_999, 400)).toBe(1);
  });

  it("buckets on a grid from the origin, labelled by bucket start; width 1 is the identity", () => {
    const rows = [c(3, { rollouts: 1 }), c(4, { rollouts: 2 }), c(7, { rollouts: 4 }), c(12, { rollouts: 8 })];
    expect(bucketCounters(rows, 5, 2).map((r) => [r.step, r.rollouts])).toEqual([
      [2, 3],
      [7, 4],
      [12, 8],
    ]);
    expect(bucketCounters(rows, 1, 0).map((r) => [r.step, r.rollouts])).toEqual([
      [3, 1],
      [4, 2],
      [7, 4],
      [12, 8],
    ]);
  });

  it("smoothing pools a trailing window of points", () => {
    const rows = [
      c(0, { rollouts: 10, handoffs: 0 }),
      c(1, { rollouts: 10, handoffs: 10 }),
      c(2, { rollouts: 30, handoffs: 0 }),
    ];
    const t = handoffTable(smoothCounters(rows, 2));
    expect(t.rows.map((r) => r.handoffRate)).toEqual([0, 0.5, 10 / 40]);
    expect(smoothCounters(rows, 1)).toEqual(rows);
  });

  it("unionSteps merges the steps of two runs", () => {
    expect(unionSteps([{ step: 5 }, { step: 1 }], [{ step: 3 }, { step: 5 }])).toEqual([1, 3, 5]);
  });
});

describe("chart tables", () => {
  it("hit rate: overall and one column per triggered guardrail in verifier.md order", () => {
    expect(codesIn([s0, s1])).toEqual(["customer_harm", "unauthorized_write", "missing_evidence"]);
    const t = hitRateTable([s0, s1]);
    expect(t.columns.map((x) => x.key)).toEqual([
      "rollouts",
      "hitRate",
      "g_customer_harm",
      "g_unauthorized_write",
      "g_missing_evidence",
    ]);
    expect(t.rows[0]).toEqual({
      step: 0,
      rollouts: 10,
      hitRate: 0.3,
      g_customer_harm: 0,
      g_unauthorized_write: 0.1,
      g_missing_evidence: 0.2,
    });
    expect(t.rows[1].hitRate).toBe(0.1);
  });

  it("outcomes: success among rewarded, mean ± population std from the moments", () => {
    const r = outcomesTable([s0]).rows[0];
    // mean 0.5, E[r²] = 2.5/8 = 0.3125 → var 0.0625 → std 0.25
    expect(r).toMatchObject({
      rewarded: 8,
      successRate: 0.25,
      meanReward: 0.5,
      rewardStd: 0.25,
      rewardLow: 0.25,
      rewardHigh: 0.75,
      missingEvidenceRate: 0.2,
      unauthorizedRate: 0.1,
    });
  });

  it("group std: mean over groups with two or more rewards, and the flat share", () => {
    expect(groupStdTable([s0]).rows[0]).toEqual({ step: 0, groups: 2, meanGroupStd: 0.15, flatGroupRate: 0.5 });
    expect(groupStdTable([c(1)]).rows[0].meanGroupStd).toBeNull();
  });

  it("removed by caps: per guardrail parts per rewarded rollout stack to the total", () => {
    const t = removedTable([s0, s1]);
    expect(t.columns.map((x) => x.key)).toEqual([
      "rewarded",
      "removed",
      "removed_customer_harm",
      "removed_unauthorized_write",
      "removed_missing_evidence",
    ]);
    for (const r of t.rows) {
      const parts =
        (r.removed_customer_harm ?? 0) + (r.removed_unauthorized_write ?? 0) + (r.removed_missing_evidence ?? 0);
      expect(parts).toBeCloseTo(r.removed!, 12);
    }
    expect(t.rows[0].removed).toBeCloseTo(0.6 / 8, 12);
  });

  it("a step with no rollouts has no rates (null, not 0%)", () => {
    expect(hitRateTable([c(5)]).rows[0].hitRate).toBeNull();
    expect(outcomesTable([c(5)]).rows[0]).toMatchObject({ successRate: null, meanReward: null, rewardLow: null });
  });

  it("merging two runs suffixes the second run's columns and fills missing steps with null", () => {
    const a = handoffTable([s0]);
    const b = handoffTable([c(5, { rollouts: 4, handoffs: 1 })]);
    const m = mergeTables(a, b, ["A", "B"]);
    expect(m.columns.map((x) => [x.key, x.label])).toContainEqual(["handoffRate__b", "B: hand-off rate"]);
    expect(m.rows).toEqual([
      {
        step: 0,
        rollouts: 10,
        handoffs: 1,
        handoffRate: 0.1,
        rollouts__b: null,
        handoffs__b: null,
        handoffRate__b: null,
      },
      {
        step: 5,
        rollouts: null,
        handoffs: null,
        handoffRate: null,
        rollouts__b: 4,
        handoffs__b: 1,
        handoffRate__b: 0.25,
      },
    ]);
    const both = chartTable(
      {
        runs: [
          { id: "A", rows: [s0], audit: [], corrected: [] },
          { id: "B", rows: [s1], audit: [], corrected: [] },
        ],
        smooth: 1,
      },
      "handoff",
    );
    expect(both.rows.map((r) => r.step)).toEqual([0, 10]);
  });
});

describe("correctedTable", () => {
  const base = {
    stepTo: 499,
    n: 100,
    ledgerMeanReward: 0.8,
    audited: { items: 25, tickets: 25 },
    evidence: { stepFrom: 0, stepTo: 499, items: 25, tickets: 25 },
  };
  it("writes the ledger's and the corrected figures per window, and leaves a thin window's corrected cells empty", () => {
    const t = correctedTable([
      {
        ...base,
        stepFrom: 0,
        ledgerSuccess: 0.6,
        corrected: { rate: 0.4, lo: 0.3, hi: 0.5 },
        meanReward: { ledger: 0.8, corrected: 0.7, lo: 0.65, hi: 0.75 },
        pooled: false,
      },
      {
        ...base,
        stepFrom: 500,
        stepTo: 999,
        ledgerSuccess: 0.7,
        corrected: null,
        meanReward: null,
        pooled: true,
        thin: "2 audited rollouts, fewer than 20 (pooled over steps 0–2499)",
      },
    ]);
    expect(t.rows[0]).toMatchObject({
      step: 0,
      ledgerSuccess: 0.6,
      correctedSuccess: 0.4,
      correctedSuccessLow: 0.3,
      correctedSuccessHigh: 0.5,
      correctedMeanReward: 0.7,
      pooled: 0,
    });
    expect(t.rows[1]).toMatchObject({
      step: 500,
      ledgerSuccess: 0.7,
      correctedSuccess: null,
      correctedSuccessLow: null,
      correctedMeanReward: null,
      pooled: 1,
    });
    expect(t.columns.map((c) => c.key)).toContain("correctedSuccessHigh");
  });
});

describe("auditPlotRows", () => {
  const row = (step: number, reviews: number, slots: number, b?: { reviews: number; slots: number }) => ({
    step,
    reviews,
    agreement: reviews ? 1 : null,
    agreementLow: 0.2,
    agreementHigh: 1,
    humanSuccess: 0,
    humanSuccessLow: 0,
    humanSuccessHigh: 0.8,
    slots,
    extraction: 1,
    extractionLow: 0.5,
    extractionHigh: 1,
    ...(b ? { reviews__b: b.reviews, agreement__b: 0, slots__b: b.slots, extraction__b: 0.5 } : {}),
  });

  it("leaves a window of fewer than 5 reviews (30 claim slots) as a gap, not a 0% or 100% point; keeps the counts", () => {
    const [thin, slotsOnly, full] = auditPlotRows([row(0, 1, 4), row(500, 5, 29), row(1000, 5, 30)], 1);
    expect(thin).toMatchObject({
      step: 0,
      reviews: 1,
      slots: 4,
      agreement: null,
      agreementLow: null,
      humanSuccess: null,
    });
    expect(thin.extraction).toBeNull();
    expect(slotsOnly).toMatchObject({ agreement: 1, humanSuccess: 0, extraction: null, extractionHigh: null });
    expect(full).toEqual(row(1000, 5, 30));
  });

  it("judges each run of a comparison by its own counts", () => {
    const [r] = auditPlotRows([row(0, 6, 40, { reviews: 2, slots: 40 })], 2);
    expect(r).toMatchObject({ agreement: 1, extraction: 1, agreement__b: null, extraction__b: 0.5 });
  });
});
