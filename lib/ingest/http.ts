// POST /api/v1/ingest without Next: a web Request in, a JSON Response out. The route handler adds authentication
// and calls this; the benchmark serves it from a plain node:http server. The body is read as a stream, never
// buffered whole.
import type pg from "pg";
import { env } from "@/lib/env.ts";
import { bodyEncoding, gunzipChunks, InflateLimitError } from "@/lib/ingest/content-encoding.ts";
import { ingestStream } from "@/lib/ingest/ingest.ts";
import { ingestQuerySchema, type IngestSummary } from "@/lib/ingest/schema.ts";
import { apiError } from "@/lib/result.ts";
import { zodIssues } from "@/lib/verifier/schema.ts";
import type { ChangeListener } from "@/lib/ledger/store/changes.ts";

function json(status: number, body: unknown): Response {
  return Response.json(body, { status, headers: { "cache-control": "no-store" } });
}

/** A web ReadableStream as an async iterable (works whether or not the runtime's streams are iterable). */
export async function* readChunks(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      if (value) yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

/**
 * 200 with the summary when the whole body was read (rejected lines are part of a normal answer, including a line
 * the database refused); 400 for bad query parameters or no body; 503 with the summary when the database is
 * unavailable (its `last_committed_line` says how far it got; re-sending the body completes it); 500 with the
 * summary when the server failed otherwise; 400 with the summary when the body itself broke off (a gzip body that
 * does not decompress included); 413 with the summary, naming the limit, when a gzip body inflates past
 * `maxInflatedBytes` (VERITY_MAX_INFLATED_BYTES; the body is read no further); 415 for a Content-Encoding other than
 * gzip.
 */
export async function handleIngestRequest(
  req: Request,
  pool: pg.Pool,
  opts: {
    /** Runs once the body was read, before the answer: the route records the ingest in the activity log. */
    onDone?: (summary: IngestSummary, query: { run?: string }) => Promise<void>;
    maxInflatedBytes?: number;
    /** Told what the ingest changed (the route hands in the alarms and the gate: lib/server/after-write.ts). */
    after?: ChangeListener;
  } = {},
): Promise<Response> {
  const url = new URL(req.url);
  const query = ingestQuerySchema.safeParse(Object.fromEntries(url.searchParams));
  if (!query.success) {
    const issue = zodIssues(query.error)[0];
    return apiError(400, "bad_request", `${issue.path ? `${issue.path}: ` : ""}${issue.message}`);
  }
  if (!req.body) return apiError(400, "bad_request", "send NDJSON lines in the request body");
  const encoding = bodyEncoding(req.headers.get("content-encoding"));
  if (!encoding.ok) return apiError(415, "unsupported_encoding", encoding.message);
  const length = Number(req.headers.get("content-length"));
  let overLimit = false;
  async function* inflated(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
    try {
      yield* gunzipChunks(readChunks(body), opts.maxInflatedBytes ?? env().VERITY_MAX_INFLATED_BYTES);
    } catch (err) {
      overLimit = err instanceof InflateLimitError;
      throw err;
    }
  }
  const chunks = encoding.gzip ? inflated(req.body) : readChunks(req.body);
  const summary = await ingestStream(chunks, {
    pool,
    format: query.data.format,
    defaults: { run: query.data.run, step: query.data.step },
    batchLines: query.data.batch,
    // Content-Length counts compressed bytes; a gzip body cut short fails its own end-of-stream check instead.
    expectedBytes: !encoding.gzip && Number.isFinite(length) && length > 0 ? length : undefined,
    after: opts.after,
  });
  await opts.onDone?.(summary, { run: query.data.run });
  if (summary.ok) return json(200, summary);
  const status = overLimit ? 413 : { database: 503, server: 500, body: 400 }[summary.failed_at ?? "server"];
  return json(status, summary);
}
