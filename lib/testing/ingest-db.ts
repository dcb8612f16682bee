// Helpers shared by the ingest, ledger and rollup integration tests and the benchmark: a fresh migrated database,
// NDJSON bodies, and a comparable picture of a ledger (ids and timestamps left out).
import pg from "pg";
import { distributeDatabase } from "@/lib/db/distribute.ts";
import { migrate } from "@/lib/db/migrate.ts";
import { createScratchDatabase, ON_CITUS } from "@/lib/testing/scratch-db.ts";
import { ingestStream, type IngestOptions } from "@/lib/ingest/ingest.ts";
import type { IngestSummary } from "@/lib/ingest/schema.ts";

export type TestDatabase = { url: string; pool: pg.Pool; drop: () => Promise<void> };

/** A new database with every migration applied (and distributed, on a Citus cluster), and a pool on it. */
export async function freshDatabase(prefix: string): Promise<TestDatabase> {
  const scratch = await createScratchDatabase(prefix);
  await migrate(scratch.url);
  if (ON_CITUS) await distributeDatabase(scratch.url);
  const pool = new pg.Pool({ connectionString: scratch.url, max: 4 });
  pool.on("error", () => undefined);
  return {
    url: scratch.url,
    pool,
    drop: async () => {
      await pool.end().catch(() => undefined);
      await scratch.drop();
    },
  };
}

export function ndjson(values: unknown[]): string {
  return values.map((v) => (typeof v === "string" ? v : JSON.stringify(v))).join("\n") + "\n";
}

/** Feeds a body in small chunks (so lines and characters straddle chunk boundaries, as over a network). */
export async function* chunked(text: string | Buffer, size = 997): AsyncGenerator<Uint8Array> {
  const buf = typeof text === "string" ? Buffer.from(text, "utf8") : text;
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

export async function ingestText(
  pool: pg.Pool,
  text: string,
  opts: Partial<IngestOptions> = {},
): Promise<IngestSummary> {
  return ingestStream(chunked(text), { pool, ...opts });
}

/** Every ledger entry of a run as comparable rows: all columns but ids, timestamps and the rollout link. */
export async function ledgerPicture(
  pool: pg.Pool,
  runId: string,
  currentOnly = true,
): Promise<Record<string, unknown>[]> {
  const { rows } = await pool.query(
    `select trajectory_id, run_id, step, ticket_id, group_id, category, status::text, source::text, verifier_version,
            config_hash, claims_source, raw_reward, reward, capped, outcome, policy, evidence, efficiency, communication,
            deciding_guardrail, guardrail_mask, guardrails, reasons, claims, handoff, tool_steps, trained_reward, is_current, content_hash,
            (supersedes_id is not null) as supersedes,
            (select coalesce(json_agg(json_build_object('code', g.code, 'cap', g.cap, 'deciding', g.deciding) order by g.code), '[]')
               from ledger_guardrails g where g.run_id = l.run_id and g.ledger_id = l.id) as narrow_guardrails,
            (select coalesce(json_agg(json_build_object('ord', r.ord, 'code', r.code, 'dimension', r.dimension,
                                                        'guardrail', r.guardrail, 'tool', r.tool, 'field', r.field) order by r.ord), '[]')
               from ledger_reasons r where r.run_id = l.run_id and r.ledger_id = l.id) as narrow_reasons
       from ledger l where run_id = $1 ${currentOnly ? "and is_current" : ""}
      order by trajectory_id, id`,
    [runId],
  );
  return rows;
}

export async function count(pool: pg.Pool, sql: string, params: unknown[] = []): Promise<number> {
  const { rows } = await pool.query<{ n: string }>(`select count(*)::text as n from (${sql}) q`, params);
  return Number(rows[0].n);
}
