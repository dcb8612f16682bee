// GET /api/v1/runs/{run}/clusters?step_from=&step_to=&threshold=0.5&phrasings=1 (token scope `read`): the cluster
// report of a run's step window as JSON (lib/clusters/wire.ts). With `export=<cluster key>` the cluster's data
// backlog as NDJSON instead (lib/clusters/export.ts).
import { apiRoute, runParams } from "@/lib/api/route.ts";
import { runExists } from "@/lib/clusters/detail-data.ts";
import { backlogResponse } from "@/lib/clusters/export.ts";
import { parseKey } from "@/lib/clusters/keys.ts";
import { loadFullReport } from "@/lib/clusters/loaders.ts";
import { clusterApiSchema, type ClusterWindow } from "@/lib/clusters/schema.ts";
import { reportToWire } from "@/lib/clusters/wire.ts";
import { apiError } from "@/lib/result.ts";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export const GET = apiRoute(
  { auth: { token: "read" }, params: runParams, query: clusterApiSchema },
  async ({ params: { run: runId }, query: p }) => {
    if (!(await runExists(runId))) return apiError(404, "not_found", `There is no run ${JSON.stringify(runId)}.`);
    const w: ClusterWindow = { runId, from: p.step_from, to: p.step_to, threshold: p.threshold };
    if (p.export) return backlogResponse(w, parseKey(p.export)!);
    const full = await loadFullReport(w, { phrasings: p.phrasings === "1" });
    return Response.json(reportToWire(w, full), { headers: { "cache-control": "no-store" } });
  },
);
