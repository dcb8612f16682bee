// The rows of a large read straight from the pg pool behind a Prisma client. Prisma's $queryRaw turns each row into
// its own column-typed form and back into an object, which at 100,000 rows of forty columns costs more than the
// server's part of the query (docs/benchmarks.md, "the agreement report's load"). The rows come back as $queryRaw
// gives them: int8 as bigint, timestamptz as Date, json as parsed values, text[] as string[], and the rest as pg reads
// them, which for the types below is what Prisma gives too.
import pg from "pg";
import type { Prisma } from "@/lib/generated/prisma/client.ts";
import { poolOf, type Db } from "@/lib/db/client.ts";

const { builtins } = pg.types;

/** Types whose pg parse is not $queryRaw's: read differently (int8) or refused, so a query cannot drift silently. */
const parsers = new Map<number, (text: string) => unknown>([[builtins.INT8, (t) => BigInt(t)]]);
const refused = new Map<number, string>([
  [1016, "bigint[] (pg gives strings, Prisma bigints)"],
  [builtins.NUMERIC, "numeric (Prisma gives a Decimal)"],
  [builtins.TIMESTAMP, "timestamp without time zone (pg reads it in the local zone, Prisma in UTC)"],
  [builtins.MONEY, "money"],
]);

const types = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    const own = parsers.get(oid);
    if (own) return own;
    const no = refused.get(oid);
    if (no)
      return () => {
        throw new Error(`rows(): a column of type ${no} is not read the way $queryRaw reads it: cast it in the query`);
      };
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

/**
 * The rows of `sql`, through the pool behind `client` when it has one (lib/db/client.ts poolOf; the replica's pool
 * falls back to the primary as the client does), else through `client.$queryRaw` (a transaction).
 */
export async function rows<T>(client: Db, sql: Prisma.Sql): Promise<T[]> {
  const pool = poolOf(client);
  if (!pool) return client.$queryRaw<T[]>(sql);
  const result = await pool.query<T & pg.QueryResultRow>({ text: sql.text, values: sql.values, types });
  return result.rows;
}
