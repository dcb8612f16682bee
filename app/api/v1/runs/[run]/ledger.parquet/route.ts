// GET /api/v1/runs/{run}/ledger.parquet?from=&to=&guardrail= (token scope `read`): the run's current ledger as one
// Parquet file, one flat row per entry (docs/formats.md "Parquet export"), streamed row group by row group.
import { authenticateApi } from "@/lib/auth/api.ts";
import { readPool } from "@/lib/db/read-client.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import { exportParquetResponse } from "@/lib/ledger/parquet-export.ts";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export async function GET(req: Request, ctx: { params: Promise<{ run: string }> }): Promise<Response> {
  const auth = await authenticateApi(req, "read");
  if (!auth.ok) return auth.response;
  // Next hands route handlers their params decoded (decoding again would fail on a run id with a "%").
  const { run } = await ctx.params;
  return exportParquetResponse(run, new URL(req.url).searchParams, readPool() ?? bulkPool());
}
