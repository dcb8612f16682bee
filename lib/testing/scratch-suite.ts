import { afterAll, afterEach, beforeAll } from "vitest";
import { createClient } from "@/lib/db/client.ts";
import { distributeDatabase } from "@/lib/db/distribute.ts";
import { migrate, readMigrations } from "@/lib/db/migrate.ts";
import { closeBulkPool } from "@/lib/db/pool.ts";
import { rawClient } from "@/lib/db/raw-client.ts";
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";
import { createScratchDatabase, ON_CITUS } from "@/lib/testing/scratch-db.ts";

export type ScratchDatabase = Awaited<ReturnType<typeof createScratchDatabase>>;

/**
 * A migrated scratch database and a Prisma client on it for the tests of the enclosing describe block: made before
 * them (`ready` receives both, then the block's own beforeAll hooks run), and after them the client disconnected,
 * the bulk pool of its url closed and the database dropped. On a Citus cluster it is distributed once migrated.
 */
export function useMigratedScratch(
  prefix: string,
  ready: (scratch: ScratchDatabase, client: PrismaClient) => void,
): void {
  let scratch: ScratchDatabase | undefined;
  let client: PrismaClient | undefined;
  beforeAll(async () => {
    scratch = await createScratchDatabase(prefix);
    await migrate(scratch.url);
    if (ON_CITUS) await distributeDatabase(scratch.url);
    client = createClient(scratch.url);
    ready(scratch, client);
  });
  afterAll(async () => {
    await client?.$disconnect();
    if (scratch) await closeBulkPool(scratch.url);
    await scratch?.drop();
  });
}

/** The drops of the test that runs: pushed on the array it returns, run after the test, last first. */
export function dropsAfterEach(): (() => Promise<void>)[] {
  const drops: (() => Promise<void>)[] = [];
  afterEach(async () => {
    while (drops.length) await drops.pop()!();
  });
  return drops;
}

/**
 * A scratch database migrated up to the migration `before` (the names that sort before it), dropped by `drops`, and
 * a raw client connected to it that the caller ends (`q` runs a statement on it and answers its rows); `all` is every
 * migration, to migrate on.
 */
export async function migratedBefore(prefix: string, before: string, drops: (() => Promise<void>)[]) {
  const s = await createScratchDatabase(prefix);
  drops.push(s.drop);
  const all = readMigrations();
  await migrate(s.url, { files: all.filter((f) => f.name < before) });
  const c = rawClient({ connectionString: s.url });
  await c.connect();
  const q = async (sql: string, params: unknown[] = []) => (await c.query(sql, params)).rows;
  return { s, all, c, q };
}
