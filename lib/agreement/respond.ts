import { loadAgreementReport } from "@/lib/agreement/cached.ts";
import { reportJson } from "@/lib/agreement/report.ts";
import { parseAgreementFilter } from "@/lib/agreement/schema.ts";
import { apiError } from "@/lib/result.ts";

/** The agreement report as an HTTP response for a query string (shared by the console route and the token API). */
export async function agreementResponse(url: string): Promise<Response> {
  const params = Object.fromEntries(new URL(url).searchParams);
  const parsed = parseAgreementFilter(params);
  if (!parsed.ok) return apiError(400, "bad_filter", parsed.errors.join("; "));
  const report = await loadAgreementReport(parsed.filter);
  return Response.json(reportJson(report), { headers: { "cache-control": "no-store" } });
}
