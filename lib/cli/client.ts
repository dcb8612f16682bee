// The console's database for the CLI commands that work through Prisma (user, config, agreement): DATABASE_URL or
// the embedded server, with a client that is disconnected (and an embedded server this process started, stopped)
// afterwards. The bulk commands use a plain pool instead (lib/ingest/database.ts).
import { createClient } from "@/lib/db/client.ts";
import { ensureDatabase } from "@/lib/db/embedded.ts";
import type pg from "pg";
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";

export async function withClient<T>(fn: (client: PrismaClient) => Promise<T>): Promise<T> {
  const database = await ensureDatabase();
  const client = createClient(database.url);
  try {
    return await fn(client);
  } finally {
    await client.$disconnect();
    await database.stop();
  }
}

/** The id of the user `--as EMAIL` names (case-insensitive), null when no --as was given, undefined for no such user. */
export async function asUserId(pool: pg.Pool, email: string | undefined): Promise<number | null | undefined> {
  if (!email) return null;
  const u = await pool.query<{ id: number }>("select id from users where lower(email) = lower($1)", [email]);
  return u.rows[0]?.id;
}
