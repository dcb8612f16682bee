import { withApiAuth } from "@/lib/auth/api.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import { runProgressResponse } from "@/lib/rewards/respond.ts";

export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ id: string }> };

/** `GET /api/v1/reward-runs/{id}` (scope read): the run's progress (done, total, rate, ETA, status). */
export const GET = withApiAuth<Ctx>("read", async (_req, ctx) =>
  runProgressResponse(bulkPool(), (await ctx.params).id),
);
