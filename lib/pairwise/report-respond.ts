// The pairwise report as an HTTP response for a query string (shared by the console route and the token API).
import { loadPairReportItems } from "@/lib/pairwise/report-data.ts";
import { buildPairReport, pairReportJson } from "@/lib/pairwise/report.ts";
import { parsePairReportFilter } from "@/lib/pairwise/report-schema.ts";
import { apiError } from "@/lib/result.ts";

export async function pairReportResponse(url: string): Promise<Response> {
  const params: Record<string, string | string[]> = {};
  for (const [k, v] of new URL(url).searchParams) params[k] = k in params ? [String(params[k]), v] : v;
  const parsed = parsePairReportFilter(params);
  if (!parsed.ok) return apiError(400, "bad_filter", parsed.errors.join("; "));
  const data = await loadPairReportItems(parsed.filter);
  if (!data.ok) return apiError(data.status, data.status === 404 ? "not_found" : "bad_filter", data.error);
  const f = parsed.filter;
  const report = buildPairReport(data.items, {
    basis: f.basis ?? "reviewed",
    delta: data.scope.delta,
    window: f.window,
  });
  return Response.json(
    pairReportJson(report, { runId: data.scope.runId, batchId: data.scope.batch?.id ?? null }, data.truncated),
    {
      headers: { "cache-control": "no-store" },
    },
  );
}
