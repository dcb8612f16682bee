// The data behind each chart of the run page, as a table (columns + rows keyed by step) that the chart draws and the
// CSV download writes, so the two can never disagree. Rates come from lib/rollups/stats.ts on (pooled) counters:
// per step, or pooled over a trailing window when smoothing. Pure; safe in client components.
import { GUARDRAIL_CODES } from "@/lib/verifier/codes.ts";
import { ratio, rewardStd, stepHealth } from "@/lib/rollups/stats.ts";
import type { StepRollupCounters } from "@/lib/rollups/data.ts";
import { smoothCounters } from "@/lib/monitors/buckets.ts";
import { trainedRewardMismatch } from "@/lib/stats/trained-reward.ts";
import type { AuditPoint } from "@/lib/monitors/audit.ts";
import type { CorrectedWindow } from "@/lib/monitors/corrected-curve.ts";
import type { ChartName } from "@/lib/monitors/schema.ts";
import { MIN_WINDOW_REVIEWS, MIN_WINDOW_SLOTS } from "@/lib/stats/alarm-presets.ts";

export type ColumnFormat = "percent" | "number" | "count";
export type Column = { key: string; label: string; format: ColumnFormat };
export type Row = { step: number } & Record<string, number | null>;
export type ChartTable = { columns: Column[]; rows: Row[] };

/** Guardrail codes in verifier.md table order, for stable colours and legend order. */
export const GUARDRAIL_ORDER = GUARDRAIL_CODES;

/** Codes that ever triggered in `rows`, in table order (unknown codes last, by name). */
export function codesIn(rows: readonly StepRollupCounters[]): string[] {
  const seen = new Set<string>();
  for (const r of rows) for (const [code, g] of Object.entries(r.guardrails)) if (g.hits > 0) seen.add(code);
  const rank = (c: string) => {
    const i = (GUARDRAIL_ORDER as readonly string[]).indexOf(c);
    return i < 0 ? GUARDRAIL_ORDER.length : i;
  };
  return [...seen].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : 1));
}

const guardrailKey = (code: string) => `g_${code}`;
const removedKey = (code: string) => `removed_${code}`;

/** Share of rollouts with any guardrail, and (per guardrail) share of rollouts it triggered on. */
export function hitRateTable(rows: readonly StepRollupCounters[]): ChartTable {
  const codes = codesIn(rows);
  return {
    columns: [
      { key: "rollouts", label: "rollouts", format: "count" },
      { key: "hitRate", label: "guardrail hit rate", format: "percent" },
      ...codes.map((c) => ({ key: guardrailKey(c), label: c, format: "percent" as const })),
    ],
    rows: rows.map((r) => {
      const row: Row = { step: r.step, rollouts: r.rollouts, hitRate: ratio(r.guardrailHits, r.rollouts) };
      for (const c of codes) row[guardrailKey(c)] = ratio(r.guardrails[c]?.hits ?? 0, r.rollouts);
      return row;
    }),
  };
}

export function handoffTable(rows: readonly StepRollupCounters[]): ChartTable {
  return {
    columns: [
      { key: "rollouts", label: "rollouts", format: "count" },
      { key: "handoffs", label: "hand-offs", format: "count" },
      { key: "handoffRate", label: "hand-off rate", format: "percent" },
    ],
    rows: rows.map((r) => ({
      step: r.step,
      rollouts: r.rollouts,
      handoffs: r.handoffs,
      handoffRate: ratio(r.handoffs, r.rollouts),
    })),
  };
}

/** Success (reward ≥ 0.9), mean reward ± 1 population std (from the moments), and two guardrails' hit rates. */
export function outcomesTable(rows: readonly StepRollupCounters[]): ChartTable {
  return {
    columns: [
      { key: "rewarded", label: "rollouts with a reward", format: "count" },
      { key: "successRate", label: "success (reward ≥ 0.9)", format: "percent" },
      { key: "meanReward", label: "mean reward", format: "number" },
      { key: "rewardStd", label: "reward std", format: "number" },
      { key: "rewardLow", label: "mean − std", format: "number" },
      { key: "rewardHigh", label: "mean + std", format: "number" },
      { key: "missingEvidenceRate", label: "missing evidence", format: "percent" },
      { key: "unauthorizedRate", label: "unauthorized write", format: "percent" },
    ],
    rows: rows.map((r) => {
      const h = stepHealth(r);
      const std = rewardStd(r);
      return {
        step: r.step,
        rewarded: r.rewarded,
        successRate: h.successRate,
        meanReward: h.meanReward,
        rewardStd: std,
        rewardLow: h.meanReward !== null && std !== null ? h.meanReward - std : null,
        rewardHigh: h.meanReward !== null && std !== null ? h.meanReward + std : null,
        missingEvidenceRate: ratio(r.guardrails.missing_evidence?.hits ?? 0, r.rollouts),
        unauthorizedRate: ratio(r.guardrails.unauthorized_write?.hits ?? 0, r.rollouts),
      };
    }),
  };
}

/** Mean within-group reward std over GRPO groups with ≥ 2 rewards, and the share of flat (no-gradient) groups. */
export function groupStdTable(rows: readonly StepRollupCounters[]): ChartTable {
  return {
    columns: [
      { key: "groups", label: "groups", format: "count" },
      { key: "meanGroupStd", label: "mean within-group std", format: "number" },
      { key: "flatGroupRate", label: "flat groups (no gradient)", format: "percent" },
    ],
    rows: rows.map((r) => ({
      step: r.step,
      groups: r.groups,
      meanGroupStd: ratio(r.groupStdSum, r.groups),
      flatGroupRate: ratio(r.flatGroups, r.groups),
    })),
  };
}

/**
 * Reward removed by caps per rollout (mean of raw − final over rollouts with a reward), split by the guardrail that
 * decided the cap: the parts stack to the total.
 */
export function removedTable(rows: readonly StepRollupCounters[]): ChartTable {
  const codes = codesIn(rows).filter((c) => rows.some((r) => (r.guardrails[c]?.removedSum ?? 0) > 0));
  return {
    columns: [
      { key: "rewarded", label: "rollouts with a reward", format: "count" },
      { key: "removed", label: "removed per rollout", format: "number" },
      ...codes.map((c) => ({ key: removedKey(c), label: c, format: "number" as const })),
    ],
    rows: rows.map((r) => {
      const row: Row = { step: r.step, rewarded: r.rewarded, removed: ratio(r.removedSum, r.rewarded) };
      for (const c of codes) row[removedKey(c)] = ratio(r.guardrails[c]?.removedSum ?? 0, r.rewarded);
      return row;
    }),
  };
}

/**
 * The trainer's reward against the ledger's (trainedRewardMismatch per point): how many entries carry both, the share
 * whose two rewards differ beyond 1e-6, and the mean |trained − reward|. A point without trained rewards has nulls.
 */
export function trainedRewardTable(rows: readonly StepRollupCounters[]): ChartTable {
  return {
    columns: [
      { key: "trained", label: "rollouts with a trained reward", format: "count" },
      { key: "mismatchShare", label: "trained reward differs", format: "percent" },
      { key: "meanAbsDiff", label: "mean |trained − ledger|", format: "number" },
    ],
    rows: rows.map((r) => {
      const m = trainedRewardMismatch([r]);
      return { step: r.step, trained: r.trained, mismatchShare: m?.share ?? null, meanAbsDiff: m?.meanAbsDiff ?? null };
    }),
  };
}

/** Shadow-audit windows: agreement, extraction accuracy and human-measured success, each with its Wilson interval. */
export function auditTable(points: readonly AuditPoint[]): ChartTable {
  const est = (p: AuditPoint, k: "agreement" | "extraction" | "humanSuccess") => [
    p[k]?.estimate ?? null,
    p[k]?.lower ?? null,
    p[k]?.upper ?? null,
  ];
  return {
    columns: [
      { key: "reviews", label: "reviews", format: "count" },
      { key: "agreement", label: "agreement", format: "percent" },
      { key: "agreementLow", label: "agreement 95% low", format: "percent" },
      { key: "agreementHigh", label: "agreement 95% high", format: "percent" },
      { key: "slots", label: "claim slots", format: "count" },
      { key: "extraction", label: "extraction accuracy", format: "percent" },
      { key: "extractionLow", label: "extraction 95% low", format: "percent" },
      { key: "extractionHigh", label: "extraction 95% high", format: "percent" },
      { key: "humanSuccess", label: "human success (reward ≥ 0.9)", format: "percent" },
      { key: "humanSuccessLow", label: "human success 95% low", format: "percent" },
      { key: "humanSuccessHigh", label: "human success 95% high", format: "percent" },
    ],
    rows: points.map((p) => {
      const [a, al, ah] = est(p, "agreement");
      const [x, xl, xh] = est(p, "extraction");
      const [s, sl, sh] = est(p, "humanSuccess");
      return {
        step: p.step,
        reviews: p.reviews,
        agreement: a,
        agreementLow: al,
        agreementHigh: ah,
        slots: p.slots,
        extraction: x,
        extractionLow: xl,
        extractionHigh: xh,
        humanSuccess: s,
        humanSuccessLow: sl,
        humanSuccessHigh: sh,
      };
    }),
  };
}

const REVIEW_FIGURES = [
  "agreement",
  "agreementLow",
  "agreementHigh",
  "humanSuccess",
  "humanSuccessLow",
  "humanSuccessHigh",
];
const SLOT_FIGURES = ["extraction", "extractionLow", "extractionHigh"];

/**
 * The audit table's rows as the chart plots them: a window with fewer than `min.reviews` reviews has no agreement or
 * human success, one with fewer than `min.slots` claim slots no extraction accuracy — gaps, not the 0% or 100% a
 * window of one review reads. The minimums are the alarms' (MIN_WINDOW_REVIEWS, MIN_WINDOW_SLOTS); the CSV keeps
 * every window's figures beside its counts. `runs`: how many runs the (merged) table holds.
 */
export function auditPlotRows(
  rows: readonly Row[],
  runs: number,
  min: { reviews: number; slots: number } = { reviews: MIN_WINDOW_REVIEWS, slots: MIN_WINDOW_SLOTS },
): Row[] {
  return rows.map((r) => {
    const out: Row = { ...r };
    for (let i = 0; i < runs; i++) {
      const blank = (keys: string[]) => keys.forEach((k) => (out[runKey(k, i)] = null));
      if ((r[runKey("reviews", i)] ?? 0) < min.reviews) blank(REVIEW_FIGURES);
      if ((r[runKey("slots", i)] ?? 0) < min.slots) blank(SLOT_FIGURES);
    }
    return out;
  });
}

/**
 * Per audit window: the ledger's success rate and mean reward beside the audit-corrected ones with their 95% bands
 * (lib/monitors/corrected-curve.ts). A window too thin to correct has empty corrected cells (its reason is on the page);
 * `pooled` is 1 where PPV/NPV came from a wider window.
 */
export function correctedTable(windows: readonly CorrectedWindow[]): ChartTable {
  return {
    columns: [
      { key: "rollouts", label: "rollouts", format: "count" },
      { key: "auditedItems", label: "audited rollouts", format: "count" },
      { key: "auditedTickets", label: "audited tickets", format: "count" },
      { key: "pooled", label: "pooled (1 = PPV/NPV from a wider window)", format: "count" },
      { key: "ledgerSuccess", label: "ledger success (reward ≥ 0.9)", format: "percent" },
      { key: "correctedSuccess", label: "corrected success", format: "percent" },
      { key: "correctedSuccessLow", label: "corrected success 95% low", format: "percent" },
      { key: "correctedSuccessHigh", label: "corrected success 95% high", format: "percent" },
      { key: "ledgerMeanReward", label: "ledger mean reward", format: "number" },
      { key: "correctedMeanReward", label: "corrected mean reward", format: "number" },
      { key: "correctedMeanRewardLow", label: "corrected mean reward 95% low", format: "number" },
      { key: "correctedMeanRewardHigh", label: "corrected mean reward 95% high", format: "number" },
    ],
    rows: windows.map((w) => ({
      step: w.stepFrom,
      rollouts: w.n,
      auditedItems: w.audited.items,
      auditedTickets: w.audited.tickets,
      pooled: w.pooled ? 1 : 0,
      ledgerSuccess: w.ledgerSuccess,
      correctedSuccess: w.corrected?.rate ?? null,
      correctedSuccessLow: w.corrected?.lo ?? null,
      correctedSuccessHigh: w.corrected?.hi ?? null,
      ledgerMeanReward: w.ledgerMeanReward,
      correctedMeanReward: w.meanReward?.corrected ?? null,
      correctedMeanRewardLow: w.meanReward?.lo ?? null,
      correctedMeanRewardHigh: w.meanReward?.hi ?? null,
    })),
  };
}

export type StepChart = "hit-rate" | "handoff" | "outcomes" | "group-std" | "removed" | "trained-reward";

const BUILDERS: Record<StepChart, (rows: readonly StepRollupCounters[]) => ChartTable> = {
  "hit-rate": hitRateTable,
  handoff: handoffTable,
  outcomes: outcomesTable,
  "group-std": groupStdTable,
  removed: removedTable,
  "trained-reward": trainedRewardTable,
};

/** One step chart's table from (bucketed) counters, smoothed over `smooth` points. */
export function stepChartTable(chart: StepChart, rows: readonly StepRollupCounters[], smooth = 1): ChartTable {
  return BUILDERS[chart](smoothCounters(rows, smooth));
}

/** Key of a column of run `i` (0 = the page's run, 1 = the overlaid one) in a merged table. */
export function runKey(key: string, i: number): string {
  return i === 0 ? key : `${key}__b`;
}

/**
 * Overlays two runs' tables on one step axis: columns of the second run get the suffix `__b` and its run id in the
 * label; a step present in only one run has nulls for the other's columns.
 */
export function mergeTables(a: ChartTable, b: ChartTable, ids: readonly [string, string]): ChartTable {
  const byStep = new Map<number, Row>();
  for (const [i, t] of [a, b].entries()) {
    for (const r of t.rows) {
      const row = byStep.get(r.step) ?? ({ step: r.step } as Row);
      for (const c of t.columns) row[runKey(c.key, i)] = r[c.key] ?? null;
      byStep.set(r.step, row);
    }
  }
  const columns = [a, b].flatMap((t, i) =>
    t.columns.map((c) => ({ ...c, key: runKey(c.key, i), label: `${ids[i]}: ${c.label}` })),
  );
  const rows = [...byStep.values()].sort((x, y) => x.step - y.step);
  for (const r of rows) for (const c of columns) if (!(c.key in r)) r[c.key] = null;
  return { columns, rows };
}

/** One chart's table: the first run alone, or both runs merged on the step axis (the page's run first). */
export function chartTable(
  data: {
    runs: readonly {
      id: string;
      rows: readonly StepRollupCounters[];
      audit: readonly AuditPoint[];
      corrected: readonly CorrectedWindow[];
    }[];
    smooth: number;
  },
  chart: ChartName,
): ChartTable {
  const tables = data.runs.map((r) =>
    chart === "audit"
      ? auditTable(r.audit)
      : chart === "corrected"
        ? correctedTable(r.corrected)
        : stepChartTable(chart, r.rows, data.smooth),
  );
  return tables.length === 2 ? mergeTables(tables[0], tables[1], [data.runs[0].id, data.runs[1].id]) : tables[0];
}
