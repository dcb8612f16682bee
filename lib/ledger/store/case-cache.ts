// The cases an ingest has seen: those in the database and those earlier in the same body. Rollouts are scored
// against them, score records take their ticket category from them. Bounded (least recently used out), because a
// body can name more tickets than memory should hold; an evicted case is simply read from the database again.
import type pg from "pg";
import { caseFromColumns, caseRow, type CaseRow } from "@/lib/ledger/store/rows.ts";
import { caseSchema, type Case } from "@/lib/verifier/schema.ts";

export type KnownCase = {
  doc: Case;
  hash: string;
  category: string;
  /** The case version (018): the stored one, or for a revision earlier in this body the one it will become. */
  version: number;
  /** Read from the database (committed), as opposed to seen earlier in this body (committed with its batch). */
  stored: boolean;
};

const DEFAULT_CAPACITY = 20_000;

export class CaseCache {
  private readonly map = new Map<string, KnownCase>();
  constructor(private readonly capacity = DEFAULT_CAPACITY) {}

  get(ticketId: string): KnownCase | undefined {
    const hit = this.map.get(ticketId);
    if (hit) {
      // Map keeps insertion order: re-inserting marks the entry most recently used.
      this.map.delete(ticketId);
      this.map.set(ticketId, hit);
    }
    return hit;
  }

  has(ticketId: string): boolean {
    return this.map.has(ticketId);
  }

  set(ticketId: string, known: KnownCase): void {
    this.map.delete(ticketId);
    this.map.set(ticketId, known);
    while (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value as string);
  }

  /** Adds a case seen in the body, keyed by its ticket. */
  remember(doc: Case, row: CaseRow = caseRow(doc), version = 1): KnownCase {
    const known = { doc, hash: row.content_hash, category: row.category, version, stored: false };
    this.set(doc.ticket.id, known);
    return known;
  }

  /**
   * Reads the cases of the given tickets that are not cached yet. Cases in the database were validated when they
   * were stored; they are parsed again only to obtain the verifier's normalised form (defaults applied).
   */
  async load(client: pg.Pool | pg.PoolClient, ticketIds: Iterable<string>): Promise<void> {
    const missing = [...new Set(ticketIds)].filter((t) => !this.map.has(t));
    if (missing.length === 0) return;
    const { rows } = await client.query<{
      ticket_id: string;
      ticket: unknown;
      env_snapshot: unknown;
      verifier_spec: unknown;
      content_hash: string;
      category: string;
      version: number;
    }>(
      `select ticket_id, ticket, env_snapshot, verifier_spec, content_hash, category, version
         from cases where ticket_id = any($1::text[])`,
      [missing],
    );
    for (const r of rows) {
      const parsed = caseSchema.safeParse(caseFromColumns(r));
      const doc = parsed.success ? parsed.data : caseFromColumns(r);
      this.set(r.ticket_id, { doc, hash: r.content_hash, category: r.category, version: r.version, stored: true });
    }
  }
}
