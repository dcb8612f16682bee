// How far the read replica is behind the primary, for /api/health and the console's banner.
import pg from "pg";
import { rawClient } from "@/lib/db/raw-client.ts";
import { describeConnectionError } from "@/lib/db/describe-error.ts";
import { REPLICA_CONNECT_TIMEOUT_MS } from "@/lib/db/read-client.ts";
import { env } from "@/lib/env.ts";

export type ReplicaLag = {
  reachable: boolean;
  /**
   * Seconds the replica's data is behind the primary's: 0 when it has replayed everything the primary had flushed
   * when asked, otherwise the time since the last transaction it replayed; null when unknown (unreachable, or
   * behind without having replayed any transaction yet).
   */
  lagSeconds: number | null;
  /** Reachable and at most `maxLagSeconds` behind. */
  ok: boolean;
  maxLagSeconds: number;
  /** False when the server at DATABASE_REPLICA_URL is not in recovery (not a standby): it is then never behind. */
  standby: boolean;
  error?: string;
};

async function withClient<T>(url: string, timeoutMs: number, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = rawClient({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  try {
    await client.connect();
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * The replica's lag. pg_last_xact_replay_timestamp() alone is not enough: on an idle primary the last transaction
 * is old however current the standby is. So the primary's flushed WAL position is read first, and a standby whose
 * replay position has reached it is 0 s behind; only a standby short of it is as far behind as its last replayed
 * transaction is old.
 */
export async function measureReplicaLag(
  primaryUrl: string,
  replicaUrl: string,
  maxLagSeconds: number,
): Promise<ReplicaLag> {
  const primaryLsn = await withClient(primaryUrl, 2000, async (c) => {
    const r = await c.query<{ lsn: string }>("select pg_current_wal_flush_lsn()::text as lsn");
    return r.rows[0].lsn;
  }).catch(() => null);
  try {
    const row = await withClient(replicaUrl, REPLICA_CONNECT_TIMEOUT_MS, async (c) => {
      const r = await c.query<{ standby: boolean; caught_up: boolean | null; since_replay: number | null }>(
        `select pg_is_in_recovery() as standby,
                pg_last_wal_replay_lsn() >= $1::pg_lsn as caught_up,
                extract(epoch from clock_timestamp() - pg_last_xact_replay_timestamp())::float8 as since_replay`,
        [primaryLsn],
      );
      return r.rows[0];
    });
    const lagSeconds =
      !row.standby || row.caught_up ? 0 : row.since_replay === null ? null : Math.max(0, row.since_replay);
    return {
      reachable: true,
      lagSeconds: lagSeconds === null ? null : Math.round(lagSeconds * 10) / 10,
      ok: lagSeconds !== null && lagSeconds <= maxLagSeconds,
      maxLagSeconds,
      standby: row.standby,
    };
  } catch (err) {
    return {
      reachable: false,
      lagSeconds: null,
      ok: false,
      maxLagSeconds,
      standby: false,
      error: describeConnectionError(replicaUrl, err) + " Reads go to the primary.",
    };
  }
}

/** The configured replica's lag, or null without DATABASE_REPLICA_URL. */
export async function replicaLag(): Promise<ReplicaLag | null> {
  const e = env();
  if (!e.DATABASE_REPLICA_URL || !e.DATABASE_URL) return null;
  return measureReplicaLag(e.DATABASE_URL, e.DATABASE_REPLICA_URL, e.VERITY_REPLICA_MAX_LAG);
}

const BANNER_TTL_MS = 5000;
const globalForLag = globalThis as unknown as { verityReplicaLag?: { at: number; lag: Promise<ReplicaLag | null> } };

/** replicaLag() measured at most once per 5 s per process: every console page asks it for the banner. */
export function recentReplicaLag(now = Date.now()): Promise<ReplicaLag | null> {
  const hit = globalForLag.verityReplicaLag;
  if (hit && now - hit.at < BANNER_TTL_MS) return hit.lag;
  const lag = replicaLag();
  globalForLag.verityReplicaLag = { at: now, lag };
  return lag;
}
