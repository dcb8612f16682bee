// POST /api/v1/ingest (token scope `ingest`): NDJSON cases, rollouts and score records, mixed, streamed. See
// lib/ingest/http.ts for the answer and docs in README ("Ingest"). Each request is recorded in the activity log under
// its token, with its counts.
import { apiRoute } from "@/lib/api/route.ts";
import { ingestCounts, recordLoad } from "@/lib/ingest/activity.ts";
import { handleIngestRequest } from "@/lib/ingest/http.ts";
import { afterWrite } from "@/lib/server/after-write.ts";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";
// A large body takes minutes; the handler itself never holds more than two batches.
export const maxDuration = 3600;

export const POST = apiRoute({ auth: { token: "ingest" } }, ({ req, caller: { tokenId, name }, db }) => {
  const pool = db.bulk();
  return handleIngestRequest(req, pool, {
    // The server lives on: alarm state changes are posted after the answer, never holding the client up.
    after: afterWrite(pool, { webhook: "background" }),
    onDone: (summary, query) =>
      recordLoad(pool, {
        actor: { tokenId, name },
        action: "ingest.api",
        run: query.run,
        stoppedAt: summary.failed_at,
        details: ingestCounts(summary),
      }),
  });
});
