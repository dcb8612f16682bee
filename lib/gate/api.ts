// GET /api/v1/runs/{run}/gate (token scope read): the run's gate as JSON, the same document `verity gate --json`
// prints. Query: window_steps (the last N steps; default the run's reward-hacking window). The rules are the run's
// (its thresholds); without window_steps the verdict is the run's own and is stored, and a change posted to the
// webhook in the background.
import type { z } from "zod";
import type { Db } from "@/lib/db/client.ts";
import { apiRoute, runParams, type InputFailure } from "@/lib/api/route.ts";
import { loadGateReport } from "@/lib/gate/loaders.ts";
import { evaluateRunGate } from "@/lib/gate/refresh.ts";
import { gateQuerySchema, queryIssues } from "@/lib/gate/schema.ts";
import { apiError, type Result } from "@/lib/result.ts";

type GateQuery = z.infer<typeof gateQuerySchema>;

/** The query, each parameter once; the messages name the parameter ("window_steps: …"). */
function parseGateQuery(params: URLSearchParams): Result<{ value: GateQuery }, InputFailure> {
  const repeated = [...new Set(params.keys())].filter((k) => params.getAll(k).length > 1);
  if (repeated.length)
    return { ok: false, error: repeated.map((k) => `${k}: is given more than once; give it once`).join("; ") };
  const parsed = gateQuerySchema.safeParse(Object.fromEntries(params));
  if (parsed.success) return { ok: true, value: parsed.data };
  const issues = queryIssues(parsed.error);
  return {
    ok: false,
    error: issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; "),
    field: issues[0]?.path || undefined,
  };
}

/** The route handler; `client` is the database (tests hand in a scratch one). */
export function gateRoute(client?: Db) {
  return apiRoute(
    { auth: { token: "read", client }, params: runParams, query: parseGateQuery },
    async ({ params: { run: runId }, query: { window_steps: windowSteps } }) => {
      // The run's own gate (no window given) is stored, and a change posted, as after a write.
      const report =
        windowSteps === undefined
          ? (await evaluateRunGate(runId, { webhook: "background" }, client)).report
          : await loadGateReport(runId, { windowSteps }, client);
      if (!report) return apiError(404, "not_found", `There is no run ${JSON.stringify(runId)}.`);
      return Response.json(report, { headers: { "cache-control": "no-store" } });
    },
  );
}

/** The answer to one request for a run's gate. */
export function gateApiResponse(req: Request, runId: string, client?: Db): Promise<Response> {
  return gateRoute(client)(req, { params: Promise.resolve({ run: runId }) });
}
