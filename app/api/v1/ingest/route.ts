// POST /api/v1/ingest (token scope `ingest`): NDJSON cases, rollouts and score records, mixed, streamed. See
// lib/ingest/http.ts for the answer and docs in README ("Ingest").
import { authenticateApi } from "@/lib/auth/api.ts";
import { handleIngestRequest } from "@/lib/ingest/http.ts";
import { bulkPool } from "@/lib/ingest/pool.ts";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";
// A large body takes minutes; the handler itself never holds more than two batches.
export const maxDuration = 3600;

export async function POST(req: Request): Promise<Response> {
  const auth = await authenticateApi(req, "ingest");
  if (!auth.ok) return auth.response;
  return handleIngestRequest(req, bulkPool());
}
