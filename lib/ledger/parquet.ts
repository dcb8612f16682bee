// Ledger rows as a Parquet file, produced as a stream of byte chunks: each row group is encoded (snappy) as soon as
// it is full and handed on, and the footer (schema, row-group index) comes last. Memory holds one row group's
// columns and its encoding, whatever the number of rows; the footer grows by a few hundred bytes per row group.
import { ByteWriter, ParquetWriter, type Writer } from "hyparquet-writer";
import { ColumnBuilder, PARQUET_SCHEMA, type ParquetRow } from "@/lib/ledger/parquet-columns.ts";
import { streamedBody } from "@/lib/ledger/stream-body.ts";

/**
 * Rows per row group: large enough for readers to scan efficiently (DuckDB and pyarrow read 10,000-row groups at
 * full speed), small enough that one group's columns and their encoding stay a few tens of MB (bench/parquet-export).
 */
export const ROW_GROUP_ROWS = 10_000;

export type ParquetOptions = {
  rowGroupRows?: number;
  /** Written into the footer's key-value metadata (what was exported). */
  metadata?: Record<string, string>;
};

/**
 * The file's bytes, in order, from `batches` of rows (in the order they should appear). The consumer pulls: the
 * next batch is read only when the bytes before it were taken, so a slow client holds back the database reads.
 */
export async function* parquetChunks(
  batches: AsyncIterable<ParquetRow[]>,
  options: ParquetOptions = {},
): AsyncGenerator<Uint8Array> {
  const rowGroupRows = options.rowGroupRows ?? ROW_GROUP_ROWS;
  const pending: Uint8Array[] = [];
  const writer: ByteWriter & Pick<Writer, "flush"> = new ByteWriter(1 << 20);
  // The writer calls flush after each row group; its buffer is emptied into `pending` (offsets stay absolute).
  writer.flush = () => {
    if (writer.index === 0) return;
    pending.push(new Uint8Array(writer.buffer.slice(0, writer.index)));
    writer.index = 0;
  };
  writer.finish = writer.flush;
  const parquet = new ParquetWriter({
    writer,
    schema: PARQUET_SCHEMA,
    codec: "SNAPPY",
    kvMetadata: Object.entries(options.metadata ?? {}).map(([key, value]) => ({ key, value })),
  });
  const columns = new ColumnBuilder();
  const writeGroup = () => {
    const rows = columns.rows;
    // hyparquet-writer's column data is typed as its decoded arrays; ours are plain arrays of the schema's values.
    parquet.write({ columnData: columns.take() as never, rowGroupSize: rows });
  };
  for await (const batch of batches) {
    for (const row of batch) {
      columns.push(row);
      if (columns.rows === rowGroupRows) {
        writeGroup();
        yield* pending.splice(0);
      }
    }
  }
  if (columns.rows > 0) writeGroup();
  parquet.finish();
  yield* pending.splice(0);
}

/** `name` made safe for a Content-Disposition file name. */
export function fileSlug(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, "_");
}

/**
 * A streamed Parquet download (lib/ledger/stream-body.ts). An error after the first bytes aborts the response, so
 * the client has a file without a footer, which every reader refuses, rather than one that looks complete.
 */
export async function parquetResponse(chunks: AsyncGenerator<Uint8Array>, filename: string): Promise<Response> {
  return new Response(await streamedBody(chunks, (c) => c), {
    headers: {
      "content-type": "application/vnd.apache.parquet",
      "content-disposition": `attachment; filename="${filename}"`,
      "cache-control": "no-store",
    },
  });
}
