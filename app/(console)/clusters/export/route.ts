// GET /clusters/export?run=&step_from=&step_to=&threshold=&c=<cluster key>[&format=ndjson|parquet]: a cluster's data
// backlog as an NDJSON download, or its members as a Parquet file, for signed-in users allowed to export (the
// console's twin of the token API's ?export=).
import { apiRoute } from "@/lib/api/route.ts";
import { runExists } from "@/lib/clusters/detail-data.ts";
import { backlogParquetResponse, backlogResponse } from "@/lib/clusters/export.ts";
import { parseKey, type ClusterKey } from "@/lib/clusters/keys.ts";
import { clusterWindowSchema, toWindow, type ClusterWindow } from "@/lib/clusters/schema.ts";
import { apiError, fieldMessages, type Result } from "@/lib/result.ts";

export const dynamic = "force-dynamic";

type ExportQuery = { window: ClusterWindow; key: ClusterKey; format: "ndjson" | "parquet" };

/** The window, the cluster (`c`) and the format; every bad parameter named in one answer. */
function parseExportQuery(search: URLSearchParams): Result<{ value: ExportQuery }> {
  const rest = new URLSearchParams(search);
  const key = parseKey(rest.get("c") ?? "");
  const format = rest.get("format") ?? "ndjson";
  rest.delete("c");
  rest.delete("format");
  const parsed = clusterWindowSchema.safeParse(Object.fromEntries(rest));
  if (parsed.success && key && (format === "ndjson" || format === "parquet"))
    return { ok: true, value: { window: toWindow(parsed.data), key, format } };
  const messages = [
    ...(parsed.success ? [] : fieldMessages(parsed.error)),
    ...(key ? [] : ["c: is not a cluster key"]),
    ...(format === "ndjson" || format === "parquet" ? [] : ["format: must be ndjson or parquet"]),
  ];
  return { ok: false, error: messages.join("; ") };
}

export const GET = apiRoute(
  { auth: { session: "export" }, query: parseExportQuery },
  async ({ query: { window: w, key, format } }) => {
    if (!(await runExists(w.runId))) return apiError(404, "not_found", `There is no run ${JSON.stringify(w.runId)}.`);
    return format === "parquet" ? backlogParquetResponse(w, key) : backlogResponse(w, key);
  },
);
