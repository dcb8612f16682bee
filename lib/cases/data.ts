// Reads of cases and their versions (migration 018), and of the rollouts of one ticket, for the workbench, the CLI and
// the re-score of a revised case. Explicit ids in, plain rows out; callers check the role first.
import type pg from "pg";
import { caseFromColumns } from "@/lib/ledger/store/rows.ts";
import type { RolloutRowDb } from "@/lib/ledger/store/rows.ts";
import { DEFAULT_CONFIG, configHash, parseVerifierConfig, type VerifierConfig } from "@/lib/verifier/config.ts";
import type { Case } from "@/lib/verifier/schema.ts";

export type StoredCase = {
  ticketId: string;
  category: string;
  version: number;
  contentHash: string;
  /** The current version as a wire case (what the verifier scores with). */
  doc: Case;
};

export async function getCase(
  pool: pg.Pool | pg.PoolClient,
  ticketId: string,
  lock = false,
): Promise<StoredCase | null> {
  const { rows } = await pool.query<{
    ticket_id: string;
    category: string;
    version: number;
    content_hash: string;
    ticket: unknown;
    env_snapshot: unknown;
    verifier_spec: unknown;
  }>(
    `select ticket_id, category, version, content_hash, ticket, env_snapshot, verifier_spec
       from cases where ticket_id = $1 ${lock ? "for update" : ""}`,
    [ticketId],
  );
  const r = rows[0];
  if (!r) return null;
  return {
    ticketId: r.ticket_id,
    category: r.category,
    version: r.version,
    contentHash: r.content_hash,
    doc: caseFromColumns(r),
  };
}

export type CaseVersionRow = {
  version: number;
  contentHash: string;
  reason: string;
  author: string | null;
  answersAdjudicationIds: string[];
  answersCluster: string | null;
  createdAt: Date;
  verifierSpec: unknown;
  envSnapshot: unknown;
};

/** Every version of a case, newest first (a case has a handful: no pagination needed). */
export async function listCaseVersions(pool: pg.Pool, ticketId: string): Promise<CaseVersionRow[]> {
  const { rows } = await pool.query<{
    version: number;
    content_hash: string;
    reason: string;
    author: string | null;
    answers_adjudication_ids: string[] | null;
    answers_cluster: string | null;
    created_at: Date;
    verifier_spec: unknown;
    env_snapshot: unknown;
  }>(
    `select v.version, v.content_hash, v.reason, u.email as author, v.answers_adjudication_ids::text[] as answers_adjudication_ids,
            v.answers_cluster, v.created_at, v.verifier_spec, v.env_snapshot
       from case_versions v left join users u on u.id = v.author_id
      where v.ticket_id = $1 order by v.version desc`,
    [ticketId],
  );
  return rows.map((r) => ({
    version: r.version,
    contentHash: r.content_hash,
    reason: r.reason,
    author: r.author,
    answersAdjudicationIds: r.answers_adjudication_ids ?? [],
    answersCluster: r.answers_cluster,
    createdAt: r.created_at,
    verifierSpec: r.verifier_spec,
    envSnapshot: r.env_snapshot,
  }));
}

/** A ticket's rollout with its current ledger entry's config hash and case version (null: no current entry). */
export type TicketRollout = RolloutRowDb & { config_hash: string | null };

/**
 * The rollouts of one ticket that have a current ledger entry, run by run (each probe on that run's partition), in
 * pages of `pageSize`: a ticket has a few hundred rollouts per run, a bulk fix many tickets, and neither is held
 * whole.
 */
export async function* ticketRollouts(
  pool: pg.Pool,
  ticketId: string,
  opts: { runId?: string; pageSize?: number } = {},
): AsyncGenerator<TicketRollout[]> {
  const runs = opts.runId
    ? [opts.runId]
    : (
        await pool.query<{ run_id: string }>(
          "select distinct run_id from ledger where ticket_id = $1 and is_current order by run_id",
          [ticketId],
        )
      ).rows.map((r) => r.run_id);
  for (const runId of runs) {
    let after = "0";
    for (;;) {
      // Through the ledger's ticket index (020 dropped rollouts' own): a rollout with no current entry (its case
      // arrived after it, `verity rescore` scores it) is not among them.
      const { rows } = await pool.query<TicketRollout>(
        `select r.id::text as id, r.trajectory_id, r.run_id, r.step, r.group_id, r.sample_index, r.ticket_id, r.steps,
                r.final_reply, r.sandbox, r.claims, t.tools, r.trained_reward, l.config_hash
           from ledger l
           join rollouts r on r.run_id = l.run_id and r.id = l.rollout_id
           join tool_registries t on t.id = r.registry_id
          where l.run_id = $1 and l.ticket_id = $2 and l.is_current and l.rollout_id > $3::bigint
          order by l.rollout_id limit $4`,
        [runId, ticketId, after, opts.pageSize ?? 500],
      );
      if (rows.length === 0) break;
      yield rows;
      after = rows[rows.length - 1].id;
    }
  }
}

/**
 * The verifier configs by hash: the built-in default and every stored one. A ticket's rollouts are re-scored under
 * the config their current entry was scored with, so that a revised case changes only what the case decides.
 */
export async function configsByHash(pool: pg.Pool): Promise<Map<string, VerifierConfig>> {
  const out = new Map<string, VerifierConfig>([[configHash(DEFAULT_CONFIG), DEFAULT_CONFIG]]);
  const { rows } = await pool.query<{ body: unknown }>("select body from verifier_configs");
  for (const r of rows) {
    const c = parseVerifierConfig(r.body);
    if (c.ok) out.set(configHash(c.config), c.config);
  }
  return out;
}

/**
 * The adjudication a revision answers, checked: it exists, and its item is a rollout of this ticket (a revision of one
 * case cannot answer a dispute about another).
 */
export async function answeredAdjudication(
  pool: pg.Pool,
  id: bigint,
  ticketId: string,
): Promise<{ ok: true; id: bigint } | { ok: false; error: string }> {
  const { rows } = await pool.query<{ ticket_id: string }>(
    "select i.ticket_id from adjudications a join audit_items i on i.id = a.item_id where a.id = $1::bigint",
    [id.toString()],
  );
  if (!rows[0]) return { ok: false, error: `No adjudication #${id}.` };
  if (rows[0].ticket_id !== ticketId)
    return { ok: false, error: `Adjudication #${id} is about ${rows[0].ticket_id}, not ${ticketId}.` };
  return { ok: true, id };
}
