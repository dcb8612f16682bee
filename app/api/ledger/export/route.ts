import { apiRoute, type InputFailure } from "@/lib/api/route.ts";
import { iterateLedger } from "@/lib/ledger/browse.ts";
import { parseBrowseQuery, type BrowseParams } from "@/lib/ledger/browse-schema.ts";
import { exportBrowseParquet } from "@/lib/ledger/browse-parquet-data.ts";
import { csvHeader, csvLine, ndjsonLine } from "@/lib/ledger/export-rows.ts";
import { parquetResponse } from "@/lib/ledger/parquet.ts";
import { streamedBody, utf8 } from "@/lib/ledger/stream-body.ts";
import { apiError, type Result } from "@/lib/result.ts";
import { SearchInputError, SearchTimeoutError } from "@/lib/search/data.ts";

export const dynamic = "force-dynamic";

const FORMATS = ["csv", "ndjson", "parquet"] as const;
type ExportQuery = { format: (typeof FORMATS)[number]; filter: BrowseParams };

/** The browser's filters and `format=csv|ndjson|parquet` (default csv). */
function parseExportQuery(search: URLSearchParams): Result<{ value: ExportQuery }, InputFailure> {
  const format = search.get("format") ?? "csv";
  if (!(FORMATS as readonly string[]).includes(format))
    return { ok: false, error: 'format: must be "csv", "ndjson" or "parquet"', field: "format" };
  const rest = new URLSearchParams(search);
  rest.delete("format");
  const filter = parseBrowseQuery(rest);
  return filter.ok ? { ok: true, value: { format: format as ExportQuery["format"], filter: filter.value } } : filter;
}

/** The trajectory browser's filtered set as a streamed CSV, NDJSON or Parquet download (`format=csv|ndjson|parquet`). */
export const GET = apiRoute(
  { auth: { session: "export" }, query: parseExportQuery, invalid: "bad_filter" },
  async ({ query: { format, filter } }) => {
    let body;
    try {
      if (format === "parquet")
        return await parquetResponse(exportBrowseParquet(filter), "verity-trajectories.parquet");
      body = await streamedBody(exportText(filter, format), utf8);
    } catch (err) {
      if (err instanceof SearchTimeoutError) return apiError(422, "search_timeout", err.message);
      if (err instanceof SearchInputError) return apiError(400, "bad_filter", err.message);
      throw err;
    }
    const name = `verity-trajectories.${format}`;
    return new Response(body, {
      headers: {
        "content-type": format === "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson; charset=utf-8",
        "content-disposition": `attachment; filename="${name}"`,
        "cache-control": "no-store",
      },
    });
  },
);

/** The download's text, batch by batch; a CSV's header goes with its first batch (or alone when none match). */
async function* exportText(params: BrowseParams, format: "csv" | "ndjson"): AsyncGenerator<string> {
  let header = format === "csv" ? csvHeader() : "";
  for await (const rows of iterateLedger(params)) {
    yield header + rows.map(format === "csv" ? csvLine : ndjsonLine).join("");
    header = "";
  }
  if (header) yield header;
}
