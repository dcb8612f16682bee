// GET /api/v1/runs/{run}/ledger.ndjson?from=&to=&guardrail=&cases= (token scope `read`): the run's current ledger as
// NDJSON score records, streamed in keyset batches (the query is parsed by lib/ledger/export.ts).
import { apiRoute, runParams } from "@/lib/api/route.ts";
import { exportResponse } from "@/lib/ledger/export.ts";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export const GET = apiRoute({ auth: { token: "read" }, params: runParams }, ({ params, query, db }) =>
  exportResponse(params.run, query, db.read()),
);
