import pg from "pg";
import { rawClient } from "@/lib/db/raw-client.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "@/lib/db/migrate.ts";
import { createScratchDatabase } from "@/lib/testing/scratch-db.ts";

// The schema stays ready for Citus (docs/scale.md "Beyond one machine"): run_id would be the distribution column of
// every run-scoped table, and Citus requires each such table's primary key and unique constraints to contain it,
// and a foreign key between two distributed tables to include it (so both rows live on the same shard). PostgreSQL's
// partitioning by run already needs the first; this test reads pg_catalog and holds both lines for every table,
// including ones added later.

/** The run-scoped tables: partitioned by run_id (014), distributed by run_id under Citus. */
const RUN_SCOPED = [
  "group_rollups",
  "ledger",
  "ledger_guardrails",
  "ledger_reasons",
  "reward_results",
  "rollout_search",
  "rollout_search_blocks",
  "rollouts",
  "step_guardrail_rollups",
  "step_rollups",
];
/**
 * Tables with a run_id that stay whole (small: a few rows per run, or one per trajectory for the lookup), each
 * placed in docs/scale.md. A new table with run_id must be added to one of the two lists.
 */
const NOT_RUN_SCOPED = [
  "audit_batches",
  "audit_items",
  "cluster_states",
  "defect_items",
  "defects",
  "gate_verdicts",
  "monitor_alarm_events",
  "monitor_alarms",
  "reward_runs",
  // one row per run; on Citus distributed with the ledger all the same (lib/db/distribute.ts RUN_SCOPED_TABLES)
  "run_counters",
  "saved_searches",
  "score_change_marks",
  // a few hundred words per run at most; on Citus distributed with the blocks (lib/db/distribute.ts RUN_SCOPED_TABLES)
  "search_omitted_words",
  "trajectories",
];

let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
let c: pg.Client;
beforeAll(async () => {
  scratch = await createScratchDatabase("citus");
  await migrate(scratch.url);
  c = rawClient({ connectionString: scratch.url });
  await c.connect();
});
afterAll(async () => {
  await c?.end();
  await scratch?.drop();
});

describe("the schema is ready to be distributed by run_id", () => {
  it("partitions exactly the run-scoped tables by run_id, and lists every other table with a run_id", async () => {
    const parted = await c.query<{ t: string; key: string }>(
      `select c.relname as t, pg_get_partkeydef(c.oid) as key from pg_class c
        where c.relkind = 'p' and c.relnamespace = 'public'::regnamespace order by 1`,
    );
    expect(parted.rows).toEqual(RUN_SCOPED.map((t) => ({ t, key: "LIST (run_id)" })));
    const withRun = await c.query<{ t: string }>(
      `select c.relname as t from pg_attribute a join pg_class c on c.oid = a.attrelid
        where a.attname = 'run_id' and c.relkind in ('r', 'p') and not c.relispartition
          and c.relnamespace = 'public'::regnamespace order by 1`,
    );
    expect(withRun.rows.map((r) => r.t)).toEqual([...RUN_SCOPED, ...NOT_RUN_SCOPED].sort());
  });

  it("has run_id in every primary key and unique constraint or index of a run-scoped table", async () => {
    const keys = await c.query<{ t: string; name: string; cols: string[] }>(
      `select c.relname as t, ic.relname as name,
              array(select a.attname::text from unnest(i.indkey) k(n) join pg_attribute a
                     on a.attrelid = i.indrelid and a.attnum = k.n) as cols
         from pg_index i join pg_class c on c.oid = i.indrelid join pg_class ic on ic.oid = i.indexrelid
        where (i.indisunique or i.indisprimary) and c.relname = any($1) order by 1, 2`,
      [RUN_SCOPED],
    );
    expect(new Set(keys.rows.map((k) => k.t))).toEqual(new Set(RUN_SCOPED));
    expect(keys.rows.filter((k) => !k.cols.includes("run_id"))).toEqual([]);
  });

  it("has run_id on both sides of every foreign key into a run-scoped table", async () => {
    const fks = await c.query<{ name: string; t: string; rt: string; cols: string[]; rcols: string[] }>(
      `select con.conname as name, c.relname as t, rc.relname as rt,
              array(select a.attname::text from unnest(con.conkey) with ordinality k(n, o)
                      join pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.n order by k.o) as cols,
              array(select a.attname::text from unnest(con.confkey) with ordinality k(n, o)
                      join pg_attribute a on a.attrelid = con.confrelid and a.attnum = k.n order by k.o) as rcols
         from pg_constraint con join pg_class c on c.oid = con.conrelid join pg_class rc on rc.oid = con.confrelid
        where con.contype = 'f' and con.conparentid = 0 and not c.relispartition and rc.relname = any($1)
        order by 1`,
      [RUN_SCOPED],
    );
    // ledger → rollouts, ledger → ledger (supersedes), guardrail and reason rows → ledger, audit items → both.
    expect(fks.rows.length).toBeGreaterThanOrEqual(6);
    const bad = fks.rows.filter(
      (f) => f.cols.indexOf("run_id") < 0 || f.cols.indexOf("run_id") !== f.rcols.indexOf("run_id"),
    );
    expect(bad).toEqual([]);
  });
});
