// What the benches share around their databases: the embedded server with a named bench database on it, the rollup
// recount for rows a bench copied into the ledger without ingest, and the load average each bench prints.
import os from "node:os";
import pg from "pg";
import { createDatabaseIfMissing, ensureDatabase } from "@/lib/db/embedded.ts";
import { migrate } from "@/lib/db/migrate.ts";

/**
 * The embedded server (`database`, to stop at the end), a connected admin client, the address of the bench database
 * `name` on it and whether that database exists already.
 */
export async function benchDatabase(name: string) {
  const database = await ensureDatabase("postgres");
  const u = new URL(database.adminUrl);
  u.pathname = `/${name}`;
  const admin = new pg.Client({ connectionString: database.adminUrl });
  await admin.connect();
  const exists = (await admin.query("select 1 from pg_database where datname = $1", [name])).rowCount === 1;
  return { database, admin, url: u.toString(), exists };
}

/**
 * The bench database `name`, made afresh when `rebuild` is asked or it does not exist, and migrated; `fresh` when it
 * was made here (its data is to be built).
 */
export async function migratedBenchDatabase(name: string, rebuild: boolean) {
  const { database, admin, url, exists } = await benchDatabase(name);
  const fresh = rebuild || !exists;
  if (fresh) {
    await admin.query(`drop database if exists "${name}" with (force)`);
    await createDatabaseIfMissing(database.adminUrl, name);
  }
  await admin.end();
  await migrate(url);
  return { database, url, fresh };
}

/**
 * A run's step rollups recounted from its current ledger rows, as ingest would have kept them: for rows a bench
 * copied in bypassing ingest. As the rollups' writer (they refuse other changes, migration 034).
 */
export async function recountRollups(c: pg.ClientBase, run: string): Promise<void> {
  await c.query("select set_config('verity.rollup_writer', 'on', false)");
  await c.query("delete from step_rollups where run_id = $1", [run]);
  await c.query(
    `insert into step_rollups (run_id, step, rollouts, rewarded, reward_sum, reward_sumsq, success, handoffs, guardrail_hits,
                               capped, removed_sum, spec_errors, input_errors, external, trained, trained_differs,
                               trained_abs_diff_sum)
     select run_id, step, count(*), count(reward), coalesce(sum(reward), 0), coalesce(sum(reward * reward), 0),
            count(*) filter (where reward >= 0.9), count(*) filter (where handoff), count(*) filter (where guardrail_mask <> 0),
            count(*) filter (where capped), coalesce(sum(raw_reward - reward) filter (where capped), 0),
            count(*) filter (where status = 'spec_error'), count(*) filter (where status = 'input_error'),
            count(*) filter (where source = 'external'), count(*) filter (where trained_reward is not null and reward is not null),
            count(*) filter (where abs(trained_reward - reward) > 1e-6),
            coalesce(sum(abs(trained_reward - reward)) filter (where reward is not null), 0)
       from ledger where run_id = $1 and is_current group by run_id, step`,
    [run],
  );
}

/** The machine's load averages (1, 5, 15 minutes), for a bench's lines. */
export const loadAverage = () =>
  `load ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}`;

/**
 * What a browser bench filters on in a run: 60 rollouts at random, its rarest reason code, its commonest reason
 * signature with a tool (code + tool + field, as a cluster's level-2 link selects it), and `top`, the largest level-2
 * cluster at the default threshold (a deciding guardrail and its commonest reason signature), counted over every
 * `every`-th entry.
 */
export async function browseProbes(c: pg.ClientBase, run: string, { every = 1 }: { every?: number } = {}) {
  const sample = (
    await c.query<{ trajectory_id: string; ticket_id: string; category: string }>(
      "select trajectory_id, ticket_id, category from ledger where run_id = $1 and is_current order by random() limit 60",
      [run],
    )
  ).rows;
  const rare =
    (
      await c.query<{ code: string }>(
        "select code from ledger_reasons where run_id = $1 group by code order by count(*) limit 1",
        [run],
      )
    ).rows[0]?.code ?? "over_step_budget";
  const signature = (
    await c.query<{ code: string; tool: string | null; field: string | null }>(
      "select code, tool, field from ledger_reasons where run_id = $1 and tool is not null group by 1, 2, 3 order by count(*) desc limit 1",
      [run],
    )
  ).rows[0];
  const top = (
    await c.query<{ deciding: string; code: string; tool: string | null; field: string | null }>(
      `select l.deciding_guardrail as deciding, r.code, r.tool, r.field
         from ledger l join ledger_reasons r on r.run_id = l.run_id and r.ledger_id = l.id
        where l.run_id = $1 and l.is_current and l.reward < 0.5 and l.deciding_guardrail is not null and l.id % $2 = 0
        group by 1, 2, 3, 4 order by count(*) desc limit 1`,
      [run, every],
    )
  ).rows[0];
  return { sample, rare, signature, top };
}

/**
 * Copies the first `need` entries of the temporary table `src` (ledger rows of run `from`) into run `run`, each with
 * its guardrail and reason rows and a copy of its rollout, or (`shareRollouts`) pointing at the source's rollout;
 * the copies' trajectory and group ids get `#<tag>`.
 */
export async function copySourceEntries(
  c: pg.ClientBase,
  {
    tag,
    need,
    run,
    from,
    shareRollouts = false,
  }: { tag: string; need: number; run: string; from: string; shareRollouts?: boolean },
): Promise<void> {
  const rollouts = shareRollouts
    ? ""
    : `ro as (
       insert into rollouts (trajectory_id, run_id, step, group_id, sample_index, ticket_id, steps, final_reply, sandbox,
                             registry_id, claims, tool_steps, content_hash, trained_reward)
       select r.trajectory_id || '#' || $1, $3, r.step, r.group_id || '#' || $1, r.sample_index, r.ticket_id, r.steps,
              r.final_reply, r.sandbox, r.registry_id, r.claims, r.tool_steps, r.content_hash, r.trained_reward
         from pick s join rollouts r on r.run_id = $4 and r.id = s.rollout_id
       returning id, trajectory_id),`;
  await c.query(
    `with pick as (select * from src order by id limit $2),
     ${rollouts}
     ins as (
       insert into ledger (trajectory_id, rollout_id, run_id, step, ticket_id, group_id, category, status, source,
                           verifier_version, config_hash, claims_source, raw_reward, reward, capped, outcome, policy,
                           evidence, efficiency, communication, deciding_guardrail, guardrail_mask, guardrails, reasons,
                           claims, handoff, tool_steps, content_hash, trained_reward)
       select s.trajectory_id || '#' || $1, ${shareRollouts ? "s.rollout_id" : "ro.id"}, $3, s.step, s.ticket_id,
              s.group_id || '#' || $1, s.category, s.status, s.source, s.verifier_version, s.config_hash, s.claims_source,
              s.raw_reward, s.reward, s.capped, s.outcome, s.policy, s.evidence, s.efficiency, s.communication,
              s.deciding_guardrail, s.guardrail_mask, s.guardrails, s.reasons, s.claims, s.handoff, s.tool_steps,
              s.content_hash, s.trained_reward
         from pick s ${shareRollouts ? "" : "left join ro on ro.trajectory_id = s.trajectory_id || '#' || $1"}
       returning id, trajectory_id),
     pairs as (select i.id as new_id, s.id as old_id from ins i join pick s on s.trajectory_id || '#' || $1 = i.trajectory_id),
     g as (insert into ledger_guardrails (ledger_id, run_id, step, code, cap, deciding)
           select p.new_id, $3, lg.step, lg.code, lg.cap, lg.deciding
             from pairs p join ledger_guardrails lg on lg.run_id = $4 and lg.ledger_id = p.old_id)
     insert into ledger_reasons (ledger_id, ord, run_id, step, dimension, guardrail, code, tool, field)
     select p.new_id, lr.ord, $3, lr.step, lr.dimension, lr.guardrail, lr.code, lr.tool, lr.field
       from pairs p join ledger_reasons lr on lr.run_id = $4 and lr.ledger_id = p.old_id`,
    [tag, need, run, from],
  );
}

/** A bench option that must be a whole number of at least `min`, or the bench stops naming it (never a NaN run). */
export function wholeOption(name: string, text: string | undefined, min = 1): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min)
    throw new Error(`--${name}: a whole number of at least ${min}, got ${JSON.stringify(text)}`);
  return n;
}
