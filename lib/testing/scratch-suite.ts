import { afterAll, beforeAll } from "vitest";
import { createClient } from "@/lib/db/client.ts";
import { migrate } from "@/lib/db/migrate.ts";
import { closeBulkPool } from "@/lib/db/pool.ts";
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";
import { createScratchDatabase } from "@/lib/testing/scratch-db.ts";

export type ScratchDatabase = Awaited<ReturnType<typeof createScratchDatabase>>;

/**
 * A migrated scratch database and a Prisma client on it for the tests of the enclosing describe block: made before
 * them (`ready` receives both, then the block's own beforeAll hooks run), and after them the client disconnected,
 * the bulk pool of its url closed and the database dropped.
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
    client = createClient(scratch.url);
    ready(scratch, client);
  });
  afterAll(async () => {
    await client?.$disconnect();
    if (scratch) await closeBulkPool(scratch.url);
    await scratch?.drop();
  });
}
