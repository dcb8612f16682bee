// GET /api/v1/runs/{run}/gate?window_steps=N (token scope `read`): the run's audit gate (lib/gate/api.ts).
import { gateApiResponse } from "@/lib/gate/api.ts";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export async function GET(req: Request, ctx: { params: Promise<{ run: string }> }): Promise<Response> {
  // Next hands route handlers their params decoded (decoding again would fail on a run id with a "%").
  return gateApiResponse(req, (await ctx.params).run);
}
