// Page data of the run page (one run, or two overlaid), the CSV downloads and the Monitors page. The caller has
// resolved the user; these take explicit ids. Every chart read is O(steps in range) over the rollups.
import { primaryOf, readDb } from "@/lib/db/read-client.ts";
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";
import type { StepRollupCounters } from "@/lib/rollups/data.ts";
import { correctedCurve, type CorrectedWindow } from "@/lib/monitors/corrected-curve.ts";
import type { AuditPoint } from "@/lib/monitors/audit.ts";
import { listAuditPoints, pointsInRange } from "@/lib/monitors/audit-data.ts";
import { bucketWidthFor, MAX_POINTS } from "@/lib/monitors/buckets.ts";
import { tableToCsv, csvFileName } from "@/lib/monitors/csv.ts";
import { countSteps, getRunThresholds, listBucketedRollups, listOverview } from "@/lib/monitors/data.ts";
import { listScoreChangeMarks, type ScoreChangeMark } from "@/lib/monitors/score-change-data.ts";
import { chartTable } from "@/lib/monitors/series.ts";
import { resolveThresholds, type ChartName, type ChartQuery, type Thresholds } from "@/lib/monitors/schema.ts";

const MAX_STEP = 2147483647;

export type RunSeries = { id: string; rows: StepRollupCounters[]; audit: AuditPoint[]; corrected: CorrectedWindow[] };
/** The full run at a glance, for the zoom brush: hit rate and hand-off rate per (bucketed) step. */
export type OverviewPoint = { step: number; stepTo: number; hitRate: number | null; handoffRate: number | null };

export type ChartData = {
  /** The page's run first, then the overlaid one. */
  runs: RunSeries[];
  thresholds: Thresholds;
  thresholdsInvalid: boolean;
  /** The steps shown (the zoom), and the whole run's extent. */
  range: { from: number; to: number };
  extent: { first: number; last: number };
  /** Steps per point: 1, or more when the range holds more steps than MAX_POINTS. */
  bucket: number;
  overview: OverviewPoint[];
  smooth: number;
  /** The overlaid run asked for but unknown (shown as a notice). */
  missingCompare: string | null;
  /** The page run's spec and config fixes that changed scores in the range: the charts' reference marks. */
  marks: ScoreChangeMark[];
};

export type LoadResult =
  | { state: "not_found" }
  | { state: "empty"; run: { id: string; description: string } }
  | { state: "ok"; run: { id: string; description: string }; data: ChartData };

/**
 * The charts' data for a run (and, with `query.compare`, a second run on the same step axis and buckets). The range
 * defaults to the whole run; a range outside the run is clamped to it. Reads: the runs, their step extents, the
 * bucketed rollups of the range, the whole-run overview and the (memoised) audit points — O(points), not O(rows).
 */
export async function loadRunCharts(
  runId: string,
  query: ChartQuery,
  client: PrismaClient = readDb(),
  maxPoints = MAX_POINTS,
): Promise<LoadResult> {
  // The thresholds come from the primary: the page a lead sees right after saving them shows what was saved.
  const [run, compareRun] = await Promise.all([
    getRunThresholds(runId, primaryOf(client)),
    query.compare && query.compare !== runId ? getRunThresholds(query.compare, primaryOf(client)) : null,
  ]);
  if (!run) return { state: "not_found" };
  const head = { id: run.id, description: run.description };
  const ids = compareRun ? [runId, compareRun.id] : [runId];
  const whole = await countSteps(ids, { from: 0, to: MAX_STEP }, client);
  if (whole.first === null || whole.last === null) return { state: "empty", run: head };
  const extent = { first: whole.first, last: whole.last };
  const from = Math.max(extent.first, Math.min(query.from ?? extent.first, extent.last));
  const to = Math.min(extent.last, Math.max(query.to ?? extent.last, from));
  const range = { from, to };
  const { thresholds, invalid } = resolveThresholds(run.thresholds);

  const inRange = from === extent.first && to === extent.last ? whole : await countSteps(ids, range, client);
  const bucket = bucketWidthFor(inRange.count, inRange.first ?? from, inRange.last ?? to, maxPoints);
  const [rows, audit, corrected, overview, marks] = await Promise.all([
    Promise.all(ids.map((id) => listBucketedRollups(id, range, bucket, from, client))),
    Promise.all(ids.map((id) => listAuditPoints(id, thresholds.auditWindow, client))),
    // On the page run's audit windows, for both runs, so the two curves share one step grid.
    Promise.all(ids.map((id) => correctedCurve(client, id, { windowSteps: thresholds.auditWindow }))),
    listOverview(runId, maxPoints, client),
    listScoreChangeMarks(runId, range, client),
  ]);
  return {
    state: "ok",
    run: head,
    data: {
      runs: ids.map((id, i) => ({
        id,
        rows: rows[i],
        audit: pointsInRange(audit[i], range),
        corrected: (corrected[i]?.windows ?? []).filter((w) => w.stepTo >= range.from && w.stepFrom <= range.to),
      })),
      thresholds,
      thresholdsInvalid: invalid,
      range,
      extent,
      bucket,
      overview,
      smooth: query.smooth ?? 1,
      missingCompare: query.compare && !compareRun && query.compare !== runId ? query.compare : null,
      marks,
    },
  };
}

/** A chart's CSV download: file name and body, or null for an unknown run. */
export async function loadChartCsv(
  runId: string,
  chart: ChartName,
  query: ChartQuery,
  client: PrismaClient = readDb(),
): Promise<{ name: string; body: string } | null> {
  const r = await loadRunCharts(runId, query, client);
  if (r.state === "not_found") return null;
  if (r.state === "empty") return { name: csvFileName(runId, chart), body: tableToCsv({ columns: [], rows: [] }) };
  const d = r.data;
  const bucket = chart === "audit" || chart === "corrected" ? d.thresholds.auditWindow : d.bucket;
  const compare = d.runs[1]?.id;
  const zoomed = d.range.from !== d.extent.first || d.range.to !== d.extent.last;
  return {
    name: csvFileName(runId, chart, { compare, ...(zoomed ? d.range : {}) }),
    body: tableToCsv(chartTable(d, chart), bucket),
  };
}
