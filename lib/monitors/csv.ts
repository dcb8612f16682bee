// A chart's table as CSV (RFC 4180): the exact numbers the chart draws, at full precision, one row per point.
// Pure.
import type { ChartTable } from "@/lib/monitors/series.ts";

function cell(v: string): string {
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

/**
 * Header `step[,step_to],<column labels…>`; a missing value is an empty cell. With `bucket` > 1 each row covers
 * steps [step, step + bucket − 1] and says so in step_to.
 */
export function tableToCsv(table: ChartTable, bucket = 1): string {
  const head = ["step", ...(bucket > 1 ? ["step_to"] : []), ...table.columns.map((c) => c.label)];
  const lines = [head.map(cell).join(",")];
  for (const r of table.rows) {
    const values = table.columns.map((c) => {
      const v = r[c.key];
      return v === null || v === undefined || !Number.isFinite(v) ? "" : String(v);
    });
    lines.push([String(r.step), ...(bucket > 1 ? [String(r.step + bucket - 1)] : []), ...values].map(cell).join(","));
  }
  return lines.join("\r\n") + "\r\n";
}

/** A safe download file name: `<run>-<chart>[-vs-<other>][-<from>-<to>].csv`. */
export function csvFileName(
  runId: string,
  chart: string,
  opts: { compare?: string; from?: number; to?: number } = {},
): string {
  const parts = [
    runId,
    chart,
    ...(opts.compare ? ["vs", opts.compare] : []),
    ...(opts.from !== undefined && opts.to !== undefined ? [`${opts.from}-${opts.to}`] : []),
  ];
  return `${parts.join("-").replace(/[^A-Za-z0-9._-]+/g, "_")}.csv`;
}
