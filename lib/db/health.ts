import { rawClient } from "@/lib/db/raw-client.ts";
import { describeConnectionError } from "@/lib/db/describe-error.ts";
import { migrationStatus } from "@/lib/db/migrate.ts";
import { replicaLag, type ReplicaLag } from "@/lib/db/replica-lag.ts";
import { env } from "@/lib/env.ts";

export type Health = {
  ok: boolean;
  database: "reachable" | "unreachable";
  migrations: { current: boolean; applied: number; pending: string[]; edited: string[]; unknown: string[] } | null;
  error?: string;
  /**
   * Only with DATABASE_REPLICA_URL. Its state does not change `ok`: a replica that is down or behind costs the
   * console nothing but freshness (reads fall back to the primary), so the console stays healthy.
   */
  replica?: ReplicaLag;
};

/** Database reachable and every migration of this build applied (and unedited). */
export async function checkHealth(): Promise<Health> {
  const [primary, replica] = await Promise.all([checkPrimary(), replicaLag()]);
  return replica ? { ...primary, replica } : primary;
}

async function checkPrimary(): Promise<Health> {
  const url = env().DATABASE_URL;
  if (!url) return { ok: false, database: "unreachable", migrations: null, error: "DATABASE_URL is not set." };
  const client = rawClient({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
  } catch (err) {
    return { ok: false, database: "unreachable", migrations: null, error: describeConnectionError(url, err) };
  }
  try {
    const s = await migrationStatus(client);
    const current = s.pending.length === 0 && s.edited.length === 0 && s.unknown.length === 0;
    return {
      ok: current,
      database: "reachable",
      migrations: {
        current,
        applied: s.applied.length,
        pending: s.pending,
        edited: s.edited.map((e) => e.name),
        unknown: s.unknown,
      },
      ...(current ? {} : { error: "Migrations are not current: run `npm run db:migrate`." }),
    };
  } finally {
    await client.end();
  }
}
