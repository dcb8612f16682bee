// The API of how a reward function holds up (docs/rewards.md, docs/leaderboard.md): start an injection probe or a retest of a version over
// a run's audited rollouts (202 at once; it goes on in the console's process, GET /api/v1/reward-runs/{id}), and
// read each run's latest probe and retest reports. Bodies are parsed by the route (rerunBodySchema).
import type pg from "pg";
import type { z } from "zod";
import { apiActor, type ApiPrincipal } from "@/lib/auth/api.ts";
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";
import { loadHoldsUp } from "@/lib/leaderboard/reruns.ts";
import { findVersion } from "@/lib/rewards/data.ts";
import { executeRewardRun, RewardRunRefused, startRewardRun } from "@/lib/rewards/runs.ts";
import type { rerunBodySchema } from "@/lib/rewards/schema.ts";
import { apiError } from "@/lib/result.ts";

export async function startRerunResponse(
  pool: pg.Pool,
  client: PrismaClient,
  name: string,
  body: z.infer<typeof rerunBodySchema>,
  principal: ApiPrincipal,
): Promise<Response> {
  const v = await findVersion(name, body.version, client);
  if (!v)
    return apiError(
      404,
      "not_found",
      `there is no reward function ${JSON.stringify(name)}${body.version ? ` v${body.version}` : ""}`,
    );
  try {
    const scope = { kind: "audited" as const, ...(body.sample ? { n: body.sample } : {}), salt: body.salt };
    const s = await startRewardRun(
      pool,
      { versionId: v.id, runId: body.run, scope, fresh: body.fresh, kind: body.kind },
      apiActor(principal),
    );
    void executeRewardRun(pool, s.id).catch(() => undefined);
    return Response.json(
      { reward_run: s.id, kind: body.kind, version: v.version, resumed: s.resumed, total: s.total },
      { status: 202 },
    );
  } catch (err) {
    if (err instanceof RewardRunRefused) return apiError(err.code === "conflict" ? 409 : 404, err.code, err.message);
    throw err;
  }
}

export async function holdsUpResponse(pool: pg.Pool, client: PrismaClient, name: string): Promise<Response> {
  if (!(await findVersion(name, undefined, client)))
    return apiError(404, "not_found", `there is no reward function ${JSON.stringify(name)}`);
  return Response.json({ name, runs: await loadHoldsUp(pool, name) });
}
