// GET /api/v1/runs/{run}/ledger.parquet?from=&to=&guardrail= (token scope `read`): the run's current ledger as one
// Parquet file, one flat row per entry (docs/formats.md "Parquet export"), streamed row group by row group.
import { apiRoute, runParams } from "@/lib/api/route.ts";
import { exportParquetResponse } from "@/lib/ledger/parquet-export.ts";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export const GET = apiRoute({ auth: { token: "read" }, params: runParams }, ({ params, query, db }) =>
  exportParquetResponse(params.run, query, db.read()),
);
