// A plain `pg` pool for the bulk paths (COPY and unnest need the driver itself, not the Prisma client). One pool
// per database URL per process; Next's dev server re-evaluates modules, hence the global.
import "server-only";
import pg from "pg";
import { env } from "@/lib/env.ts";

// No global type parsers here: the Prisma adapter shares the `pg` module. bigint columns arrive as strings.
const globalForPools = globalThis as unknown as { verityBulkPools?: Map<string, pg.Pool> };

export function bulkPool(url: string = requireUrl()): pg.Pool {
  const pools = (globalForPools.verityBulkPools ??= new Map());
  let pool = pools.get(url);
  if (!pool) {
    pool = new pg.Pool({ connectionString: url, max: 4, idleTimeoutMillis: 30_000 });
    // An idle client that loses its server (restart, terminated backend) emits here; without a listener the
    // process would crash. The next checkout gets a fresh connection.
    pool.on("error", () => undefined);
    pools.set(url, pool);
  }
  return pool;
}

/** Ends the pool of `url` (CLI commands end theirs so the process can exit). */
export async function closeBulkPool(url: string): Promise<void> {
  const pool = globalForPools.verityBulkPools?.get(url);
  if (!pool) return;
  globalForPools.verityBulkPools!.delete(url);
  await pool.end().catch(() => undefined);
}

function requireUrl(): string {
  const url = env().DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set: start the console with `npm start`, which provides it.");
  return url;
}

/**
 * A client for a sequence of statements (a transaction, a snapshot). A checked-out client whose server goes away
 * between two queries emits "error"; without a listener that would crash the process. The next query on it fails
 * with the same error, which is where the caller handles it.
 */
export async function checkout(pool: pg.Pool): Promise<pg.PoolClient> {
  const client = await pool.connect();
  if (client.listenerCount("error") === 0) client.on("error", () => undefined);
  return client;
}
