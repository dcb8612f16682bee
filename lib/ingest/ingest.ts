// The one ingest entry point behind the API, the CLI, the demo loader and the benchmark. A stream of NDJSON bytes
// (or of values) goes through: split into lines -> prepare each line as it arrives (parse, validate, hash; CPU in
// Node) -> batches of N lines (score, cases) -> write (one transaction per batch; PostgreSQL). Batch n+1 is read and
// prepared while batch n is written, and at most one batch is in flight, so memory is bounded by two batches
// whatever the body size.
import type pg from "pg";
import { classifyDatabaseError, describeDatabaseError } from "@/lib/db/describe-error.ts";
import { HeapBound } from "@/lib/ingest/memory.ts";
import { splitLineChunks } from "@/lib/ingest/ndjson.ts";
import { checkout } from "@/lib/db/pool.ts";
import type { LineMapper, PlatformDefaults } from "@/lib/ingest/platform.ts";
import { Preparer, type RawLine } from "@/lib/ingest/prepare.ts";
import {
  DEFAULT_BATCH_LINES,
  emptySummary,
  MAX_LISTED_REJECTS,
  type IngestFormat,
  type IngestSummary,
  type RejectedLine,
} from "@/lib/ingest/schema.ts";
import {
  BatchDataError,
  newWriteContext,
  writeIngestBatch,
  type LineOutcome,
  type PreparedLine,
} from "@/lib/ledger/store/write-batch.ts";
import type { ChangeListener } from "@/lib/ledger/store/changes.ts";
import { DEFAULT_CONFIG, type VerifierConfig } from "@/lib/verifier/config.ts";

export type IngestProgress = {
  lines: number;
  bytes: number;
  committedLine: number;
  accepted: number;
  unchanged: number;
  rejected: number;
};

export type IngestOptions = {
  pool: pg.Pool;
  format?: IngestFormat;
  /** Identity defaults for `format: "platform"` (--run, --step). */
  defaults?: PlatformDefaults;
  /** Maps each line of a foreign format to a rollout, its score record and a minimal case (`verity import`). */
  mapper?: LineMapper;
  /** Config the verifier scores rollouts with on the way in (default: DEFAULT_CONFIG). */
  config?: VerifierConfig;
  batchLines?: number;
  /** Called after each committed batch. */
  onProgress?: (p: IngestProgress) => void;
  /** Called for every rejected line, in order, with the line as received (for --rejects). */
  onReject?: (r: RejectedLine & { text: string | null }) => void | Promise<void>;
  /** Content-Length of the body when known: a body that ends short is reported, not taken as complete. */
  expectedBytes?: number;
  /** Heap growth (MB) tolerated before a full collection between batches (see memory.ts); 0 turns it off. */
  heapHeadroomMb?: number;
  /** Told the runs each committed batch changed, and settled when the ingest is over (the caller's follow-up:
   * alarms, the gate; lib/server/after-write.ts). None by default. */
  after?: ChangeListener;
};

type Line = RawLine;

// Every 4 lines (about 0.25 ms of work): each statement of the batch being written waits for the next yield before
// its successor is sent, and at 16 lines that wait added about 5% to a large ingest.
const YIELD_EVERY = 4;
const VALUES_PER_CHUNK = 64;
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Ingests an NDJSON byte stream (a request body, a file, stdin). Never throws for bad input or a lost database:
 * the summary says what was committed (`last_committed_line`) and, when it stopped early, why (`ok: false`). */
export async function ingestStream(
  source: AsyncIterable<Uint8Array | string>,
  opts: IngestOptions,
): Promise<IngestSummary> {
  let total = 0;
  async function* counted(): AsyncGenerator<Uint8Array | string> {
    for await (const chunk of source) {
      total += typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.byteLength;
      yield chunk;
    }
  }
  const lines: AsyncIterable<Line[]> = splitLineChunks(counted());
  const summary = await ingestLines(lines, opts, () => total);
  if (summary.ok && opts.expectedBytes !== undefined && total < opts.expectedBytes) {
    summary.ok = false;
    summary.failed_at = "body";
    summary.error = `stopped: the body ended after ${total} of ${opts.expectedBytes} bytes (Content-Length): was it cut short by a proxy? Every line up to ${summary.last_committed_line} is committed.`;
  }
  return summary;
}

/** Ingests already-built wire objects (the demo generator): the same validation, scoring and writes. */
export async function ingestValues(
  values: Iterable<unknown> | AsyncIterable<unknown>,
  opts: IngestOptions,
): Promise<IngestSummary> {
  async function* lines(): AsyncGenerator<Line[]> {
    let n = 0;
    let chunk: Line[] = [];
    for await (const value of values as AsyncIterable<unknown>) {
      chunk.push({ line: ++n, value });
      if (chunk.length === VALUES_PER_CHUNK) {
        yield chunk;
        chunk = [];
      }
    }
    if (chunk.length) yield chunk;
  }
  return ingestLines(lines(), opts, () => 0);
}

/** Lines come in arrays (those of one chunk of the body): stepping an async iterator per line costs more than it should. */
async function ingestLines(
  lines: AsyncIterable<Line[]>,
  opts: IngestOptions,
  bytesRead: () => number,
): Promise<IngestSummary> {
  const summary = emptySummary();
  const size = opts.batchLines ?? DEFAULT_BATCH_LINES;
  const preparer = new Preparer(opts.pool, {
    format: opts.format ?? "ndjson",
    defaults: opts.defaults ?? {},
    mapper: opts.mapper,
    config: opts.config ?? DEFAULT_CONFIG,
    keepText: !!opts.onReject,
  });
  const context = newWriteContext();
  // 100 MB of heap and Buffers above where the ingest started before a full collection: each one costs tens of ms,
  // and at 60 MB they took a fifth of an ingest's CPU once prepared rows became Buffers (freed only by a full
  // collection); the process stays under 300 MB with its young generation at 8 MB (see docs/ingest.md).
  const heap = opts.heapHeadroomMb === 0 ? null : new HeapBound((opts.heapHeadroomMb ?? 100) * 1024 * 1024);
  let failure: Error | null = null;
  let inflight: Promise<void> | null = null;
  let writer: pg.PoolClient | null = null;
  const after = opts.after;

  const record = async (prepared: PreparedLine[], outcomes: LineOutcome[]) => {
    const texts = new Map(prepared.map((p) => [p.line, p.text]));
    for (const o of outcomes) {
      if (o.status === "rejected") {
        summary.rejected++;
        const r = { line: o.line, path: o.path ?? "", message: o.message ?? "rejected" };
        if (summary.rejects.length < MAX_LISTED_REJECTS) summary.rejects.push(r);
        else summary.truncated = true;
        await opts.onReject?.({ ...r, text: texts.get(o.line) ?? null });
        continue;
      }
      summary[o.status]++;
      for (const kind of ["case", "rollout", "score"] as const) {
        const p = o.parts[kind];
        if (p) summary.by_kind[kind][p]++;
      }
      if (o.scored) summary.scored++;
      if (o.unscored) summary.unscored++;
    }
  };

  /** Writes a prepared batch; a batch refused for its data is split until the offending lines are isolated. */
  const write = async (prepared: PreparedLine[]): Promise<void> => {
    writer ??= await checkout(opts.pool);
    let outcomes: LineOutcome[];
    try {
      outcomes = await writeIngestBatch(writer, prepared, context);
    } catch (err) {
      if (!(err instanceof BatchDataError)) throw err;
      const live = prepared.filter((p) => !p.reject);
      if (live.length <= 1) {
        // The one line left is the one the database refuses: rejected with the database's reason; the batch it came
        // in was rolled back and its other lines are written without it.
        outcomes = prepared.map((p) => ({
          line: p.line,
          status: "rejected",
          path: p.reject?.path ?? err.cause.column ?? "",
          message: p.reject?.message ?? `the database refused this line: ${describeDatabaseError(err.cause)}`,
          parts: {},
          scored: false,
          unscored: false,
        }));
      } else {
        const mid = Math.ceil(prepared.length / 2);
        await write(prepared.slice(0, mid));
        await write(prepared.slice(mid));
        return;
      }
    }
    summary.last_committed_line = prepared[prepared.length - 1].line;
    await record(prepared, outcomes);
    after?.committed(changedRuns(prepared, outcomes));
    heap?.check();
    opts.onProgress?.({
      lines: summary.lines,
      bytes: bytesRead(),
      committedLine: summary.last_committed_line,
      accepted: summary.accepted,
      unchanged: summary.unchanged,
      rejected: summary.rejected,
    });
  };

  const flush = async () => {
    const prepared = await preparer.take();
    if (inflight) await inflight;
    if (failure) return;
    inflight = write(prepared).catch((err: Error) => {
      failure = err;
    });
  };

  try {
    read: for await (const chunk of guarded(lines)) {
      for (const l of chunk) {
        if (failure) break read;
        summary.lines++;
        // Each line is prepared as it arrives (see Preparer), while the previous batch is being written; yielding now
        // and then lets that write's round trips proceed instead of waiting for a whole chunk of lines.
        preparer.add(l);
        if (summary.lines % YIELD_EVERY === 0) await yieldToEventLoop();
        if (preparer.size >= size) await flush();
      }
    }
    if (preparer.size && !failure) await flush();
    if (inflight) await inflight;
  } catch (err) {
    // Either reading the body failed (BodyError), or preparing a batch could not reach the database (case lookups).
    if (inflight) await inflight;
    if (!failure) failure = err as Error;
  } finally {
    (writer as pg.PoolClient | null)?.release(failure ? (failure as Error) : undefined);
  }

  // The batches are gone: collect them before the listener settles (the final alarm evaluation may load its client now).
  heap?.release();
  // Also after a failure: the batches before it are committed.
  await after?.settle();
  if (failure) {
    summary.ok = false;
    const stop = stoppedBy(failure);
    summary.failed_at = stop.at;
    summary.error = `stopped: ${stop.reason}. Every line up to ${summary.last_committed_line} is committed; send the same lines again to complete the ingest (committed lines come back as unchanged).`;
  }
  return summary;
}

/**
 * Why an ingest stopped before the end of its body. A line's own data never stops it (its batch is split until the
 * line is isolated, see `write`), so this is the body breaking off, the database being unavailable — said only when
 * it is (classifyDatabaseError) — or anything else, a fault of the server's.
 */
function stoppedBy(err: Error): { at: NonNullable<IngestSummary["failed_at"]>; reason: string } {
  if (err instanceof BodyError) return { at: "body", reason: err.message };
  const what = describeDatabaseError(err);
  if (classifyDatabaseError(err) === "unavailable")
    return { at: "database", reason: `the database is unavailable (${what})` };
  return { at: "server", reason: `the server failed, not on the data of a line (${what})` };
}

/** Runs with a line accepted in this batch (unchanged lines change nothing an alarm reads). */
function changedRuns(prepared: readonly PreparedLine[], outcomes: readonly LineOutcome[]): Set<string> {
  const accepted = new Set(outcomes.filter((o) => o.status === "accepted").map((o) => o.line));
  const runs = new Set<string>();
  for (const p of prepared) {
    if (!accepted.has(p.line)) continue;
    const run = p.rollout?.row.run_id ?? p.score?.values.run_id;
    if (run) runs.add(run);
  }
  return runs;
}

/** The input stream failed (client went away, file unreadable): not the database's fault. */
class BodyError extends Error {
  constructor(readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

async function* guarded(lines: AsyncIterable<Line[]>): AsyncGenerator<Line[]> {
  try {
    yield* lines;
  } catch (err) {
    throw new BodyError(err);
  }
}
