import pg from "pg";
import { rawClient } from "@/lib/db/raw-client.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { caseLine, rolloutLine } from "@/lib/testing/ingest-fixtures.ts";
import { freshDatabase, ingestText, ndjson, type TestDatabase } from "@/lib/testing/ingest-db.ts";
import { RUN_PARTITIONED_TABLES } from "@/lib/runs/archive.ts";

// A run's partitions (014) are made by its first ingest, in that ingest's transaction, and concurrent first
// ingests of the same new run neither fail nor make them twice.

const TABLES = RUN_PARTITIONED_TABLES.length;
let t: TestDatabase;
beforeAll(async () => {
  t = await freshDatabase("partitions");
  await ingestText(t.pool, ndjson([caseLine("T-P")]));
});
afterAll(async () => t?.drop());

async function partitionsOf(run: string): Promise<string[]> {
  const { rows } = await t.pool.query<{ parent: string }>(
    `select p.relname as parent from pg_inherits i join pg_class p on p.oid = i.inhparent
       join pg_class ch on ch.oid = i.inhrelid where pg_get_expr(ch.relpartbound, ch.oid) = $1 order by 1`,
    [`FOR VALUES IN (${pgLiteral(run)})`],
  );
  return rows.map((r) => r.parent);
}
const pgLiteral = (s: string) => `'${s.replace(/'/g, "''")}'`;

describe("partitions on first ingest", () => {
  it("gives a new run its partitions of every run-scoped table, with its rows in them", async () => {
    expect(await partitionsOf("first-run")).toEqual([]);
    const s = await ingestText(t.pool, ndjson([rolloutLine("first/1", "T-P", { run: "first-run" })]));
    expect(s).toMatchObject({ ok: true, rejected: 0, scored: 1 });
    expect(await partitionsOf("first-run")).toEqual([
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
    ]);
    const part = (await t.pool.query(`select verity_run_partition_name('ledger', 'first-run') as p`)).rows[0].p;
    expect((await t.pool.query(`select count(*)::int as n from "${part}"`)).rows[0].n).toBe(1);
  });

  it("survives N concurrent first ingests of the same new run, each on its own connection", async () => {
    const N = 6;
    const pools = Array.from({ length: N }, () => new pg.Pool({ connectionString: t.url, max: 1 }));
    try {
      const results = await Promise.all(
        pools.map((pool, i) =>
          ingestText(pool, ndjson([rolloutLine(`race/${i}`, "T-P", { run: "race-run", step: i })])),
        ),
      );
      for (const r of results) expect(r).toMatchObject({ ok: true, rejected: 0, scored: 1 });
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
    expect(await partitionsOf("race-run")).toHaveLength(TABLES);
    const n = await t.pool.query(`select count(*)::int as n from ledger where run_id = 'race-run' and is_current`);
    expect(n.rows[0].n).toBe(N);
  });

  it("makes them once when N transactions call the partition function for one run at the same time", async () => {
    const N = 5;
    // The run exists without its partitions (029: they are made only for a run in runs, whose insert makes them).
    await t.pool.query("insert into runs (id) values ($1)", ["it's-new"]);
    for (const table of await partitionsOf("it's-new")) {
      const { rows } = await t.pool.query<{ name: string }>("select verity_run_partition_name($1, $2) as name", [
        table,
        "it's-new",
      ]);
      await t.pool.query(`alter table "${table}" detach partition "${rows[0].name}"`);
      await t.pool.query(`drop table "${rows[0].name}"`);
    }
    expect(await partitionsOf("it's-new")).toEqual([]);
    const clients = Array.from({ length: N }, () => rawClient({ connectionString: t.url }));
    await Promise.all(clients.map((c) => c.connect()));
    try {
      // Each inserts the run and its first rollup row in one transaction, all started before any commits.
      await Promise.all(clients.map((c) => c.query("begin")));
      const done = Promise.all(
        clients.map(async (c, i) => {
          await c.query("select verity_run_partitions($1)", ["it's-new"]);
          await c.query("select set_config('verity.rollup_writer', 'on', true)");
          await c.query(`insert into step_rollups (run_id, step) values ($1, $2)`, ["it's-new", i]);
          await c.query("commit");
        }),
      );
      await done;
    } finally {
      await Promise.all(clients.map((c) => c.end()));
    }
    // verity_run_partitions makes the ledger's seven; reward_results' and rollout_search's (and its blocks')
    // partitions come from their own triggers on runs.
    const own = ["reward_results", "rollout_search", "rollout_search_blocks"];
    expect(await partitionsOf("it's-new")).toEqual(RUN_PARTITIONED_TABLES.filter((t) => !own.includes(t)).sort());
    const n = await t.pool.query(`select count(*)::int as n from step_rollups where run_id = $1`, ["it's-new"]);
    expect(n.rows[0].n).toBe(N);
  });

  it("refuses a trajectory id that another run already holds, on that line only", async () => {
    const s = await ingestText(
      t.pool,
      ndjson([
        rolloutLine("first/1", "T-P", { run: "other-run" }),
        rolloutLine("other/2", "T-P", { run: "other-run" }),
      ]),
    );
    expect(s).toMatchObject({ accepted: 1, rejected: 1 });
  });
});
