import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoRunValues } from "@/lib/demo/generate.ts";
import { ingestValues } from "@/lib/ingest/ingest.ts";
import { rescoreRun } from "@/lib/ledger/mutations.ts";
import { freshDatabase, type TestDatabase } from "@/lib/testing/ingest-db.ts";
import { parseVerifierConfig } from "@/lib/verifier/config.ts";

// What the product never changes, the database refuses to change (012_append_only), tried as the user the console
// connects as: rollouts and cases take no UPDATE or DELETE, no append-only table can be truncated, and a ledger
// entry stops being current only in the transaction that inserts the entry superseding it.

const RUN = "append-only-run";
let t: TestDatabase;

beforeAll(async () => {
  t = await freshDatabase("appendonly");
  const s = await ingestValues(
    demoRunValues({ runId: RUN, tickets: 3, steps: 2, k: 2, seed: "ao", variant: "normal" }),
    {
      pool: t.pool,
    },
  );
  expect(s).toMatchObject({ ok: true, rejected: 0, scored: 12 });
});
afterAll(async () => t?.drop());

/** Runs `sql` in a transaction that is always rolled back, so a statement that should have been refused undoes. */
async function inRolledBack(pool: pg.Pool, sql: string, params: unknown[] = []): Promise<void> {
  const c = await pool.connect();
  try {
    await c.query("begin");
    await c.query(sql, params);
    await c.query("commit"); // deferred constraint triggers fire here
  } finally {
    await c.query("rollback").catch(() => undefined);
    c.release();
  }
}

const one = async (sql: string, params: unknown[] = []) => (await t.pool.query(sql, params)).rows[0];

describe("append-only tables, as the application's database user", () => {
  it("connects as the user of DATABASE_URL", async () => {
    const app = decodeURIComponent(new URL(process.env.DATABASE_URL!).username);
    expect((await one("select current_user as u")).u).toBe(app);
  });

  it("refuses UPDATE and DELETE on rollouts and cases, naming the table", async () => {
    const r = await one("select id, ticket_id from rollouts where run_id = $1 limit 1", [RUN]);
    await expect(inRolledBack(t.pool, "update rollouts set final_reply = 'x' where id = $1", [r.id])).rejects.toThrow(
      "rollouts is append-only: rows cannot be changed",
    );
    await expect(inRolledBack(t.pool, "update rollouts set step = step where id = $1", [r.id])).rejects.toThrow(
      "rollouts is append-only: rows cannot be changed",
    );
    await expect(inRolledBack(t.pool, "delete from rollouts where id = $1", [r.id])).rejects.toThrow(
      "rollouts is append-only: rows cannot be deleted",
    );
    await expect(
      inRolledBack(t.pool, "update cases set category = 'x' where ticket_id = $1", [r.ticket_id]),
    ).rejects.toThrow("cases is append-only: rows cannot be changed");
    await expect(inRolledBack(t.pool, "delete from cases where ticket_id = $1", [r.ticket_id])).rejects.toThrow(
      "cases is append-only: rows cannot be deleted",
    );
    expect((await one("select count(*)::int as n from rollouts where run_id = $1", [RUN])).n).toBe(12);
  });

  it.each(["ledger", "rollouts", "cases", "reviews", "adjudications", "activity_log"])(
    "refuses TRUNCATE on %s",
    async (table) => {
      await expect(inRolledBack(t.pool, `truncate "${table}" cascade`)).rejects.toThrow(
        `${table} is append-only: it cannot be truncated`,
      );
    },
  );

  // 014 partitions these tables by run: the rule holds on a run's own partition too, addressed by its name.
  it.each(["ledger", "rollouts"])("refuses UPDATE, DELETE and TRUNCATE on a run's partition of %s", async (table) => {
    const part = (await one("select verity_run_partition_name($1, $2) as name", [table, RUN])).name as string;
    expect((await one(`select count(*)::int as n from "${part}"`)).n).toBe(12);
    await expect(inRolledBack(t.pool, `update "${part}" set step = step + 1`)).rejects.toThrow(
      `${table} is append-only: rows cannot be changed`,
    );
    await expect(inRolledBack(t.pool, `delete from "${part}"`)).rejects.toThrow(
      `${table} is append-only: rows cannot be deleted`,
    );
    await expect(inRolledBack(t.pool, `truncate "${part}" cascade`)).rejects.toThrow(
      `${table} is append-only: it cannot be truncated`,
    );
  });

  it("refuses, at commit, clearing a ledger entry's is_current when no entry supersedes it", async () => {
    const e = await one("select id, trajectory_id from ledger where run_id = $1 and is_current limit 1", [RUN]);
    await expect(t.pool.query("update ledger set is_current = false where id = $1", [e.id])).rejects.toThrow(
      `ledger entry ${e.id} (trajectory ${e.trajectory_id}) is no longer current but no entry supersedes it`,
    );
    // A "successor" for another trajectory does not count.
    const other = await one("select id from ledger where run_id = $1 and is_current and trajectory_id <> $2 limit 1", [
      RUN,
      e.trajectory_id,
    ]);
    await expect(
      inRolledBack(
        t.pool,
        `with cleared as (update ledger set is_current = false where id = $1 returning id)
         insert into ledger (trajectory_id, run_id, step, ticket_id, status, source, content_hash, supersedes_id, is_current)
         select trajectory_id, run_id, step, ticket_id, status, source, 'x', $2, false from ledger where id = $3`,
        [e.id, e.id, other.id],
      ),
    ).rejects.toThrow("no entry supersedes it");
    expect((await one("select is_current from ledger where id = $1", [e.id])).is_current).toBe(true);
  });

  it("still lets a re-score supersede entries: the old ones stop being current, each with its successor", async () => {
    const c = parseVerifierConfig({
      weights: { outcome: 0.4, policy: 0.2, evidence: 0.2, efficiency: 0.1, communication: 0.1 },
    });
    if (!c.ok) throw new Error("bad config");
    const s = await rescoreRun(t.pool, { runId: RUN, config: c.config });
    expect(s.rescored).toBeGreaterThan(0);
    const r = await one(
      `select count(*) filter (where not l.is_current)::int as superseded,
              count(*) filter (where not l.is_current and s.id is not null and s.is_current)::int as with_current_successor,
              count(*) filter (where l.is_current)::int as current
         from ledger l left join ledger s on s.supersedes_id = l.id where l.run_id = $1`,
      [RUN],
    );
    expect(r).toEqual({ superseded: s.rescored, with_current_successor: s.rescored, current: 12 });
  });

  it("refuses a second current entry for one trajectory, whatever the ingest's lock", async () => {
    const e = await one("select id from ledger where run_id = $1 and is_current limit 1", [RUN]);
    await expect(
      inRolledBack(
        t.pool,
        `insert into ledger (trajectory_id, run_id, step, ticket_id, status, source, content_hash)
         select trajectory_id, run_id, step, ticket_id, status, source, 'second' from ledger where id = $1`,
        [e.id],
      ),
    ).rejects.toThrow(/duplicate key value violates unique constraint "ledger_r[0-9a-f]+_run_id_trajectory_id_idx"/);
    const idx = await one("select indexdef from pg_indexes where indexname = 'ledger_one_current_idx'");
    expect(idx.indexdef).toMatch(
      /UNIQUE INDEX ledger_one_current_idx ON ONLY public.ledger .*\(run_id, trajectory_id\) WHERE is_current/,
    );
  });

  it("refuses UPDATE, DELETE and TRUNCATE of an entry's guardrail and reason rows, on the table and its partitions", async () => {
    for (const table of ["ledger_guardrails", "ledger_reasons"]) {
      const part = (await one("select verity_run_partition_name($1, $2) as p", [table, RUN])).p;
      const statements = [
        [`update ${table} set step = step + 1 where run_id = $1`, "rows cannot be changed"],
        [`delete from ${table} where run_id = $1`, "rows cannot be deleted"],
        [`truncate ${table}`, "it cannot be truncated"],
        [`truncate "${part}"`, "it cannot be truncated"],
      ] as const;
      expect((await one(`select count(*)::int as n from ${table} where run_id = $1`, [RUN])).n).toBeGreaterThan(0);
      for (const [sql, why] of statements) {
        await expect(inRolledBack(t.pool, sql, sql.includes("$1") ? [RUN] : [])).rejects.toThrow(
          `${table} is append-only: ${why}`,
        );
      }
    }
  });

  it("refuses UPDATE and TRUNCATE of trajectories, and DELETE but archive's of the run it archives", async () => {
    const tr = await one("select trajectory_id from trajectories where run_id = $1 limit 1", [RUN]);
    await expect(
      inRolledBack(t.pool, "update trajectories set run_id = run_id where trajectory_id = $1", [tr.trajectory_id]),
    ).rejects.toThrow("trajectories is append-only: rows cannot be changed");
    await expect(
      inRolledBack(t.pool, "delete from trajectories where trajectory_id = $1", [tr.trajectory_id]),
    ).rejects.toThrow("trajectories is append-only: rows are deleted only by archiving their run");
    await expect(inRolledBack(t.pool, "truncate trajectories cascade")).rejects.toThrow(
      "trajectories is append-only: it cannot be truncated",
    );
    const c = await t.pool.connect();
    try {
      await c.query("begin");
      await c.query("select set_config('verity.archiving_run', 'another-run', true)");
      await expect(c.query("delete from trajectories where trajectory_id = $1", [tr.trajectory_id])).rejects.toThrow(
        "rows are deleted only by archiving their run",
      );
      await c.query("rollback");
      await c.query("begin");
      await c.query("select set_config('verity.archiving_run', $1, true)", [RUN]);
      const d = await c.query("delete from trajectories where trajectory_id = $1", [tr.trajectory_id]);
      expect(d.rowCount).toBe(1);
    } finally {
      await c.query("rollback");
      c.release();
    }
  });
  it("refuses INSERT, UPDATE, DELETE and TRUNCATE of the rollups but by their writer", async () => {
    const inserts: Record<string, string> = {
      step_rollups: "insert into step_rollups (run_id, step) values ($1, 2147483000)",
      step_guardrail_rollups:
        "insert into step_guardrail_rollups (run_id, step, code) values ($1, 2147483000, 'unauthorized_write')",
      group_rollups: "insert into group_rollups (run_id, step, group_id) values ($1, 2147483000, 'g-new')",
    };
    for (const table of ["step_rollups", "step_guardrail_rollups", "group_rollups"]) {
      const part = (await one("select verity_run_partition_name($1, $2) as p", [table, RUN])).p;
      for (const sql of [
        inserts[table],
        `update ${table} set step = step where run_id = $1`,
        `delete from ${table} where run_id = $1`,
        `truncate ${table}`,
        `truncate "${part}"`,
      ]) {
        await expect(inRolledBack(t.pool, sql, sql.includes("$1") ? [RUN] : [])).rejects.toThrow(
          `${table} is derived from the ledger: only its writer changes it`,
        );
      }
      const c = await t.pool.connect();
      try {
        await c.query("begin");
        await c.query("select set_config('verity.rollup_writer', 'on', true)");
        const u = await c.query(`update ${table} set step = step where run_id = $1`, [RUN]);
        expect(u.rowCount).toBeGreaterThan(0);
        expect((await c.query(inserts[table], [RUN])).rowCount).toBe(1);
      } finally {
        await c.query("rollback");
        c.release();
      }
    }
  });
});
