// Where a run's rows are on a Citus cluster and which workers a statement's plan reads (the Citus tests'
// single-shard assertions: lib/db/single-shard.citus.test.ts, lib/db/upgrade.citus.test.ts).
import type pg from "pg";
import { expect } from "vitest";
import { RUN_SCOPED_TABLES } from "@/lib/db/distribute.ts";
import { planned, type Sent } from "@/lib/testing/capture-statements.ts";

export type Task = { port: number; shards: string[] };

/** The helpers, reading the cluster through `pool` (a function: the test's pool may be made after this is called). */
export function shardPlans(pool: () => pg.Pool) {
  /** The shards holding `run`'s rows, one per run-scoped table (as `ledger_102036`), and the worker they are on. */
  async function shardsOf(run: string): Promise<{ names: Set<string>; port: number }> {
    const { rows } = await pool().query<{ name: string; port: number }>(
      `select s.table_name::text || '_' || s.shardid as name, s.nodeport as port from citus_shards s
        where s.table_name::text = any($1) and s.shardid = get_shard_id_for_distribution_column(s.table_name, $2::text)`,
      [RUN_SCOPED_TABLES, run],
    );
    expect(rows).toHaveLength(RUN_SCOPED_TABLES.length);
    expect(new Set(rows.map((r) => r.port)).size).toBe(1);
    return { names: new Set(rows.map((r) => r.name)), port: rows[0].port };
  }

  /** The workers holding shards of the run-scoped tables. */
  async function shardPorts(): Promise<Set<number>> {
    const { rows } = await pool().query<{ port: number }>(
      `select distinct nodeport as port from citus_shards where table_name = 'ledger'::regclass`,
    );
    return new Set(rows.map((r) => r.port));
  }

  /** The plan of a statement, every task shown, as the tasks that read run-scoped shards: their worker and shards. */
  async function shardTasks(s: Sent): Promise<{ plan: string; tasks: Task[] }> {
    const c = await pool().connect();
    try {
      await c.query("set citus.explain_all_tasks = on");
      const { rows } = await c.query<{ "QUERY PLAN": string }>(`explain ${s.text}`, s.values);
      const plan = rows.map((r) => r["QUERY PLAN"]).join("\n");
      const shard = new RegExp(`\\b(?:${RUN_SCOPED_TABLES.join("|")})_\\d+\\b`, "g");
      const tasks = plan
        .split(/->\s+Task\n/)
        .slice(1)
        .map((t) => ({
          port: Number(/Node: host=\S+ port=(\d+)/.exec(t)?.[1]),
          // The task's own text: up to the next subplan or task count (a task's plan never holds either).
          shards: [...new Set(t.split(/Distributed Subplan|Task Count:/)[0].match(shard) ?? [])],
        }))
        .filter((t) => t.shards.length > 0);
      return { plan, tasks };
    } finally {
      c.release();
    }
  }

  /**
   * Asserts that every statement of `statements` that reads run-scoped rows reads only `run`'s shards, each with one
   * task on the worker that holds them, and that at least one statement did; `spanning` names the statements that
   * legitimately read every run (they are checked to do so, and are left out).
   */
  async function expectSingleShard(run: string, statements: Sent[], spanning: RegExp | null = null): Promise<number> {
    const { names, port } = await shardsOf(run);
    let reading = 0;
    for (const s of statements.filter(planned)) {
      const { plan, tasks } = await shardTasks(s);
      if (spanning?.test(s.text)) {
        expect(new Set(tasks.map((t) => t.port)), plan).toEqual(await shardPorts());
        continue;
      }
      if (tasks.length === 0) continue;
      reading++;
      expect(
        tasks.map((t) => t.port),
        plan,
      ).toEqual(tasks.map(() => port));
      for (const t of tasks) for (const name of t.shards) expect(names, plan).toContain(name);
    }
    expect(reading, "statements reading the run's rows").toBeGreaterThan(0);
    return reading;
  }
  return { shardsOf, shardPorts, shardTasks, expectSingleShard, planned };
}
