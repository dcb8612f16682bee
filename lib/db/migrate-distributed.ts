// A migration on a database already distributed on Citus (docs/scale.md, "Upgrading"). The migrations are written for
// one node, where the run-scoped tables are partitioned by run; `verity db distribute` made them plain tables
// distributed by run_id. So the runner applies such a migration statement by statement: a statement that makes the
// runs' partitions (a call over `runs` of a function that attaches partitions) has nothing to do on Citus, where a run's
// rows are in its shards, and the tables the migration has made by then are distributed in its place (its data
// conversions that follow then write distributed tables); a data conversion called over `runs` the same way is
// called for each run from the coordinator's session; every other statement runs as written. After the last one,
// distribute's remaining steps (distributePending) handle what the migration added: its new tables distributed or
// made reference tables, the triggers Citus cannot keep dropped again, its append-only triggers named by table.
import type pg from "pg";
import { distributePending, distributingSettings } from "@/lib/db/distribute.ts";
import { splitSqlStatements, stripComments } from "@/lib/db/sql-statements.ts";

/** `select f(id) from "runs"` and the like: one call of a function per run. Answers the function's name. */
const PER_RUN_CALL = /^select\s+"?([a-z_][a-z0-9_]*)"?\s*\(\s*"?id"?\s*\)\s+from\s+"?runs"?$/i;

/**
 * What a statement that calls a function once per run is: "partitions" when the function's body attaches a partition
 * (it makes the runs' partitions), "conversion" otherwise (a data conversion run by run); null for any other statement.
 */
async function perRunCall(
  c: pg.ClientBase,
  statement: string,
): Promise<{ fn: string; kind: "partitions" | "conversion" } | null> {
  const call = PER_RUN_CALL.exec(stripComments(statement).trim());
  if (!call) return null;
  const fn = call[1].toLowerCase();
  const { rows } = await c.query<{ attaches: boolean }>(
    `select exists (select 1 from pg_proc where proname = $1 and prosrc ~* 'attach\\s+partition|partition\\s+of') as attaches`,
    [fn],
  );
  return { fn, kind: rows[0].attaches ? "partitions" : "conversion" };
}

/**
 * The function called once per run from the coordinator's own session: over `runs`, a reference table, Citus would run
 * the statement on a copy of runs (a shard), from which the function's queries of distributed tables cannot run.
 */
async function callPerRun(c: pg.ClientBase, fn: string): Promise<number> {
  const callee = await plannableCallee(c, fn);
  const { rows } = await c.query<{ id: string }>(`select id from "runs" order by id`);
  for (const { id } of rows) await c.query(`select ${callee}($1)`, [id]);
  return rows.length;
}

/** A statement's SELECT keyword after the whitespace and comments it opens with (which hold no string literal). */
const LEADING_SELECT = /^((?:\s|--[^\n]*\n|\/\*[\s\S]*?\*\/)*)select\b/i;

/**
 * The function to call: itself, unless it is written in SQL, whose parameters Citus cannot plan ("could not create
 * distributed plan"); then its body as a PL/pgSQL function of the session (pg_temp, gone with it), whose parameters
 * Citus plans with their values (a custom plan, as the transaction's plan_cache_mode asks).
 */
async function plannableCallee(c: pg.ClientBase, fn: string): Promise<string> {
  const { rows } = await c.query<{ lang: string; body: string; atomic: boolean; arg: string | null; type: string }>(
    `select l.lanname as lang, p.prosrc as body, p.prosqlbody is not null as atomic, p.proargnames[1] as arg,
            format_type(p.proargtypes[0], null) as type
       from pg_proc p join pg_language l on l.oid = p.prolang where p.proname = $1 and p.pronargs = 1`,
    [fn],
  );
  if (rows.length !== 1) throw new Error(`${fn}: one function of one argument expected, ${rows.length} found`);
  const f = rows[0];
  if (f.lang !== "sql") return `"${fn}"`;
  // A body written as RETURN or BEGIN ATOMIC is kept parsed, not as text (prosrc is empty): it cannot be copied, and
  // a copy of nothing would skip the conversion while the migration is recorded as applied.
  if (f.atomic || stripComments(f.body).trim() === "")
    throw new Error(
      `${fn}: a SQL function whose body is not a string cannot be called per run on Citus; write it as AS $$ … $$`,
    );
  // A SQL function's SELECT answers its caller; in PL/pgSQL it is PERFORMed (the comments a statement opens with
  // passed over, so that one is seen as the SELECT it is).
  const body = splitSqlStatements(f.body).map((s) => `${s.replace(LEADING_SELECT, "$1perform")};`);
  await c.query("set local plan_cache_mode = force_custom_plan");
  await c.query(
    `create or replace function pg_temp."${fn}"(${f.arg ? `"${f.arg}" ` : ""}${f.type}) returns void language plpgsql
       as $verity$ begin ${body.join("\n")} end $verity$`,
  );
  return `pg_temp."${fn}"`;
}

/** The first line of a statement that says something, to name it in a message. */
function headline(statement: string): string {
  return (stripComments(statement).trim().split("\n")[0] ?? "").slice(0, 120);
}

/**
 * Applies one migration's `sql` to a distributed database, in the caller's transaction, as the file's header says.
 * Answers the tables it distributed (for their statistics, once committed); `log` hears what was done differently.
 */
export async function applyMigrationDistributed(
  c: pg.ClientBase,
  sql: string,
  log: (line: string) => void = () => {},
): Promise<string[]> {
  const step = (s: string) => log(`  on Citus: ${s}`);
  const tables: string[] = [];
  await distributingSettings(c);
  for (const statement of splitSqlStatements(sql)) {
    try {
      const call = await perRunCall(c, statement);
      if (call?.kind === "partitions") {
        step(`not run: ${headline(statement)} (a run's partitions are its shards)`);
        tables.push(...(await distributePending(c, step)));
      } else if (call) {
        step(`${headline(statement)}: ${call.fn} called for each of ${await callPerRun(c, call.fn)} runs`);
      } else await c.query(statement);
    } catch (err) {
      (err as Error).message += ` (on Citus, in: ${headline(statement)})`;
      throw err;
    }
  }
  tables.push(...(await distributePending(c, step)));
  return tables;
}
