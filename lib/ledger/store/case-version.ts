// The one write of a case revision (migration 018): the next version is appended to case_versions and the cases row
// advances to it, in the caller's transaction (which holds LEDGER_WRITE_LOCK, so the version read is the latest and
// no ingest batch or re-score interleaves). The database refuses any other change to cases.
import type pg from "pg";
import type { CaseRow } from "@/lib/ledger/store/rows.ts";

/** What a revision answers: adjudications (their ids) and/or a cluster (its key, as the clusters report names it). */
export type CaseAnswers = { adjudicationIds?: bigint[]; cluster?: string };

/** The `"revision"` marker of an ingest case line, parsed (lib/cases/schema.ts revisionMarkerSchema). */
export type RevisionMarker = { reason: string; answers?: CaseAnswers };

export type VersionMeta = { reason: string; authorId?: number | null; answers?: CaseAnswers };

export async function writeCaseVersion(
  client: pg.PoolClient,
  row: CaseRow,
  version: number,
  meta: VersionMeta,
): Promise<void> {
  // The case's own columns, in the order both statements take them ($1–$8).
  const columns = [
    row.ticket_id,
    version,
    row.category,
    row.customer_id,
    row.ticket,
    row.env_snapshot,
    row.verifier_spec,
    row.content_hash,
  ];
  await client.query(
    `insert into case_versions (ticket_id, version, category, customer_id, ticket, env_snapshot, verifier_spec,
                                content_hash, author_id, reason, answers_adjudication_ids, answers_cluster)
     values ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7::jsonb, $8, $9, $10, $11::bigint[], $12)`,
    [
      ...columns,
      meta.authorId ?? null,
      meta.reason,
      (meta.answers?.adjudicationIds ?? []).map(String),
      meta.answers?.cluster ?? null,
    ],
  );
  const r = await client.query(
    `update cases set version = $2, category = $3, customer_id = $4, ticket = $5::jsonb, env_snapshot = $6::jsonb,
            verifier_spec = $7::jsonb, content_hash = $8
      where ticket_id = $1 and version = $2 - 1`,
    columns,
  );
  if (r.rowCount !== 1) throw new Error(`case ${row.ticket_id} is not at version ${version - 1} any more`);
}
