import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "@/lib/generated/prisma/client.ts";
import { env } from "@/lib/env.ts";

// One Prisma client per process (Next's dev server re-evaluates modules, hence the global).
const globalForDb = globalThis as unknown as { verityDb?: PrismaClient };

export function createClient(url: string): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 10 }) });
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
