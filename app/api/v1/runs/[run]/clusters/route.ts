// GET /api/v1/runs/{run}/clusters?step_from=&step_to=&threshold=0.5&phrasings=1 (token scope `read`): the cluster
// report of a run's step window as JSON (lib/clusters/wire.ts). With `export=<cluster key>` the cluster's data
// backlog as NDJSON instead (lib/clusters/export.ts).
import { apiError, authenticateApi } from "@/lib/auth/api.ts";
import { runExists } from "@/lib/clusters/detail-data.ts";
import { backlogResponse } from "@/lib/clusters/export.ts";
import { parseKey } from "@/lib/clusters/keys.ts";
import { loadFullReport } from "@/lib/clusters/loaders.ts";
import { clusterApiSchema, issues, type ClusterWindow } from "@/lib/clusters/schema.ts";
import { reportToWire } from "@/lib/clusters/wire.ts";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export async function GET(req: Request, ctx: { params: Promise<{ run: string }> }): Promise<Response> {
  const auth = await authenticateApi(req, "read");
  if (!auth.ok) return auth.response;
  // Next hands route handlers their params decoded (decoding again would fail on a run id with a "%").
  const runId = (await ctx.params).run;
  const parsed = clusterApiSchema.safeParse(Object.fromEntries(new URL(req.url).searchParams));
  if (!parsed.success) return apiError(400, "bad_request", issues(parsed.error).join("; "));
  if (!(await runExists(runId))) return apiError(404, "not_found", `There is no run ${JSON.stringify(runId)}.`);
  const p = parsed.data;
  const w: ClusterWindow = { runId, from: p.step_from, to: p.step_to, threshold: p.threshold };
  if (p.export) return backlogResponse(w, parseKey(p.export)!);
  const full = await loadFullReport(w, { phrasings: p.phrasings === "1" });
  return Response.json(reportToWire(w, full), { headers: { "cache-control": "no-store" } });
}
