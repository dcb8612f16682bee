// GET /api/v1/runs/{run}/ledger.ndjson?from=&to=&guardrail=&cases= (token scope `read`): the run's current ledger as
// NDJSON score records, streamed in keyset batches.
import { authenticateApi } from "@/lib/auth/api.ts";
import { readPool } from "@/lib/db/read-client.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import { exportResponse } from "@/lib/ledger/export.ts";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export async function GET(req: Request, ctx: { params: Promise<{ run: string }> }): Promise<Response> {
  const auth = await authenticateApi(req, "read");
  if (!auth.ok) return auth.response;
  // Next hands route handlers their params decoded (decoding again would fail on a run id with a "%").
  const { run } = await ctx.params;
  return exportResponse(run, new URL(req.url).searchParams, readPool() ?? bulkPool());
}
