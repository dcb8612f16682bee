// The client of the read-only pages and APIs. With DATABASE_REPLICA_URL set it reads from that streaming standby,
// and falls back to the primary within the same query when the standby cannot be reached; without it, it is db().
// What must read its own writes (ingest, reviews, leases, adjudication, sign-in, admin, alarm evaluation, thresholds,
// cluster triage) never uses it: README "Replicas" lists the split.
import "server-only";
import pg from "pg";
import { clientOver, db, POOL_IDLE } from "@/lib/db/client.ts";
import { classifyDatabaseError, redactUrl } from "@/lib/db/describe-error.ts";
import { env } from "@/lib/env.ts";
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";

/** A standby that does not accept a connection within this long is taken as down for this query. */
export const REPLICA_CONNECT_TIMEOUT_MS = 1000;
/** After a failure the standby is skipped this long, doubling on each further failure up to the maximum. */
export const REPLICA_BACKOFF_MS = 2000;
export const REPLICA_BACKOFF_MAX_MS = 60_000;

type Log = (line: string) => void;

/**
 * Whether the standby is usable: a failure marks it down for a back-off (logged once, when it goes down, not per
 * query), the first success after the back-off marks it up again (logged once).
 */
export class ReplicaAvailability {
  private downUntil = 0;
  private backoffMs = 0;
  constructor(
    private readonly where: string,
    private readonly log: Log = (l) => console.warn(l),
    private readonly now: () => number = Date.now,
  ) {}

  /** True unless the standby failed and its back-off has not run out. */
  shouldTry(): boolean {
    return this.now() >= this.downUntil;
  }

  get down(): boolean {
    return this.backoffMs > 0;
  }

  failed(err: unknown): void {
    const wasDown = this.down;
    this.backoffMs = wasDown ? Math.min(this.backoffMs * 2, REPLICA_BACKOFF_MAX_MS) : REPLICA_BACKOFF_MS;
    this.downUntil = this.now() + this.backoffMs;
    if (!wasDown) {
      const reason = String((err as { message?: unknown })?.message ?? err).split("\n")[0];
      this.log(
        `verity: the read replica ${this.where} is unreachable (${reason}); reading from the primary until it answers again`,
      );
    }
  }

  succeeded(): void {
    if (!this.down) return;
    this.backoffMs = 0;
    this.downUntil = 0;
    this.log(`verity: the read replica ${this.where} answers again; reading from it`);
  }
}

/** A standby that cannot serve: unreachable, shutting down, or not yet accepting connections. */
export function isReplicaUnavailable(err: unknown): boolean {
  const message = String((err as { message?: unknown })?.message ?? "");
  return classifyDatabaseError(err) === "unavailable" || /timeout exceeded when trying to connect/.test(message);
}

/**
 * A query a hot standby cancelled because replaying the primary's WAL needed the rows it read (SQLSTATE 40001,
 * "canceling statement due to conflict with recovery"): the standby is fine, the primary answers that one query.
 */
function isRecoveryConflict(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  return e?.code === "40001" && /conflict with recovery/.test(String(e.message ?? ""));
}

/**
 * A pg pool on the standby that hands out primary connections while the standby is down. Prisma's adapter uses
 * `query()` for single statements and `connect()` for transactions; both fall back within the same call, so the
 * request that finds the standby gone is answered from the primary. Only reads go through it, so running a statement
 * again on the primary after it failed on the standby changes nothing.
 */
export class ReplicaPool extends pg.Pool {
  constructor(
    config: pg.PoolConfig,
    private readonly primary: pg.Pool,
    readonly availability: ReplicaAvailability,
  ) {
    super(config);
  }

  connect(): Promise<pg.PoolClient>;
  connect(callback: (err: Error | undefined, client: pg.PoolClient | undefined, done: () => void) => void): void;
  connect(
    callback?: (err: Error | undefined, client: pg.PoolClient | undefined, done: () => void) => void,
  ): Promise<pg.PoolClient> | void {
    const p = this.connectWithFallback();
    if (!callback) return p;
    p.then(
      (c) => callback(undefined, c, () => c.release()),
      (err: Error) => callback(err, undefined, () => undefined),
    );
  }

  private async connectWithFallback(): Promise<pg.PoolClient> {
    if (this.availability.shouldTry()) {
      try {
        const client = await super.connect();
        this.availability.succeeded();
        return client;
      } catch (err) {
        if (!isReplicaUnavailable(err)) throw err;
        this.availability.failed(err);
      }
    }
    return this.primary.connect();
  }

  // The adapter calls query(config) and awaits it; node-postgres's other call forms are not used on this pool.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(config: any, values?: any): any {
    return this.queryWithFallback(config, values);
  }

  private async queryWithFallback(config: pg.QueryConfig, values?: unknown[]): Promise<pg.QueryResult> {
    if (this.availability.shouldTry()) {
      let client: pg.PoolClient | undefined;
      try {
        client = await super.connect();
      } catch (err) {
        if (!isReplicaUnavailable(err)) throw err;
        this.availability.failed(err);
      }
      if (client) {
        try {
          const result = await client.query(config, values);
          client.release();
          this.availability.succeeded();
          return result;
        } catch (err) {
          // A broken connection is discarded, not returned to the pool.
          const lost = isReplicaUnavailable(err);
          client.release(lost ? (err as Error) : undefined);
          if (lost) this.availability.failed(err);
          else if (!isRecoveryConflict(err)) throw err;
        }
      }
    }
    return this.primary.query(config, values);
  }

  override async end(): Promise<void> {
    await Promise.all([super.end(), this.primary.end()]);
  }
}

export type ReadClient = { client: PrismaClient; pool: ReplicaPool };

/** A Prisma client reading from `replicaUrl`, falling back to `primaryUrl` (for the console and for tests). */
export function createReadClient(primaryUrl: string, replicaUrl: string, log?: Log): ReadClient {
  const primary = new pg.Pool({ connectionString: primaryUrl, max: 5, ...POOL_IDLE });
  // An idle primary connection that breaks is dropped by the pool; without a listener the error would be thrown.
  primary.on("error", () => undefined);
  const pool = new ReplicaPool(
    { connectionString: replicaUrl, max: 10, connectionTimeoutMillis: REPLICA_CONNECT_TIMEOUT_MS, ...POOL_IDLE },
    primary,
    new ReplicaAvailability(redactUrl(replicaUrl), log),
  );
  return { client: clientOver(pool), pool };
}

const globalForRead = globalThis as unknown as { verityReadDb?: ReadClient };

/**
 * The client of read-only pages and APIs: the replica's (with fallback) when DATABASE_REPLICA_URL is set, otherwise
 * the primary's db().
 */
export function readDb(): PrismaClient {
  if (globalForRead.verityReadDb) return globalForRead.verityReadDb.client;
  const { DATABASE_URL, DATABASE_REPLICA_URL } = env();
  if (!DATABASE_REPLICA_URL || !DATABASE_URL) return db();
  globalForRead.verityReadDb = createReadClient(DATABASE_URL, DATABASE_REPLICA_URL);
  return globalForRead.verityReadDb.client;
}

/** Binds this process's read client to a primary and replica chosen at run time (tests, CLIs); replaces any before. */
export async function bindReadDatabase(primaryUrl: string, replicaUrl: string, log?: Log): Promise<ReadClient> {
  const previous = globalForRead.verityReadDb;
  globalForRead.verityReadDb = createReadClient(primaryUrl, replicaUrl, log);
  await closeReadClient(previous);
  return globalForRead.verityReadDb;
}

/** Drops the bound read client, so readDb() is again what the environment says. */
export async function unbindReadDatabase(): Promise<void> {
  const previous = globalForRead.verityReadDb;
  globalForRead.verityReadDb = undefined;
  await closeReadClient(previous);
}

async function closeReadClient(c: ReadClient | undefined): Promise<void> {
  if (!c) return;
  await c.client.$disconnect(); // ends the pool (clientOver)
}

/** The replica's pg pool (with the same fallback) for the streaming exports, or null without a replica. */
export function readPool(): pg.Pool | null {
  readDb();
  return globalForRead.verityReadDb?.pool ?? null;
}

/**
 * Where a loader given `client` reads what must be current (thresholds, triage states just saved): the primary when
 * `client` is the read client, otherwise `client` itself (a caller's own database: a test's, a benchmark's).
 */
export function primaryOf(client: PrismaClient): PrismaClient {
  return client === globalForRead.verityReadDb?.client ? db() : client;
}
