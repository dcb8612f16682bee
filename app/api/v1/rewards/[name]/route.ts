import { withApiAuth } from "@/lib/auth/api.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import { functionResponse } from "@/lib/rewards/respond.ts";

export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ name: string }> };

/** `GET /api/v1/rewards/{name}` (scope read): every version with its document, and the latest runs. */
export const GET = withApiAuth<Ctx>("read", async (_req, ctx) => functionResponse(bulkPool(), (await ctx.params).name));
