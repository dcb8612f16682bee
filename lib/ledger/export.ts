// Export of a run's current ledger as NDJSON score records (formats §3), streamed in keyset batches from one
// read-only snapshot. Each ticket's case is written once, before its first score record, so that ingesting the
// export into an empty database reproduces the ledger (category included) — see export.int.test.ts.
import type pg from "pg";
import { z } from "zod";
import { checkout } from "@/lib/db/pool.ts";
import { caseFromColumns } from "@/lib/ledger/store/rows.ts";
import { LEDGER_TEXT_COLUMNS, ledgerLine, type LedgerTextRow } from "@/lib/ledger/export-lines.ts";
import { GUARDRAIL_CODES } from "@/lib/verifier/codes.ts";
import { INT4_MAX } from "@/lib/db/column-ranges.ts";
import { streamedBody, utf8 } from "@/lib/ledger/stream-body.ts";
import { apiError } from "@/lib/result.ts";
import { searchQuerySchema } from "@/lib/search/schema.ts";
import { numberedSql, searchCondition } from "@/lib/search/sql.ts";
import { isStatementTimeout, loadIndexedSearch } from "@/lib/search/data.ts";

const filterFields = {
  run: z.string().min(1).max(200),
  from: z.coerce.number().int().nonnegative().max(INT4_MAX).optional(),
  to: z.coerce.number().int().nonnegative().max(INT4_MAX).optional(),
  guardrail: z.enum(GUARDRAIL_CODES, { error: `expected a guardrail code (${GUARDRAIL_CODES.join(", ")})` }).optional(),
  /** A search of the rollouts' texts (docs/search.md). */
  q: searchQuerySchema.optional(),
};
const stepOrder: [(f: { from?: number; to?: number }) => boolean, { path: string[]; error: string }] = [
  (f) => f.from === undefined || f.to === undefined || f.from <= f.to,
  { path: ["to"], error: "must be at least `from`" },
];

/** Which current entries an export holds: a run, a step range, a guardrail, a search. */
export const entryFilterSchema = z.strictObject(filterFields).refine(...stepOrder);
export type EntryFilter = z.infer<typeof entryFilterSchema>;

/** The NDJSON export's filter: the entries, and whether each ticket's case comes before its first record. */
export const exportFilterSchema = z
  .strictObject({
    ...filterFields,
    cases: z
      .union([z.boolean(), z.enum(["0", "1", "true", "false"]).transform((v) => v === "1" || v === "true")])
      .default(true),
  })
  .refine(...stepOrder);
export type ExportFilter = z.infer<typeof exportFilterSchema>;

// Entries a batch: 500 rather than 2,000. A batch's rows and the lines built from them (and the next batch, read
// ahead) must die young: at 2,000 they outgrew the young generation of the CLI (`--max-semi-space-size=8`), were
// promoted and cost full collections — a 1 M-entry export took 30.1 s there and 25.7 s with the default 16 MB, 24.3 s
// and 23.2 s at 500 (three runs in turns each, docs/benchmarks.md). The rollouts' export keeps 2,000 (no gain).
const BATCH = 500;
/**
 * Milliseconds one batch of a searching export may read (its statement timeout): a search that is rare in a large
 * run reads far before it fills a batch, and an export may take longer per batch than a page; a search the indexes
 * cannot narrow is still stopped.
 */
export const EXPORT_SEARCH_TIMEOUT_MS = 30_000;

/** Whether the run exists (the API answers 404 rather than an empty export for a typo). */
export async function runExists(pool: pg.Pool | pg.PoolClient, runId: string): Promise<boolean> {
  const r = await pool.query("select 1 from runs where id = $1", [runId]);
  return (r.rowCount ?? 0) > 0;
}

/**
 * Runs `body` inside one read-only snapshot on a client of its own, so every batch of an export sees the same
 * ledger. Stop iterating to cancel; the snapshot is released either way.
 */
export async function* inSnapshot<T>(
  pool: pg.Pool,
  body: (client: pg.PoolClient) => AsyncGenerator<T>,
  statementTimeoutMs?: number,
): AsyncGenerator<T> {
  const client = await checkout(pool);
  let failed = false;
  try {
    await client.query("begin isolation level repeatable read read only");
    if (statementTimeoutMs) await client.query(`set local statement_timeout = ${Math.floor(statementTimeoutMs)}`);
    yield* body(client);
    await client.query("commit");
  } catch (err) {
    failed = true;
    throw err;
  } finally {
    if (!failed) await client.query("rollback").catch(() => undefined);
    client.release(failed ? true : undefined);
  }
}

/**
 * The filter's current entries in batches, ordered by (step, id). Keyset pagination on (step, id) — through
 * ledger (step, id), or ledger_guardrails (code, step, ledger_id) with a guardrail filter (020) — so memory holds one
 * batch, whatever the run's size. `columns` reads the ledger as `l` and must select `l.id::text as id` and `step`;
 * `joins` may add tables to it.
 */
export async function* currentEntryBatches<R extends { id: string; step: number }>(
  client: pg.PoolClient,
  filter: EntryFilter,
  query: { columns: string; joins?: string },
  batchSize = BATCH,
): AsyncGenerator<R[]> {
  const joins = query.joins ?? "";
  const from = filter.from ?? 0;
  const to = filter.to ?? 2147483647;
  const q = filter.q ? await loadIndexedSearch(client, filter.q, [filter.run]) : null;
  const search = q ? numberedSql(searchCondition(q, "l"), 7) : null;
  const matching = search ? `and ${search.text}` : "";
  const read = (after: { step: number; id: string }) => {
    const params: unknown[] = [filter.run, from, to, after.step, after.id, batchSize, filter.guardrail ?? null];
    const sql = filter.guardrail
      ? `select ${query.columns} from ledger_guardrails g join ledger l on l.run_id = g.run_id and l.id = g.ledger_id ${joins}
          where g.run_id = $1 and g.code = $7 and g.step between $2 and $3 and (g.step, g.ledger_id) > ($4, $5::bigint)
            and l.is_current ${matching}
          order by g.step, g.ledger_id limit $6`
      : `select ${query.columns} from ledger l ${joins}
          where l.run_id = $1 and l.step between $2 and $3 and (l.step, l.id) > ($4, $5::bigint) and l.is_current
            and $7::text is null ${matching}
          order by l.step, l.id limit $6`;
    if (search) params.push(...search.values);
    return prefetched(client.query<R>(sql, params));
  };
  // The next batch is asked for before this one is handed on: the server reads it while the caller turns this one
  // into lines and writes them (the connection queues the caller's own queries behind it).
  let pending: Promise<pg.QueryResult<R>> | null = read({ step: -1, id: "0" });
  while (pending) {
    const rows: R[] = (await pending).rows;
    if (rows.length === 0) return;
    const last = rows[rows.length - 1];
    pending = rows.length < batchSize ? null : read({ step: last.step, id: last.id });
    yield rows;
  }
}

/** A query asked for ahead of its use: its failure is thrown where it is awaited, never reported as unhandled when
 * the reader stops first (the snapshot's rollback waits for it on the same connection). */
export function prefetched<T>(q: Promise<T>): Promise<T> {
  q.catch(() => undefined);
  return q;
}

/** One batch of the export: its text (whole lines), how many score records and cases it holds. */
export type ExportChunk = { text: string; records: number; cases: number };

/**
 * The export in batches of whole lines, current entries ordered by (step, id), in keyset batches
 * (currentEntryBatches) from one snapshot; each ticket's case comes before its first record. The records are built
 * from the columns with their JSON as text (export-lines.ts). Stop iterating to cancel; the snapshot is released.
 */
export function exportLedgerChunks(
  pool: pg.Pool,
  filter: ExportFilter,
  batchSize = BATCH,
): AsyncGenerator<ExportChunk> {
  return inSnapshot(
    pool,
    async function* (client) {
      const emitted = new Set<string>();
      for await (const rows of currentEntryBatches<LedgerTextRow>(
        client,
        filter,
        { columns: LEDGER_TEXT_COLUMNS },
        batchSize,
      )) {
        let text = "";
        let cases = 0;
        if (filter.cases) {
          const tickets = [...new Set(rows.map((r) => r.ticket_id))].filter((t) => !emitted.has(t));
          if (tickets.length) {
            const found = await client.query<{
              ticket_id: string;
              ticket: unknown;
              env_snapshot: unknown;
              verifier_spec: unknown;
            }>(
              "select ticket_id, ticket, env_snapshot, verifier_spec from cases where ticket_id = any($1::text[]) order by ticket_id",
              [tickets],
            );
            for (const c of found.rows) {
              text += JSON.stringify(caseFromColumns(c)) + "\n";
              cases++;
            }
            for (const t of tickets) emitted.add(t);
          }
        }
        for (const r of rows) text += ledgerLine(r);
        yield { text, records: rows.length, cases };
      }
    },
    filter.q ? EXPORT_SEARCH_TIMEOUT_MS : undefined,
  );
}

/** The export line by line (each ending in "\n"): exportLedgerChunks split at its newlines. */
export async function* exportLedger(pool: pg.Pool, filter: ExportFilter, batchSize = BATCH): AsyncGenerator<string> {
  for await (const chunk of exportLedgerChunks(pool, filter, batchSize)) {
    let from = 0;
    for (let at = chunk.text.indexOf("\n"); at >= 0; at = chunk.text.indexOf("\n", from)) {
      yield chunk.text.slice(from, at + 1);
      from = at + 1;
    }
  }
}

/**
 * The query of an export route, with the run from its path: the filter, or the answer to give instead — 400 naming
 * the parameter and what is wrong with it, 404 for an unknown run.
 */
export async function parseExportRequest<S extends z.ZodType<{ run: string }>>(
  schema: S,
  runId: string,
  params: URLSearchParams,
  pool: pg.Pool,
): Promise<z.infer<S> | Response> {
  const parsed = schema.safeParse({ ...Object.fromEntries(params), run: runId });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return apiError(400, "bad_request", `${issue.path.join(".") || "query"}: ${issue.message}`);
  }
  if (!(await runExists(pool, runId))) return apiError(404, "not_found", `no run ${JSON.stringify(runId)}`);
  return parsed.data;
}

/** A streamed body, or the 422 to answer when its first read was a search stopped by its statement timeout. */
export async function searchAnswered<T>(body: Promise<T>): Promise<T | Response> {
  try {
    return await body;
  } catch (err) {
    if (!isStatementTimeout(err)) throw err;
    const s = EXPORT_SEARCH_TIMEOUT_MS / 1000;
    return apiError(422, "search_timeout", `q: the search took longer than ${s} s a batch and was stopped; narrow it`);
  }
}

/**
 * The export as an HTTP response: 400 for a bad filter, 404 for an unknown run, else 200 with the NDJSON streamed
 * (lib/ledger/stream-body.ts: the first batch is read before the 200). A client that goes away cancels the
 * stream, which releases the snapshot.
 */
export async function exportResponse(runId: string, params: URLSearchParams, pool: pg.Pool): Promise<Response> {
  const parsed = await parseExportRequest(exportFilterSchema, runId, params, pool);
  if (parsed instanceof Response) return parsed;
  const headers = { "cache-control": "no-store" };
  const body = await searchAnswered(streamedBody(exportLedgerChunks(pool, parsed), (c) => utf8(c.text)));
  if (body instanceof Response) return body;
  const name = `${runId.replace(/[^A-Za-z0-9._-]+/g, "_")}.ledger.ndjson`;
  return new Response(body, {
    headers: {
      ...headers,
      "content-type": "application/x-ndjson; charset=utf-8",
      "content-disposition": `attachment; filename="${name}"`,
    },
  });
}
