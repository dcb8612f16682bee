// `verity db distribute`: turns a migrated database on a Citus coordinator into the layout of docs/scale.md, "Verity
// on Citus". Shared tables become reference tables (a copy on every node); the run-scoped tables stop being
// partitioned by run and are distributed by run_id, co-located with rollouts, so one run's rows of every such table
// are on one worker. All of it in one transaction: it happens entirely or not at all. Each step does only what the
// database lacks: a second call does nothing, and after a migration (which the runner applies to a distributed
// database through lib/db/migrate-distributed.ts, calling distributePending itself) it does what the migration added.
import type pg from "pg";
import { rawClient } from "@/lib/db/raw-client.ts";

/**
 * Copied to every node: shared by all runs, small, referred to by the run-scoped tables. Cases and their versions stay
 * on the coordinator (a Citus local table, as every table with a foreign key to a reference table becomes): a case's
 * first version is written by a trigger on cases, and a trigger on a reference table runs on every node's copy.
 */
export const REFERENCE_TABLES = [
  "users",
  "runs",
  "tool_registries",
  "verifier_configs",
  // Reward functions, their versions and their runs over a run: a few rows each, read beside every result.
  "reward_functions",
  "reward_function_versions",
  "reward_runs",
  // Saved searches: a few per user, global or scoped to a run, read beside the user's own pages.
  "saved_searches",
];

/** Distributed by run_id and co-located with the first (so their foreign keys, which include run_id, hold per shard). */
export const RUN_SCOPED_TABLES = [
  "rollouts",
  "ledger",
  "ledger_guardrails",
  "ledger_reasons",
  "step_rollups",
  "step_guardrail_rollups",
  "group_rollups",
  "reward_results",
  "rollout_search",
  "rollout_search_blocks",
  // A run's counters (040), written by triggers where the rows they count are: on its ledger's worker.
  "run_counters",
  // The words a run's search blocks leave out (046), read beside its blocks.
  "search_omitted_words",
];

/**
 * What audit_items' foreign keys into the ledger and rollouts checked, as a trigger: Citus keeps no foreign key from a
 * table on the coordinator into a distributed one. Those rows are append-only (never deleted but by archive, which
 * refuses a run with audit batches), so checking an item's entries and rollouts when it is written is the whole rule.
 */
const AUDIT_ITEM_ROWS_EXIST = `
CREATE OR REPLACE FUNCTION verity_audit_item_rows_exist() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM "ledger" l WHERE l."run_id" = NEW."run_id" AND l."id" = NEW."ledger_id")
     OR (NEW."ledger_b_id" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "ledger" l WHERE l."run_id" = NEW."run_id" AND l."id" = NEW."ledger_b_id")) THEN
    RAISE EXCEPTION 'audit item %: its ledger entry is not in run %', NEW."id", NEW."run_id" USING ERRCODE = 'foreign_key_violation';
  END IF;
  IF NOT EXISTS (SELECT 1 FROM "rollouts" r WHERE r."run_id" = NEW."run_id" AND r."id" = NEW."rollout_id")
     OR (NEW."rollout_b_id" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "rollouts" r WHERE r."run_id" = NEW."run_id" AND r."id" = NEW."rollout_b_id")) THEN
    RAISE EXCEPTION 'audit item %: its rollout is not in run %', NEW."id", NEW."run_id" USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN NULL;
END $$;
---
CREATE TRIGGER audit_items_rows_exist AFTER INSERT OR UPDATE OF "run_id", "ledger_id", "ledger_b_id", "rollout_id", "rollout_b_id"
  ON "audit_items" FOR EACH ROW EXECUTE FUNCTION verity_audit_item_rows_exist();`;

/**
 * The append-only rule of 014, but for archive: without partitions a run is archived by deleting its rows, so a
 * DELETE of a row of the run that `verity.archiving_run` names (set by archive for its transaction only, with SET
 * LOCAL, which Citus passes on to the workers where the row's trigger runs) is admitted; every other UPDATE, DELETE
 * and TRUNCATE is refused as before.
 */
const APPEND_ONLY_BUT_ARCHIVE = `
CREATE OR REPLACE FUNCTION verity_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  tbl text := coalesce(TG_ARGV[0], TG_TABLE_NAME);
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    RAISE EXCEPTION '% is append-only: it cannot be truncated', tbl;
  END IF;
  IF TG_OP = 'DELETE' THEN
    IF to_jsonb(OLD)->>'run_id' = current_setting('verity.archiving_run', true) THEN
      RETURN OLD;
    END IF;
    RAISE EXCEPTION '% is append-only: rows cannot be deleted', tbl;
  END IF;
  IF tbl = 'ledger' THEN
    IF OLD.is_current AND NOT NEW.is_current
       AND (to_jsonb(NEW) - 'is_current') = (to_jsonb(OLD) - 'is_current') THEN
      RETURN NEW;
    END IF;
  END IF;
  RAISE EXCEPTION '% is append-only: rows cannot be changed', tbl;
END $$`;

/**
 * 028's count of a run's superseding entries, kept row by row on the ledger's shards: the single node's statement
 * trigger reads its transition table, which Citus cannot plan beside a Citus table. The row's worker writes its run's
 * counter on the co-located shard of run_counters (040), on the same worker. Only rows that supersede another call it.
 */
const SUPERSEDING_COUNTER_BY_ROW = `
CREATE OR REPLACE FUNCTION verity_count_superseding_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "run_counters" AS k ("run_id", "superseding_count", "last_superseding_id") VALUES (NEW.run_id, 1, NEW.id)
  ON CONFLICT ("run_id") DO UPDATE SET "superseding_count" = k."superseding_count" + 1,
                                       "last_superseding_id" = greatest(coalesce(k."last_superseding_id", 0), NEW.id);
  RETURN NULL;
END $$
---
CREATE TRIGGER ledger_count_superseding_row AFTER INSERT ON "ledger"
  FOR EACH ROW WHEN (NEW.supersedes_id IS NOT NULL) EXECUTE FUNCTION verity_count_superseding_row()`;

/**
 * Triggers the single-node database has and a distributed one cannot: each makes or checks per-run partitions (the
 * shards are Citus's now, and ledger and rollouts take back their foreign keys on runs), writes another table from a
 * trigger on a shard, where the row's worker cannot reach a table it does not hold, or reads its statement's
 * transition table beside a Citus table, which Citus cannot plan (trajectories takes back its foreign key on runs).
 */
const DROPPED_TRIGGERS: [table: string, trigger: string][] = [
  ["runs", "runs_partitions"],
  ["runs", "runs_keep_rows"],
  ["runs", "runs_reward_partition"],
  ["runs", "runs_search_partition"],
  ["rollouts", "rollouts_record_trajectories"],
  ["ledger", "ledger_record_trajectories"],
  ["ledger", "ledger_count_superseding"],
  ["trajectories", "trajectories_run_exists"],
  ["trajectories", "trajectories_run_exists_update"],
];

/**
 * The enum types' casts to and from text, as IMMUTABLE functions: Prisma names an enum column `"status"::text` in the
 * RETURNING clause of every update and create, and writes an enum as `CAST($1::text AS "Enum")`, and Citus refuses a
 * RETURNING clause, or an upsert's DO UPDATE SET (a cluster's status), with a function that is not IMMUTABLE on a
 * table it manages (an enum's text is enum_out and enum_in, STABLE only because a label can be renamed, which Verity
 * never does). The cast from text is a function whose body was parsed before the cast existed: the I/O conversion.
 */
async function immutableEnumCasts(c: pg.ClientBase): Promise<string[]> {
  // each direction on its own: a database distributed before the cast from text was made has the other one only
  const { rows } = await c.query<{ name: string; to_text: boolean; of_text: boolean }>(
    `select t.typname as name,
            not exists (select 1 from pg_cast k where k.castsource = t.oid and k.casttarget = 'text'::regtype) as to_text,
            not exists (select 1 from pg_cast k where k.castsource = 'text'::regtype and k.casttarget = t.oid) as of_text
       from pg_type t join pg_namespace n on n.oid = t.typnamespace
      where t.typtype = 'e' and n.nspname = 'public'
      order by 1`,
  );
  const made = rows.filter((r) => r.to_text || r.of_text);
  for (const { name, to_text, of_text } of made) {
    if (to_text) {
      const fn = `"verity_${name.toLowerCase()}_text"`;
      await c.query(
        `create or replace function ${fn}(e "${name}") returns text language sql immutable strict parallel safe
           return textin(enum_out(e))`,
      );
      await c.query(`create cast ("${name}" as text) with function ${fn}("${name}")`);
    }
    if (of_text) {
      const from = `"verity_${name.toLowerCase()}_of_text"`;
      await c.query(
        `create or replace function ${from}(t text) returns "${name}" language sql immutable strict parallel safe
           return t::"${name}"`,
      );
      await c.query(`create cast (text as "${name}") with function ${from}(text)`);
    }
  }
  return made.map((r) => r.name);
}

/**
 * The append-only triggers that name no table (the audit tables', the activity log's, the case versions'), re-created
 * with their table's name as argument: a trigger of a table Citus manages runs on its shard, whose name is
 * TG_TABLE_NAME (`case_versions_102029`), and the refusal must name the table. Returns the tables.
 */
async function nameAppendOnlyTriggers(c: pg.ClientBase): Promise<string[]> {
  const { rows } = await c.query<{ table: string; name: string; def: string }>(
    `select r.relname as table, t.tgname as name, pg_get_triggerdef(t.oid) as def
       from pg_trigger t join pg_class r on r.oid = t.tgrelid
      where not t.tgisinternal and t.tgfoid = 'verity_append_only'::regproc and t.tgnargs = 0
      order by 1, 2`,
  );
  for (const t of rows) {
    await c.query(`drop trigger "${t.name}" on "${t.table}"`);
    const named = t.def.replace(/verity_append_only\(\)$/, `verity_append_only('${t.table}')`);
    if (named === t.def) throw new Error(`an append-only trigger distribute cannot read: ${t.def}`);
    await c.query(named);
  }
  return [...new Set(rows.map((t) => t.table))];
}

export type DistributeResult = { changed: boolean; steps: string[] };

/** The database cannot be distributed as it is: nothing was changed. */
export class DistributeRefusedError extends Error {}

/** The database is not on a Citus coordinator: nothing was changed. */
export class NotCitusError extends DistributeRefusedError {}

/**
 * The first migration a database can be distributed at: 040 gave a run's counters a table of their own, which the
 * ledger's shards write (SUPERSEDING_COUNTER_BY_ROW). The migrations after it are applied to the distributed database
 * by the runner (lib/db/migrate-distributed.ts).
 */
export const FIRST_DISTRIBUTABLE = "040_run_counters";

/** Refuses a database migrated to before FIRST_DISTRIBUTABLE, saying what to do. */
async function refuseTooOld(c: pg.ClientBase): Promise<void> {
  const [{ migrated }] = (
    await c.query<{ migrated: boolean }>(`select to_regclass('_prisma_migrations') is not null as migrated`)
  ).rows;
  if (!migrated)
    throw new DistributeRefusedError(
      `the database was never migrated; it can be distributed from ${FIRST_DISTRIBUTABLE} on: run \`npm run db:migrate\` first`,
    );
  const { rows } = await c.query<{ last: string | null }>(
    `select max(migration_name) as last from "_prisma_migrations" where finished_at is not null and rolled_back_at is null`,
  );
  const last = rows[0].last;
  if (last === null || last < FIRST_DISTRIBUTABLE)
    throw new DistributeRefusedError(
      `the database is migrated to ${last ?? "nothing"}; it can be distributed from ${FIRST_DISTRIBUTABLE} on: run \`npm run db:migrate\` first`,
    );
}

type ForeignKey = { table: string; name: string; def: string };

/** Whether the database has the citus extension, and whether the ledger is distributed already. */
async function citusState(c: pg.ClientBase): Promise<{ citus: boolean; distributed: boolean }> {
  const [{ citus }] = (
    await c.query<{ citus: boolean }>(`select exists (select 1 from pg_extension where extname = 'citus') as citus`)
  ).rows;
  if (!citus) return { citus, distributed: false };
  const [{ distributed }] = (
    await c.query<{ distributed: boolean }>(
      `select exists (select 1 from pg_dist_partition where logicalrelid = to_regclass('ledger')) as distributed`,
    )
  ).rows;
  return { citus, distributed };
}

/** Whether the database is distributed (`verity db distribute` ran on it): its migrations then run as on Citus. */
export async function isDistributed(c: pg.ClientBase): Promise<boolean> {
  return (await citusState(c)).distributed;
}

/**
 * The tables of REFERENCE_TABLES and RUN_SCOPED_TABLES that exist and are not yet what they should be (a reference
 * table; distributed by hash of run_id): all of them in a database never distributed, and afterwards those a later
 * migration added (a table the database does not have yet is left to the migration that makes it).
 */
async function pendingTables(c: pg.ClientBase): Promise<{ reference: string[]; runScoped: string[] }> {
  const { rows } = await c.query<{ t: string; done: boolean }>(
    `select t, exists (select 1 from pg_dist_partition p
                        where p.logicalrelid = to_regclass(format('%I', t))
                          and case when t = any($2::text[]) then p.partmethod = 'h' else p.partmethod = 'n' and p.repmodel = 't' end) as done
       from unnest($1::text[]) with ordinality as x(t, n)
      where to_regclass(format('%I', t)) is not null order by n`,
    [[...REFERENCE_TABLES, ...RUN_SCOPED_TABLES], RUN_SCOPED_TABLES],
  );
  const pending = rows.filter((r) => !r.done).map((r) => r.t);
  return {
    reference: pending.filter((t) => REFERENCE_TABLES.includes(t)),
    runScoped: pending.filter((t) => RUN_SCOPED_TABLES.includes(t)),
  };
}

/** The foreign keys from or into `tables` (re-created once every table is in place), dropped. */
async function dropForeignKeysOf(c: pg.ClientBase, tables: string[]): Promise<ForeignKey[]> {
  const { rows } = await c.query<ForeignKey>(
    `select con.conrelid::regclass::text as table, con.conname as name, pg_get_constraintdef(con.oid) as def
       from pg_constraint con
      where con.contype = 'f' and con.conparentid = 0
        and (con.conrelid = any($1::regclass[]) or con.confrelid = any($1::regclass[]))
      order by con.conrelid::regclass::text = 'ledger' desc, 1, 2`,
    [tables],
  );
  for (const fk of rows) await c.query(`alter table ${fk.table} drop constraint "${fk.name}"`);
  return rows;
}

/**
 * One run-scoped table, partitioned by run, made a plain table with the same columns, defaults, keys, indexes,
 * statistics and triggers, and the same rows: a new table is filled from the partitions, the partitioned one dropped
 * (its id sequence kept) and the new one renamed in its place.
 */
async function unpartition(c: pg.ClientBase, table: string): Promise<void> {
  const flat = `${table}__flat`;
  const constraints = await c.query<{ name: string; def: string }>(
    `select conname as name, pg_get_constraintdef(oid) as def from pg_constraint
      where conrelid = $1::regclass and contype in ('p', 'u') order by contype, conname`,
    [table],
  );
  const indexes = await c.query<{ def: string }>(
    `select pg_get_indexdef(i.indexrelid) as def from pg_index i
      where i.indrelid = $1::regclass and not exists (select 1 from pg_constraint con where con.conindid = i.indexrelid)
      order by 1`,
    [table],
  );
  const triggers = await c.query<{ def: string }>(
    `select pg_get_triggerdef(oid) as def from pg_trigger where tgrelid = $1::regclass and not tgisinternal
      order by tgname`,
    [table],
  );
  const sequences = await c.query<{ seq: string; col: string }>(
    `select s.oid::regclass::text as seq, a.attname as col from pg_depend d
       join pg_class s on s.oid = d.objid and s.relkind = 'S'
       join pg_attribute a on a.attrelid = d.refobjid and a.attnum = d.refobjsubid
      where d.refobjid = $1::regclass and d.deptype = 'a'`,
    [table],
  );
  await c.query(
    `create table ${flat} (like ${table} including defaults including constraints including generated
       including identity including statistics including storage)`,
  );
  await c.query(`insert into ${flat} select * from ${table}`);
  for (const s of sequences.rows) await c.query(`alter sequence ${s.seq} owned by none`);
  await c.query(`drop table ${table}`);
  await c.query(`alter table ${flat} rename to ${table}`);
  for (const s of sequences.rows) await c.query(`alter sequence ${s.seq} owned by ${table}."${s.col}"`);
  for (const k of constraints.rows) await c.query(`alter table ${table} add constraint "${k.name}" ${k.def}`);
  for (const i of indexes.rows) await c.query(i.def.replace(/ ON ONLY /, " ON "));
  for (const t of triggers.rows) await c.query(t.def);
}

/**
 * The settings of a distributing transaction (SET LOCAL, made at its start) and of every later session of the
 * database (ALTER DATABASE, the same values each time).
 */
export async function distributingSettings(c: pg.ClientBase): Promise<void> {
  // Distributing several tables in one transaction needs Citus to use one connection per worker throughout.
  await c.query("set local citus.multi_shard_modify_mode to 'sequential'");
  // Row triggers that only read their row (append-only refusals, the rollups' writer check, the successor check
  // of the row's own shard) are created on every shard with the table.
  await c.query("set local citus.enable_unsafe_triggers to on");
  // A transaction that reads several shards and then writes a reference table (an ingest batch: its lookups by
  // trajectory id, then runs) must keep one connection per worker: every session of this database does so.
  const [{ name }] = (await c.query<{ name: string }>("select current_database() as name")).rows;
  await c.query(`alter database "${name}" set citus.multi_shard_modify_mode to 'sequential'`);
  // The rollups' writer marks its transaction with SET LOCAL verity.rollup_writer (lib/ledger/store/rollups.ts); the
  // shards' triggers that check it run on the workers, which see a SET LOCAL only when Citus passes it on.
  await c.query(`alter database "${name}" set citus.propagate_set_commands to 'local'`);
  // Distributing a table copies its rows into its shards, whose triggers are then in place: the rollups' rows
  // are copied as their writer's (the ledger's append-only triggers refuse updates and deletes, not inserts).
  await c.query("set local citus.propagate_set_commands to 'local'");
  await c.query("set local verity.rollup_writer = 'on'");
}

/** The triggers of DROPPED_TRIGGERS the database has (again: a migration may have made one anew), dropped. */
async function dropTriggers(c: pg.ClientBase): Promise<string[]> {
  const { rows } = await c.query<{ table: string; name: string }>(
    `select r.relname as table, t.tgname as name from pg_trigger t join pg_class r on r.oid = t.tgrelid
      where (r.relname, t.tgname) in (select * from unnest($1::text[], $2::text[])) order by 1, 2`,
    [DROPPED_TRIGGERS.map((t) => t[0]), DROPPED_TRIGGERS.map((t) => t[1])],
  );
  for (const t of rows) await c.query(`drop trigger "${t.name}" on "${t.table}"`);
  return rows.map((t) => t.name);
}

/** Whether the append-only rule admits archive's DELETE (APPEND_ONLY_BUT_ARCHIVE, not 014's own rule). */
async function archiveAdmitted(c: pg.ClientBase): Promise<boolean> {
  const { rows } = await c.query<{ ok: boolean }>(
    `select prosrc like '%verity.archiving_run%' as ok from pg_proc where proname = 'verity_append_only'`,
  );
  return rows[0]?.ok ?? false;
}

/** The rules only a distributed ledger needs, made with it: audit items' rows checked, superseding entries counted. */
async function ledgerRules(c: pg.ClientBase, step: (s: string) => void): Promise<void> {
  // One statement at a time: Citus passes a function's creation on to the workers as the text it was sent.
  for (const sql of AUDIT_ITEM_ROWS_EXIST.split("\n---\n")) await c.query(sql);
  for (const sql of SUPERSEDING_COUNTER_BY_ROW.split("\n---\n")) await c.query(sql);
  step("superseding entries counted row by row on the ledger's shards, into their run's counters beside them");
  for (const t of ["rollouts", "ledger", "trajectories"])
    await c.query(
      `alter table ${t} add constraint "${t}_run_id_fkey" foreign key (run_id) references runs(id) on delete restrict`,
    );
}

/**
 * Makes the tables of `pending` what docs/scale.md says they are: their foreign keys dropped, partitioned ones made
 * plain, reference tables copied to every node, run-scoped ones distributed by run_id and co-located with rollouts,
 * and the foreign keys among the run-scoped tables made again.
 */
async function distributeTables(
  c: pg.ClientBase,
  pending: { reference: string[]; runScoped: string[] },
  step: (s: string) => void,
): Promise<void> {
  const foreignKeys = await dropForeignKeysOf(c, pending.runScoped);
  for (const t of await partitioned(c)) await unpartition(c, t);
  if (pending.runScoped.length) step(`unpartitioned ${pending.runScoped.join(", ")}`);
  for (const t of pending.reference) await c.query(`select create_reference_table($1)`, [t]);
  if (pending.reference.length) step(`reference tables: ${pending.reference.join(", ")}`);
  const anchor = RUN_SCOPED_TABLES[0];
  for (const t of pending.runScoped)
    await c.query(`select create_distributed_table($1, 'run_id', colocate_with => $2)`, [
      t,
      t === anchor ? "none" : anchor,
    ]);
  if (pending.runScoped.length) step(`distributed by run_id, co-located: ${pending.runScoped.join(", ")}`);
  // ON UPDATE CASCADE cannot be kept on a key holding the distribution column (Citus refuses it); it never moved a
  // row anyway (the run-scoped rows are append-only, and a run's id cannot change while it has rows).
  const kept = foreignKeys.filter((fk) => RUN_SCOPED_TABLES.includes(fk.table));
  for (const fk of kept)
    await c.query(`alter table ${fk.table} add constraint "${fk.name}" ${fk.def.replace(/ ON UPDATE CASCADE/, "")}`);
  if (foreignKeys.length)
    step(
      `foreign keys between the run-scoped tables restored (${kept.length}); ` +
        `from the coordinator's tables into them (${foreignKeys.length - kept.length}) checked by a trigger`,
    );
}

/**
 * Everything `verity db distribute` does that the database still lacks, in the caller's transaction: each step does
 * only what is not done yet, so on a database distributed before a migration it distributes the tables the migration
 * added and undoes what the migration made that Citus cannot keep (the triggers of DROPPED_TRIGGERS, append-only
 * triggers that do not name their table). Answers the tables it distributed. The transaction has distributingSettings.
 */
export async function distributePending(c: pg.ClientBase, step: (s: string) => void): Promise<string[]> {
  const enums = await immutableEnumCasts(c);
  if (enums.length)
    step(`enum casts to and from text made IMMUTABLE (Prisma's RETURNING and upserts): ${enums.join(", ")}`);
  if (!(await archiveAdmitted(c))) {
    await c.query(APPEND_ONLY_BUT_ARCHIVE);
    step("append-only rule: a DELETE admitted for the run being archived (archive deletes a run's rows)");
  }
  const named = await nameAppendOnlyTriggers(c);
  if (named.length) step(`append-only triggers named by their table: ${named.join(", ")}`);
  const dropped = await dropTriggers(c);
  if (dropped.length) step(`dropped the triggers a distributed database cannot keep: ${dropped.join(", ")}`);
  const pending = await pendingTables(c);
  const ledgerPending = pending.runScoped.includes("ledger");
  await distributeTables(c, pending, step);
  if (ledgerPending) await ledgerRules(c, step);
  return [...pending.reference, ...pending.runScoped];
}

/**
 * ANALYZE of `tables` (Citus passes it on to each of their shards). A shard is a new table: until autovacuum reaches
 * it (a while on a busy node, minutes for a large one) it has no statistics, and the workers plan a run's first page
 * as if it had a few dozen rows (a bitmap scan of the whole run and a sort instead of the run's key order read by its
 * index: 40 ms instead of 0.1 ms for the demo's run, more with the run's size).
 */
export async function analyzeTables(c: pg.ClientBase, tables: string[]): Promise<void> {
  for (const t of tables) await c.query(`analyze "${t}"`);
}

/**
 * Distributes the database at `url` (migrated, on a Citus coordinator with its workers added), in one transaction:
 * entirely or not at all. Refuses a database without the citus extension; on one already distributed it does what a
 * migration since has left to do (distributePending), usually nothing.
 */
export async function distributeDatabase(
  url: string,
  log: (line: string) => void = () => {},
): Promise<DistributeResult> {
  const c = rawClient({ connectionString: url });
  await c.connect();
  const steps: string[] = [];
  const step = (s: string) => {
    steps.push(s);
    log(s);
  };
  try {
    await c.query("set client_min_messages = warning");
    const state = await citusState(c);
    if (!state.citus)
      throw new NotCitusError(
        "the database has no citus extension: `verity db distribute` runs on a Citus coordinator (CREATE EXTENSION citus, workers added with citus_add_node)",
      );
    if (!state.distributed) await refuseTooOld(c);
    await c.query("begin");
    let tables: string[];
    try {
      await distributingSettings(c);
      tables = await distributePending(c, step);
      await c.query("commit");
    } catch (err) {
      await c.query("rollback").catch(() => undefined);
      throw err;
    }
    if (state.distributed && steps.length === 0)
      return { changed: false, steps: ["already distributed: nothing to do"] };
    // The first time, every table Citus manages (the coordinator's own, cases among them, as well).
    if (!state.distributed) tables = await citusTables(c);
    await analyzeTables(c, tables);
    step("statistics gathered on every shard (ANALYZE, which Citus passes on to each)");
    return { changed: true, steps };
  } finally {
    await c.end();
  }
}

async function citusTables(c: pg.ClientBase): Promise<string[]> {
  const { rows } = await c.query<{ t: string }>(
    `select logicalrelid::regclass::text as t from pg_dist_partition order by 1`,
  );
  return rows.map((r) => r.t.replace(/^"|"$/g, ""));
}

async function partitioned(c: pg.ClientBase): Promise<string[]> {
  const { rows } = await c.query<{ t: string }>(
    `select relname as t from pg_class where relkind = 'p' and relname = any($1) order by 1`,
    [RUN_SCOPED_TABLES],
  );
  return rows.map((r) => r.t);
}
