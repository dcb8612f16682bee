import pg from "pg";
import { rawClient } from "@/lib/db/raw-client.ts";
import { describe, expect, it } from "vitest";
import { migrate, readMigrations } from "@/lib/db/migrate.ts";
import { ingestText, ndjson } from "@/lib/testing/ingest-db.ts";
import { caseLine, rolloutLine } from "@/lib/testing/ingest-fixtures.ts";
import { createScratchDatabase } from "@/lib/testing/scratch-db.ts";
import { RUN_PARTITIONED_TABLES } from "@/lib/runs/archive.ts";
import { dropsAfterEach } from "@/lib/testing/scratch-suite.ts";

// 014_partition_by_run moves a database that already holds runs onto tables partitioned by run: every row of every
// run-scoped table survives as it was (ids, supersession, is_current, rollups), each run gets its partitions, the
// id sequences go on counting, audit items learn their run, the trajectory → run lookup is filled, and the
// append-only rules and foreign keys hold on the new tables.

const drops = dropsAfterEach();

const RUN_SCOPED = [
  "rollouts",
  "ledger",
  "ledger_guardrails",
  "ledger_reasons",
  "step_rollups",
  "step_guardrail_rollups",
  "group_rollups",
];

/** Every row of a table as JSON, in a fixed order, without the columns 014 adds. */
async function rowsOf(c: pg.Client, table: string): Promise<unknown[]> {
  const { rows } = await c.query(`select to_jsonb(t) - $1::text as j from "${table}" t order by to_jsonb(t)::text`, [
    table === "audit_items" ? "run_id" : "",
  ]);
  return rows.map((r) => r.j);
}

async function loadRuns(c: pg.Client): Promise<void> {
  const q = (sql: string, params: unknown[] = []) => c.query(sql, params);
  await q(`insert into cases (ticket_id, category, ticket, env_snapshot, verifier_spec, content_hash)
           values ('T', 'c', '{}', '{}', '{}', 'h')`);
  await q(`insert into tool_registries (hash, tools) values ('h', '[]')`);
  for (const run of ["run-a", "run with spaces & 'quotes'"]) {
    await q(`insert into runs (id) values ($1)`, [run]);
    for (let i = 0; i < 3; i++) {
      const traj = `${run}/t${i}`;
      const r = await q(
        `insert into rollouts (trajectory_id, run_id, step, group_id, sample_index, ticket_id, steps, final_reply,
                               sandbox, registry_id, tool_steps, content_hash)
         values ($1, $2, $3, 'g', $4, 'T', '[{"big": "json"}]', 'reply', $5, (select id from tool_registries), 1, 'h')
         returning id`,
        [traj, run, i, i, i === 0 ? '{"writes": []}' : '{"writes": [{"tool": "x"}]}'],
      );
      const l = await q(
        `insert into ledger (trajectory_id, rollout_id, run_id, step, ticket_id, status, source, reward, raw_reward,
                             guardrail_mask, deciding_guardrail, content_hash)
         values ($1, $2, $3, $4, 'T', 'scored', 'verifier', 0.3, 0.8, 1, 'unauthorized_write', 'h1') returning id`,
        [traj, r.rows[0].id, run, i],
      );
      const id = l.rows[0].id;
      await q(
        `insert into ledger_guardrails (ledger_id, run_id, step, code, cap, deciding)
               values ($1, $2, $3, 'unauthorized_write', 0.3, true)`,
        [id, run, i],
      );
      await q(
        `insert into ledger_reasons (ledger_id, ord, run_id, step, code, tool, field)
               values ($1, 0, $2, $3, 'unauthorized_write', 'x', null), ($1, 1, $2, $3, 'missing_evidence', null, 'f')`,
        [id, run, i],
      );
      if (i === 1) {
        // A re-score: the entry is superseded by a successor in the same transaction (012's deferred check).
        await q("begin");
        await q(`update ledger set is_current = false where id = $1`, [id]);
        await q(
          `insert into ledger (trajectory_id, rollout_id, run_id, step, ticket_id, status, source, reward, content_hash,
                               supersedes_id)
           values ($1, $2, $3, $4, 'T', 'scored', 'verifier', 0.9, 'h2', $5)`,
          [traj, r.rows[0].id, run, i, id],
        );
        await q("commit");
      }
    }
    // A score record without a rollout (external), and the rollups.
    await q(
      `insert into ledger (trajectory_id, run_id, step, ticket_id, status, source, reward, content_hash)
             values ($1, $2, 9, 'T', 'scored', 'external', 0.5, 'hx')`,
      [`${run}/external`, run],
    );
    // as the rollups' writer: they refuse other writes (034)
    await q("select set_config('verity.rollup_writer', 'on', false)");
    await q(`insert into step_rollups (run_id, step, rollouts, rewarded, reward_sum) values ($1, 0, 3, 3, 1.5)`, [run]);
    await q(`insert into step_guardrail_rollups (run_id, step, code, hits) values ($1, 0, 'unauthorized_write', 3)`, [
      run,
    ]);
    await q(`insert into group_rollups (run_id, step, group_id, n) values ($1, 0, 'g', 3)`, [run]);
    const b = await q(
      `insert into audit_batches (name, run_id, step_from, step_to, rate, salt, pick)
                       values ('b', $1, 0, 9, 1, 's', 'one') returning id`,
      [run],
    );
    await q(
      `insert into audit_items (batch_id, rollout_id, ledger_id, trajectory_id, ticket_id, inclusion_prob)
       select $1, l.rollout_id, l.id, l.trajectory_id, l.ticket_id, 1 from ledger l
        where l.run_id = $2 and l.is_current and l.rollout_id is not null`,
      [b.rows[0].id, run],
    );
  }
}

describe("014_partition_by_run on a database with data", () => {
  it("keeps every row and constraint, and gives every run its partitions", async () => {
    const s = await createScratchDatabase("partition");
    drops.push(s.drop);
    const all = readMigrations();
    expect(all.map((f) => f.name)).toContain("014_partition_by_run");
    await migrate(s.url, { files: all.filter((f) => f.name < "014") });
    const c = rawClient({ connectionString: s.url });
    await c.connect();
    drops.push(() => c.end());
    await loadRuns(c);
    const tables = [...RUN_SCOPED, "audit_items"];
    const before = new Map<string, unknown[]>();
    for (const t of tables) before.set(t, await rowsOf(c, t));
    const maxIds = (await c.query(`select (select max(id) from rollouts) as r, (select max(id) from ledger) as l`))
      .rows[0];

    // 014 alone first: later migrations may add columns (015 adds trained-reward counters to step_rollups)
    expect(await migrate(s.url, { files: all.filter((f) => f.name < "015") })).toEqual(["014_partition_by_run"]);

    for (const t of tables) expect({ t, rows: await rowsOf(c, t) }).toEqual({ t, rows: before.get(t) });
    expect(before.get("ledger")).toHaveLength(10);
    expect(before.get("ledger_reasons")).toHaveLength(12);

    // Every run-scoped table is partitioned, one partition per run, and the rows sit in their run's partition.
    const parts = await c.query<{ parent: string; n: number }>(
      `select p.relname as parent, count(*)::int as n from pg_inherits i join pg_class p on p.oid = i.inhparent
        join pg_class ch on ch.oid = i.inhrelid where p.relkind = 'p' group by 1 order by 1`,
    );
    expect(parts.rows).toEqual([...RUN_SCOPED].sort().map((parent) => ({ parent, n: 2 })));
    const inPart = await c.query(
      `select count(*)::int as n from "${
        (await c.query(`select verity_run_partition_name('ledger', 'run-a') as p`)).rows[0].p
      }"`,
    );
    expect(inPart.rows[0].n).toBe(5);

    // Audit items name their batch's run; the trajectory lookup covers rollouts and rollout-less entries.
    const items = await c.query(
      `select count(*)::int as n, count(*) filter (where i.run_id = b.run_id)::int as same
         from audit_items i join audit_batches b on b.id = i.batch_id`,
    );
    expect(items.rows[0]).toEqual({ n: 6, same: 6 });
    const traj = await c.query(`select trajectory_id, run_id from trajectories order by 1`);
    expect(traj.rows).toHaveLength(8);
    expect(traj.rows).toContainEqual({ trajectory_id: "run-a/external", run_id: "run-a" });

    // The sequences go on from where they were.
    const next = await c.query(
      `insert into ledger (trajectory_id, run_id, step, ticket_id, status, source, content_hash)
       values ('run-a/new', 'run-a', 1, 'T', 'input_error', 'verifier', 'n') returning id`,
    );
    expect(BigInt(next.rows[0].id)).toBeGreaterThan(BigInt(maxIds.l));

    // Append-only and the foreign keys hold on the moved rows.
    await expect(c.query(`delete from ledger where run_id = 'run-a'`)).rejects.toThrow(
      "ledger is append-only: rows cannot be deleted",
    );
    await expect(c.query(`update rollouts set step = 5 where run_id = 'run-a'`)).rejects.toThrow(
      "rollouts is append-only: rows cannot be changed",
    );
    await expect(c.query(`truncate ledger cascade`)).rejects.toThrow("ledger is append-only: it cannot be truncated");
    await expect(
      c.query(`insert into ledger_guardrails (ledger_id, run_id, step, code, cap) values ($1, 'run-a', 0, 'x', 0)`, [
        maxIds.l,
      ]),
    ).rejects.toThrow(/ledger_guardrails_run_id_ledger_id_fkey/);
    await expect(
      c.query(
        `insert into ledger (trajectory_id, rollout_id, run_id, step, ticket_id, status, source, content_hash)
         values ('run-a/t0', $1, 'run-a', 0, 'T', 'scored', 'verifier', 'x')`,
        [maxIds.r + 100],
      ),
    ).rejects.toThrow(/ledger_run_id_rollout_id_fkey/);
    // A trajectory of one run cannot reappear in another.
    await expect(
      c.query(
        `insert into ledger (trajectory_id, run_id, step, ticket_id, status, source, content_hash)
         values ('run-a/t0', 'run with spaces & ''quotes''', 0, 'T', 'scored', 'external', 'x')`,
      ),
    ).rejects.toThrow("trajectory run-a/t0 belongs to run run-a, not run with spaces & 'quotes'");

    // And the product, with every later migration applied, ingests into the migrated database: a new run gets its
    // partitions on first ingest.
    await migrate(s.url, { files: all });
    const pool = new pg.Pool({ connectionString: s.url, max: 2 });
    drops.push(() => pool.end());
    const sum = await ingestText(pool, ndjson([caseLine("T-NEW"), rolloutLine("fresh/1", "T-NEW", { run: "fresh" })]));
    expect(sum).toMatchObject({ ok: true, rejected: 0, scored: 1 });
    const fresh = await c.query(
      `select count(*)::int as n from pg_inherits i join pg_class ch on ch.oid = i.inhrelid
        where pg_get_expr(ch.relpartbound, ch.oid) = $1`,
      ["FOR VALUES IN ('fresh')"],
    );
    // Every run-partitioned table of the migrated database (014's seven and those later migrations added).
    expect(fresh.rows[0].n).toBe(RUN_PARTITIONED_TABLES.length);
  });
});
