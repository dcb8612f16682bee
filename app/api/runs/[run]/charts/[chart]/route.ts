// The data behind one chart of the run page as CSV (signed-in console users with runs.read): the same table the chart
// draws, for the same step range, overlaid run and smoothing (?from=&to=&compare=&smooth=).
import { routeUser } from "@/lib/auth/route-user.ts";
import { loadChartCsv } from "@/lib/monitors/loaders.ts";
import { CHARTS, chartQuerySchema, queryRecord, type ChartName } from "@/lib/monitors/schema.ts";

export async function GET(
  request: Request,
  { params }: { params: Promise<{ run: string; chart: string }> },
): Promise<Response> {
  const auth = await routeUser("runs.read");
  if (!auth.ok) return auth.response;
  const { run, chart } = await params;
  if (!(CHARTS as readonly string[]).includes(chart)) {
    return Response.json(
      { error: { code: "not_found", message: `No chart ${chart}; charts: ${CHARTS.join(", ")}.` } },
      { status: 404 },
    );
  }
  const runId = decodeURIComponent(run);
  const query = chartQuerySchema.parse(queryRecord(new URL(request.url).searchParams));
  const csv = await loadChartCsv(runId, chart as ChartName, query);
  if (!csv) return Response.json({ error: { code: "not_found", message: `No run ${runId}.` } }, { status: 404 });
  return new Response(csv.body, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="${csv.name}"`,
      "cache-control": "no-store",
    },
  });
}
