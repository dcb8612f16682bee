// GET /clusters/export?run=&step_from=&step_to=&threshold=&c=<cluster key>: a cluster's data backlog as an NDJSON
// download, for signed-in users allowed to export (the console's twin of the token API's ?export=).
import { routeUser } from "@/lib/auth/route-user.ts";
import { runExists } from "@/lib/clusters/detail-data.ts";
import { backlogResponse } from "@/lib/clusters/export.ts";
import { parseKey } from "@/lib/clusters/keys.ts";
import { clusterWindowSchema, issues, toWindow } from "@/lib/clusters/schema.ts";

export const dynamic = "force-dynamic";

export async function GET(req: Request): Promise<Response> {
  const auth = await routeUser("export");
  if (!auth.ok) return auth.response;
  const search = new URL(req.url).searchParams;
  const key = parseKey(search.get("c") ?? "");
  search.delete("c");
  const parsed = clusterWindowSchema.safeParse(Object.fromEntries(search));
  if (!parsed.success || !key) {
    const message = [...(parsed.success ? [] : issues(parsed.error)), ...(key ? [] : ["c: is not a cluster key"])].join(
      "; ",
    );
    return Response.json({ error: { code: "bad_request", message } }, { status: 400 });
  }
  const w = toWindow(parsed.data);
  if (!(await runExists(w.runId)))
    return Response.json(
      { error: { code: "not_found", message: `There is no run ${JSON.stringify(w.runId)}.` } },
      { status: 404 },
    );
  return backlogResponse(w, key);
}
