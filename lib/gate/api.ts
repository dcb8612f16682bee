// GET /api/v1/runs/{run}/gate (token scope read): the run's gate as JSON, the same document `verity gate --json`
// prints. Query: window_steps (the last N steps; default the run's reward-hacking window). The rules are the run's
// (its thresholds); without window_steps the verdict is the run's own and is stored, and a change posted to the
// webhook in the background.
import { apiError, authenticateApi } from "@/lib/auth/api.ts";
import { db, type Db } from "@/lib/db/client.ts";
import { loadGateReport } from "@/lib/gate/loaders.ts";
import { evaluateRunGate } from "@/lib/gate/refresh.ts";
import { gateQuerySchema, queryIssues } from "@/lib/gate/schema.ts";

export async function gateApiResponse(req: Request, runId: string, client: Db = db()): Promise<Response> {
  const auth = await authenticateApi(req, "read", new Date(), client);
  if (!auth.ok) return auth.response;
  const params = new URL(req.url).searchParams;
  const repeated = [...new Set(params.keys())].filter((k) => params.getAll(k).length > 1);
  if (repeated.length)
    return apiError(400, "bad_request", repeated.map((k) => `${k}: is given more than once; give it once`).join("; "));
  const parsed = gateQuerySchema.safeParse(Object.fromEntries(params));
  if (!parsed.success)
    return apiError(
      400,
      "bad_request",
      queryIssues(parsed.error)
        .map((i) => (i.path ? `${i.path}: ${i.message}` : i.message))
        .join("; "),
    );
  const windowSteps = parsed.data.window_steps;
  // The run's own gate (no window given) is stored, and a change posted, as after a write.
  const report =
    windowSteps === undefined
      ? (await evaluateRunGate(runId, { webhook: "background" }, client)).report
      : await loadGateReport(runId, { windowSteps }, client);
  if (!report) return apiError(404, "not_found", `There is no run ${JSON.stringify(runId)}.`);
  return Response.json(report, { headers: { "cache-control": "no-store" } });
}
