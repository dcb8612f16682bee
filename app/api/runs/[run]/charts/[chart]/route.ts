// The data behind one chart of the run page as CSV (signed-in console users with runs.read): the same table the chart
// draws, for the same step range, overlaid run and smoothing (?from=&to=&compare=&smooth=). A bad parameter is a 400
// naming it. Next hands route handlers their params decoded: the run id is used as it is.
import { apiError } from "@/lib/auth/api.ts";
import { routeUser } from "@/lib/auth/route-user.ts";
import { loadChartCsv } from "@/lib/monitors/loaders.ts";
import { CHARTS, chartQueryMessages, parseChartQuery, type ChartName } from "@/lib/monitors/schema.ts";

export async function GET(
  request: Request,
  { params }: { params: Promise<{ run: string; chart: string }> },
): Promise<Response> {
  const auth = await routeUser("runs.read");
  if (!auth.ok) return auth.response;
  const { run: runId, chart } = await params;
  if (!(CHARTS as readonly string[]).includes(chart))
    return apiError(404, "not_found", `No chart ${JSON.stringify(chart)}; charts: ${CHARTS.join(", ")}.`);
  const parsed = parseChartQuery(new URL(request.url).searchParams);
  if (!parsed.ok) return apiError(400, "bad_request", `${chartQueryMessages(parsed.errors).join("; ")}.`);
  const csv = await loadChartCsv(runId, chart as ChartName, parsed.query);
  if (!csv) return apiError(404, "not_found", `No run ${JSON.stringify(runId)}.`);
  return new Response(csv.body, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="${csv.name}"`,
      "cache-control": "no-store",
    },
  });
}
