// GET /clusters/export?run=&step_from=&step_to=&threshold=&c=<cluster key>[&format=ndjson|parquet]: a cluster's data
// backlog as an NDJSON download, or its members as a Parquet file, for signed-in users allowed to export (the
// console's twin of the token API's ?export=).
import { routeUser } from "@/lib/auth/route-user.ts";
import { runExists } from "@/lib/clusters/detail-data.ts";
import { backlogParquetResponse, backlogResponse } from "@/lib/clusters/export.ts";
import { parseKey } from "@/lib/clusters/keys.ts";
import { clusterWindowSchema, issues, toWindow } from "@/lib/clusters/schema.ts";

export const dynamic = "force-dynamic";

export async function GET(req: Request): Promise<Response> {
  const auth = await routeUser("export");
  if (!auth.ok) return auth.response;
  const search = new URL(req.url).searchParams;
  const key = parseKey(search.get("c") ?? "");
  const format = search.get("format") ?? "ndjson";
  search.delete("c");
  search.delete("format");
  const parsed = clusterWindowSchema.safeParse(Object.fromEntries(search));
  const badFormat = format !== "ndjson" && format !== "parquet";
  if (!parsed.success || !key || badFormat) {
    const message = [
      ...(parsed.success ? [] : issues(parsed.error)),
      ...(key ? [] : ["c: is not a cluster key"]),
      ...(badFormat ? ["format: must be ndjson or parquet"] : []),
    ].join("; ");
    return Response.json({ error: { code: "bad_request", message } }, { status: 400 });
  }
  const w = toWindow(parsed.data);
  if (!(await runExists(w.runId)))
    return Response.json(
      { error: { code: "not_found", message: `There is no run ${JSON.stringify(w.runId)}.` } },
      { status: 404 },
    );
  return format === "parquet" ? backlogParquetResponse(w, key) : backlogResponse(w, key);
}
