import { withApiAuth } from "@/lib/auth/api.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import { startRunResponse } from "@/lib/rewards/respond.ts";

export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ name: string }> };

/** `POST /api/v1/rewards/{name}/runs` (scope ingest): `{run, scope?, fresh?, version?}`; 202 with the reward run's id. */
export const POST = withApiAuth<Ctx>("ingest", async (req, ctx, p) =>
  startRunResponse(bulkPool(), (await ctx.params).name, req, p),
);
