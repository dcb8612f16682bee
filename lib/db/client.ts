import "server-only";
import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient, type Prisma } from "@/lib/generated/prisma/client.ts";
import { env } from "@/lib/env.ts";

/** A Prisma client or the `tx` of a `$transaction(async (tx) => …)`, so what it writes commits with the change. */
export type Db = PrismaClient | Prisma.TransactionClient;

// One Prisma client per process (Next's dev server re-evaluates modules, hence the global).
const globalForDb = globalThis as unknown as { verityDb?: PrismaClient };

// The pg pool behind each client made here, for the reads that take their rows from it directly (lib/db/rows.ts).
const pools = new WeakMap<object, pg.Pool>();

/**
 * How the console's pools keep their connections. pg's pool closes a connection idle for 10 s, so a page opened after
 * a user read the last one for longer opened new ones: on one node a new server backend per connection, with its
 * caches cold; on Citus a new coordinator backend too, which then opens a connection of its own to each worker it
 * reads from (docs/benchmarks.md, "Citus", "Small pages": 9–10 connections, and 6 to a worker, per run page). They are
 * kept as long as Citus keeps a coordinator backend's connections to the workers (citus.max_cached_connection_lifetime,
 * 10 minutes). An idle pool does not keep the process alive: a command that ends without ending its pool still exits.
 */
export const POOL_IDLE = { idleTimeoutMillis: 10 * 60_000, allowExitOnIdle: true } satisfies pg.PoolConfig;

/** A Prisma client over a pool of its own, which `$disconnect` ends. */
export function createClient(url: string): PrismaClient {
  const pool = new pg.Pool({ connectionString: url, max: 10, ...POOL_IDLE });
  return clientOver(pool);
}

/**
 * A Prisma client over `pool`, remembered as the pool behind it. Its `$disconnect` ends the pool too: Prisma ends an
 * adapter's pool only once its own first query has connected it, and a client may have read through the pool alone.
 */
export function clientOver(pool: pg.Pool): PrismaClient {
  // An idle connection that breaks is dropped by the pool; without a listener the error would be thrown.
  pool.on("error", () => undefined);
  const client = new PrismaClient({ adapter: new PrismaPg(pool) });
  const disconnect = client.$disconnect.bind(client);
  client.$disconnect = async () => {
    await disconnect();
    if (!pool.ended) await pool.end();
  };
  pools.set(client, pool);
  return client;
}

/** The pg pool behind a client made by createClient or clientOver; null for any other (a transaction's). */
export function poolOf(client: object): pg.Pool | null {
  return pools.get(client) ?? null;
}

export function db(): PrismaClient {
  if (!globalForDb.verityDb) {
    const url = env().DATABASE_URL;
    if (!url) throw new Error("DATABASE_URL is not set: start the console with `npm start`, which provides it.");
    globalForDb.verityDb = createClient(url);
  }
  return globalForDb.verityDb;
}

/**
 * Binds this process's shared client to a database chosen at run time (CLIs and benchmarks that start or pick the
 * database themselves, after the environment was read). Replaces any client bound before.
 */
export async function bindDatabase(url: string): Promise<PrismaClient> {
  const previous = globalForDb.verityDb;
  globalForDb.verityDb = createClient(url);
  await previous?.$disconnect();
  return globalForDb.verityDb;
}
