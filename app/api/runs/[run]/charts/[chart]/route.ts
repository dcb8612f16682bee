// The data behind one chart of the run page as CSV (signed-in console users with runs.read): the same table the chart
// draws, for the same step range, overlaid run and smoothing (?from=&to=&compare=&smooth=). A bad parameter is a 400
// naming it, an unknown chart a 404. Next hands route handlers their params decoded: the run id is used as it is.
import { apiRoute, type InputFailure, type PathParams } from "@/lib/api/route.ts";
import { loadChartCsv } from "@/lib/monitors/loaders.ts";
import { CHARTS, chartQueryMessages, parseChartQuery, type ChartName, type ChartQuery } from "@/lib/monitors/schema.ts";
import { apiError, type Result } from "@/lib/result.ts";

function parseChartParams(p: PathParams): Result<{ value: { run: string; chart: ChartName } }, InputFailure> {
  const chart = String(p.chart);
  if (!(CHARTS as readonly string[]).includes(chart))
    return {
      ok: false,
      status: 404,
      code: "not_found",
      error: `No chart ${JSON.stringify(chart)}; charts: ${CHARTS.join(", ")}.`,
    };
  return { ok: true, value: { run: String(p.run), chart: chart as ChartName } };
}

function parseCsvQuery(search: URLSearchParams): Result<{ value: ChartQuery }> {
  const parsed = parseChartQuery(search);
  return parsed.ok
    ? { ok: true, value: parsed.query }
    : { ok: false, error: `${chartQueryMessages(parsed.errors).join("; ")}.` };
}

export const GET = apiRoute(
  { auth: { session: "runs.read" }, params: parseChartParams, query: parseCsvQuery },
  async ({ params: { run, chart }, query }) => {
    const csv = await loadChartCsv(run, chart, query);
    if (!csv) return apiError(404, "not_found", `No run ${JSON.stringify(run)}.`);
    return new Response(csv.body, {
      headers: {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="${csv.name}"`,
        "cache-control": "no-store",
      },
    });
  },
);
