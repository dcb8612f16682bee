import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { analyzeTables, isDistributed } from "@/lib/db/distribute.ts";
import { applyMigrationDistributed } from "@/lib/db/migrate-distributed.ts";
import { rawClient } from "@/lib/db/raw-client.ts";

/** Prisma's own advisory-lock key, so this runner and `prisma migrate deploy` exclude each other too. */
const LOCK_KEY = 72707369;
// Resolved from the working directory (the project root for npm scripts and the Next server alike), because
// bundled server code has no meaningful import.meta.dirname.
export const MIGRATIONS_DIR = path.resolve(/*turbopackIgnore: true*/ process.cwd(), "prisma/migrations");

export type MigrationFile = { name: string; sql: string; checksum: string };
export type MigrationStatus = {
  applied: string[];
  pending: string[];
  /** Applied migrations whose file changed since (name, recorded and current checksum). */
  edited: { name: string; recorded: string; current: string }[];
  /** Migrations recorded in the database that this checkout does not have. */
  unknown: string[];
};

export class MigrationError extends Error {}

export function readMigrations(dir = MIGRATIONS_DIR): MigrationFile[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && /^\d{3,}_[a-z0-9_]+$/.test(d.name))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = fs.readFileSync(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: crypto.createHash("sha256").update(sql).digest("hex") };
    });
}

const BOOKKEEPING = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

async function recorded(client: pg.ClientBase): Promise<Map<string, string>> {
  const exists = await client.query(`select to_regclass('"_prisma_migrations"') is not null as ok`);
  if (!exists.rows[0].ok) return new Map();
  const { rows } = await client.query<{ migration_name: string; checksum: string }>(
    `select migration_name, checksum from "_prisma_migrations"
      where finished_at is not null and rolled_back_at is null order by migration_name`,
  );
  return new Map(rows.map((r) => [r.migration_name, r.checksum]));
}

function compare(files: MigrationFile[], done: Map<string, string>): MigrationStatus {
  const names = new Set(files.map((f) => f.name));
  return {
    applied: files.filter((f) => done.has(f.name)).map((f) => f.name),
    pending: files.filter((f) => !done.has(f.name)).map((f) => f.name),
    edited: files
      .filter((f) => done.has(f.name) && done.get(f.name) !== f.checksum)
      .map((f) => ({ name: f.name, recorded: done.get(f.name)!, current: f.checksum })),
    unknown: [...done.keys()].filter((n) => !names.has(n)),
  };
}

export async function migrationStatus(client: pg.ClientBase, files = readMigrations()): Promise<MigrationStatus> {
  return compare(files, await recorded(client));
}

function refuseIfInconsistent(status: MigrationStatus): void {
  if (status.edited.length) {
    const e = status.edited[0];
    throw new MigrationError(
      `Migration ${e.name} was edited after it was applied (recorded checksum ${e.recorded.slice(0, 12)}…, ` +
        `file now ${e.current.slice(0, 12)}…). Restore the file and add a new migration for the change.`,
    );
  }
  if (status.unknown.length) {
    throw new MigrationError(
      `The database has migration ${status.unknown[0]} applied, which this checkout does not have. ` +
        `Update the checkout before migrating.`,
    );
  }
}

/**
 * Applies pending migrations, each in its own transaction (on a distributed database, as lib/db/migrate-distributed.ts
 * says), under a session advisory lock: a second runner waits
 * for the first and then finds nothing left to do. Returns the names applied by this call.
 */
export async function migrate(
  url: string,
  opts: { files?: MigrationFile[]; log?: (line: string) => void } = {},
): Promise<string[]> {
  const files = opts.files ?? readMigrations();
  const client = rawClient({ connectionString: url });
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query("set client_min_messages = warning");
    await client.query("select pg_advisory_lock($1)", [LOCK_KEY]);
    await client.query(BOOKKEEPING);
    const status = await migrationStatus(client, files);
    refuseIfInconsistent(status);
    // A database distributed on Citus takes each migration as lib/db/migrate-distributed.ts says.
    const distributed = status.pending.length > 0 && (await isDistributed(client));
    const newTables: string[] = [];
    for (const file of files.filter((f) => status.pending.includes(f.name))) {
      await client.query("begin");
      try {
        if (distributed) newTables.push(...(await applyMigrationDistributed(client, file.sql, opts.log)));
        else await client.query(file.sql);
        await client.query(
          `insert into "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count, started_at)
           values ($1, $2, now(), $3, 1, now())`,
          [crypto.randomUUID(), file.checksum, file.name],
        );
        await client.query("commit");
      } catch (err) {
        await client.query("rollback");
        throw new MigrationError(`Migration ${file.name} failed and was rolled back: ${(err as Error).message}`);
      }
      applied.push(file.name);
      opts.log?.(`applied ${file.name}`);
    }
    // Each new shard is a table without statistics until autovacuum reaches it (lib/db/distribute.ts analyzeTables).
    await analyzeTables(client, newTables);
    return applied;
  } finally {
    await client.query("select pg_advisory_unlock($1)", [LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
}
