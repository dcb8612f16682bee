// The database for the bulk CLI commands (ingest, export, rescore, demo): DATABASE_URL or the embedded server,
// migrated, with a bulk pool that is closed (and an embedded server this process started, stopped) afterwards.
import type pg from "pg";
import { ensureDatabase } from "@/lib/db/embedded.ts";
import { migrate } from "@/lib/db/migrate.ts";
import { bulkPool, closeBulkPool } from "@/lib/db/pool.ts";

export async function withBulkDatabase<T>(fn: (pool: pg.Pool, url: string) => Promise<T>): Promise<T> {
  const database = await ensureDatabase();
  try {
    await migrate(database.url);
    const pool = bulkPool(database.url);
    try {
      return await fn(pool, database.url);
    } finally {
      await closeBulkPool(database.url);
    }
  } finally {
    await database.stop().catch(() => undefined);
  }
}
