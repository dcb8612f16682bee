// The reward API's answers (docs/rewards.md "API"): the same JSON as the CLI's --json, one error shape naming the
// field. The routes stay thin: auth in withApiAuth, everything else here.
import type pg from "pg";
import { z } from "zod";
import { apiActor, type ApiPrincipal } from "@/lib/auth/api.ts";
import { apiError } from "@/lib/result.ts";
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";
import { codeIssues } from "@/lib/rewards/code.ts";
import { findVersion, functionVersions, listRewardFunctions } from "@/lib/rewards/data.ts";
import { addRewardVersion } from "@/lib/rewards/mutations.ts";
import { listRewardRuns, rewardRun } from "@/lib/rewards/run-data.ts";
import { executeRewardRun, RewardRunRefused, startRewardRun } from "@/lib/rewards/runs.ts";
import {
  formatIssues,
  functionNameField,
  parseVersionDocument,
  reasonField,
  runScopeSchema,
} from "@/lib/rewards/schema.ts";
import { zodIssues } from "@/lib/verifier/schema.ts";

const invalid = (issues: { path: string; message: string }[]) => apiError(400, "invalid", formatIssues(issues));

async function body(req: Request): Promise<unknown | Response> {
  try {
    return await req.json();
  } catch {
    return apiError(400, "invalid", "the body is not JSON");
  }
}

export async function listFunctionsResponse(client: PrismaClient): Promise<Response> {
  return Response.json({ functions: await listRewardFunctions(client) });
}

export async function functionResponse(pool: pg.Pool, client: PrismaClient, name: string): Promise<Response> {
  const versions = await functionVersions(name, client);
  if (!versions) return apiError(404, "not_found", `there is no reward function ${JSON.stringify(name)}`);
  return Response.json({ name, versions, runs: await listRewardRuns(pool, { functionName: name, limit: 50 }) });
}

const addBody = z.object({ name: functionNameField, document: z.unknown(), reason: reasonField });

export async function addVersionResponse(
  client: PrismaClient,
  req: Request,
  principal: ApiPrincipal,
): Promise<Response> {
  const json = await body(req);
  if (json instanceof Response) return json;
  const b = addBody.safeParse(json);
  if (!b.success) return invalid(zodIssues(b.error));
  const doc = parseVersionDocument(b.data.document);
  if (!doc.ok) return invalid(doc.issues.map((i) => ({ ...i, path: `document${i.path ? `.${i.path}` : ""}` })));
  const code = await codeIssues(doc.doc);
  if (code.issues.length) return invalid(code.issues);
  const r = await addRewardVersion(
    { name: b.data.name, doc: doc.doc, reason: b.data.reason },
    apiActor(principal),
    client,
  );
  return Response.json(
    { status: r.status, ...r.version, warning: code.warning },
    { status: r.status === "created" ? 201 : 200 },
  );
}

const runBody = z.object({
  run: z.string().min(1),
  scope: runScopeSchema.default({ kind: "range" }),
  fresh: z.boolean().default(false),
  version: z.number().int().min(1).optional(),
});

/** Starts the run and answers 202 at once; it goes on in the console's process (GET /api/v1/reward-runs/{id}). */
export async function startRunResponse(
  pool: pg.Pool,
  client: PrismaClient,
  name: string,
  req: Request,
  principal: ApiPrincipal,
): Promise<Response> {
  const json = await body(req);
  if (json instanceof Response) return json;
  const b = runBody.safeParse(json);
  if (!b.success) return invalid(zodIssues(b.error));
  const v = await findVersion(name, b.data.version, client);
  if (!v) return apiError(404, "not_found", `there is no reward function ${JSON.stringify(name)}`);
  try {
    const s = await startRewardRun(
      pool,
      { versionId: v.id, runId: b.data.run, scope: b.data.scope, fresh: b.data.fresh },
      apiActor(principal),
    );
    void executeRewardRun(pool, s.id).catch(() => undefined);
    return Response.json({ reward_run: s.id, resumed: s.resumed, total: s.total }, { status: 202 });
  } catch (err) {
    if (err instanceof RewardRunRefused) return apiError(404, "not_found", err.message);
    throw err;
  }
}

export async function runProgressResponse(pool: pg.Pool, rawId: string): Promise<Response> {
  if (!/^[1-9]\d{0,8}$/.test(rawId)) return apiError(400, "invalid", "id: a reward run id");
  const r = await rewardRun(pool, Number(rawId));
  if (!r) return apiError(404, "not_found", `there is no reward run #${rawId}`);
  return Response.json(r);
}
