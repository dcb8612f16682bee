// A run's current ledger as one Parquet file (docs/formats.md "Parquet export"): the NDJSON export's entries — the
// same filter, snapshot and keyset batches (export.ts) — as flat rows, written in row groups as they are read.
import type pg from "pg";
import {
  currentEntryBatches,
  entryFilterSchema,
  EXPORT_SEARCH_TIMEOUT_MS,
  inSnapshot,
  parseExportRequest,
  searchAnswered,
  type EntryFilter,
} from "@/lib/ledger/export.ts";
import { formatSearch } from "@/lib/search/parse.ts";
import { PARQUET_JOIN, PARQUET_SELECT, type ParquetRow } from "@/lib/ledger/parquet-columns.ts";
import { fileSlug, parquetChunks, parquetResponse, type ParquetOptions } from "@/lib/ledger/parquet.ts";

/** Rows per database read: a row group is several of these. */
const BATCH = 5000;

/** What a file holds, under the footer's `verity.export` key. */
export function exportMetadata(filter: EntryFilter): Record<string, string> {
  const what = { kind: "ledger", run_id: filter.run, from: filter.from ?? null, to: filter.to ?? null };
  const search = filter.q ? { search: formatSearch(filter.q) } : {};
  return { "verity.export": JSON.stringify({ ...what, guardrail: filter.guardrail ?? null, ...search }) };
}

/** The file's bytes, in order; stop iterating to cancel (the snapshot is released). */
export function exportLedgerParquet(
  pool: pg.Pool,
  filter: EntryFilter,
  options: Omit<ParquetOptions, "metadata"> & { batchSize?: number } = {},
): AsyncGenerator<Uint8Array> {
  const batches = inSnapshot(
    pool,
    (client) =>
      currentEntryBatches<ParquetRow>(
        client,
        filter,
        { columns: PARQUET_SELECT, joins: PARQUET_JOIN },
        options.batchSize ?? BATCH,
      ),
    filter.q ? EXPORT_SEARCH_TIMEOUT_MS : undefined,
  );
  return parquetChunks(batches, { rowGroupRows: options.rowGroupRows, metadata: exportMetadata(filter) });
}

/** GET …/ledger.parquet: 400 for a bad filter, 404 for an unknown run, else the file streamed as it is written. */
export async function exportParquetResponse(runId: string, params: URLSearchParams, pool: pg.Pool): Promise<Response> {
  const filter = await parseExportRequest(entryFilterSchema, runId, params, pool);
  if (filter instanceof Response) return filter;
  return searchAnswered(parquetResponse(exportLedgerParquet(pool, filter), `${fileSlug(runId)}.ledger.parquet`));
}
