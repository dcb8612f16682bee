// The trajectory browser's matches (its filters and search box) as one Parquet file: the same flat rows as the run
// export's Parquet file (parquet-columns.ts), read under the browser's own conditions in keyset batches on
// (step, id), so memory holds one batch whatever the number of matches.
import { Prisma, type PrismaClient } from "@/lib/generated/prisma/client.ts";
import type { Db } from "@/lib/db/client.ts";
import { readDb } from "@/lib/db/read-client.ts";
import { browseConditions, queryKind } from "@/lib/ledger/browse.ts";
import { browseQuery, type BrowseParams } from "@/lib/ledger/browse-schema.ts";
import { PARQUET_JOIN, PARQUET_SELECT, type ParquetRow } from "@/lib/ledger/parquet-columns.ts";
import { parquetChunks } from "@/lib/ledger/parquet.ts";
import { withSearchTimeout } from "@/lib/search/data.ts";

const BATCH = 5000;

/**
 * The browser's matching current entries as Parquet rows, in (step, id) order. With a search in the box, each batch
 * runs under the search's statement timeout (a stopped one is thrown as SearchTimeoutError), as the browser's reads do.
 */
export async function* browseParquetBatches(
  p: BrowseParams,
  batchSize = BATCH,
  client: PrismaClient = readDb(),
): AsyncGenerator<ParquetRow[]> {
  const kind = await queryKind(p, client);
  const where = Prisma.join(browseConditions(p, { q: kind }), " and ");
  const read = (c: Db, after: { step: number; id: string }) =>
    c.$queryRaw<ParquetRow[]>`
      select ${Prisma.raw(PARQUET_SELECT)} from ledger l ${Prisma.raw(PARQUET_JOIN)}
       where ${where} and (l.step, l.id) > (${after.step}::int, ${after.id}::bigint)
       order by l.step, l.id limit ${batchSize}`;
  let after = { step: -1, id: "0" };
  for (;;) {
    const from = after;
    const rows = await (kind?.kind === "search"
      ? withSearchTimeout(client, (tx) => read(tx, from))
      : read(client, from));
    if (rows.length) yield rows;
    if (rows.length < batchSize) return;
    const last = rows[rows.length - 1];
    after = { step: last.step, id: last.id };
  }
}

/** The file's bytes; its footer names the browser's filters it holds. */
export function exportBrowseParquet(p: BrowseParams, batchSize?: number): AsyncGenerator<Uint8Array> {
  const metadata = { "verity.export": JSON.stringify({ kind: "trajectories", filter: browseQuery(p) }) };
  return parquetChunks(browseParquetBatches(p, batchSize), { metadata });
}
