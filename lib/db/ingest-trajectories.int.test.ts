import { rawClient } from "@/lib/db/raw-client.ts";
import { describe, expect, it } from "vitest";
import { migrate, readMigrations } from "@/lib/db/migrate.ts";
import { createScratchDatabase } from "@/lib/testing/scratch-db.ts";
import { RUN_PARTITIONED_TABLES } from "@/lib/runs/archive.ts";
import { dropsAfterEach } from "@/lib/testing/scratch-suite.ts";

// 029_ingest_trajectories: the per-row foreign keys of rollouts, ledger and trajectories on runs give way to guards
// that keep the same rules — a row's run exists, a run with rows can be neither deleted nor renamed — and the
// statement trigger that records trajectories stops after one join when the writer recorded them itself, while it
// still records them for any writer that did not and refuses a trajectory another run holds, with the same error.

const drops = dropsAfterEach();

async function database(files?: (name: string) => boolean) {
  const s = await createScratchDatabase("ingest-trajectories");
  drops.push(s.drop);
  await migrate(s.url, files ? { files: readMigrations().filter((f) => files(f.name)) } : {});
  const c = rawClient({ connectionString: s.url });
  await c.connect();
  drops.push(() => c.end());
  const q = async (sql: string, params: readonly unknown[] = []) => (await c.query(sql, [...params])).rows;
  const code = (sql: string, params: readonly unknown[] = []) =>
    c.query(sql, [...params]).then(
      () => "ok",
      (err: { code?: string; message: string }) => `${err.code}: ${err.message}`,
    );
  await q(`insert into cases (ticket_id, category, ticket, env_snapshot, verifier_spec, content_hash)
           values ('T', 'c', '{}', '{}', '{}', 'h') on conflict do nothing`);
  await q(`insert into tool_registries (hash, tools) values ('h', '[]') on conflict do nothing`);
  return { s, q, code };
}

const rollout = (tid: string, run: string) =>
  [
    `insert into rollouts (trajectory_id, run_id, step, group_id, sample_index, ticket_id, steps, final_reply, sandbox,
                         registry_id, tool_steps, content_hash)
   values ($1, $2, 1, 'g', 0, 'T', '[]', '', '{}', (select id from tool_registries), 0, 'h') returning id`,
    [tid, run],
  ] as const;
const entry = (tid: string, run: string) =>
  [
    `insert into ledger (trajectory_id, run_id, step, ticket_id, status, source, reward, content_hash)
   values ($1, $2, 1, 'T', 'scored', 'external', 1, 'h')`,
    [tid, run],
  ] as const;

describe("029_ingest_trajectories", () => {
  it("migrates stored rows as they are and drops the foreign keys on runs", async () => {
    const { s, q } = await database((n) => n < "029");
    await q(`insert into runs (id) values ('r1')`);
    await q(...rollout("r1/t1", "r1"));
    await q(...entry("r1/t2", "r1"));
    await migrate(s.url);
    expect(await q(`select trajectory_id, run_id from trajectories order by 1`)).toEqual([
      { trajectory_id: "r1/t1", run_id: "r1" },
      { trajectory_id: "r1/t2", run_id: "r1" },
    ]);
    const fks = await q(
      `select conname from pg_constraint where contype = 'f' and confrelid = 'runs'::regclass and conparentid = 0
        and conrelid in ('ledger'::regclass, 'rollouts'::regclass, 'trajectories'::regclass)`,
    );
    expect(fks).toEqual([]);
  });

  it("keeps every row's run existing: no partition, no trajectory and no rename or delete without it", async () => {
    const { q, code } = await database();
    // A row needs its run's partition, and a partition is made only for a run in runs.
    expect(await code(...entry("x/t1", "nope"))).toMatch(/^23514: no partition of relation "ledger" found for row/);
    expect(await code(...rollout("x/t1", "nope"))).toMatch(/^23514: no partition of relation "rollouts"/);
    expect(await code(`select verity_run_partitions('nope')`)).toBe(
      "23503: run nope does not exist: a run's partitions are made only for a run in runs",
    );
    expect(await code(`insert into trajectories (trajectory_id, run_id) values ('x/t1', 'nope')`)).toBe(
      "23503: run nope does not exist: a trajectory is recorded only for a run in runs",
    );
    await q(`insert into runs (id) values ('r1'), ('r2')`);
    expect(await code(`update trajectories set run_id = 'nope'`)).toBe("ok"); // no rows: nothing to check
    await q(...entry("r1/t1", "r1"));
    // (since 034 a recorded trajectory is never changed at all)
    expect(await code(`update trajectories set run_id = 'nope' where trajectory_id = 'r1/t1'`)).toBe(
      "P0001: trajectories is append-only: rows cannot be changed",
    );
    // A run with rows, or only its (empty) partitions, stays: as the foreign keys' RESTRICT kept it.
    for (const run of ["r1", "r2"]) {
      expect(await code(`delete from runs where id = $1`, [run])).toMatch(
        new RegExp(`^23503: run ${run} still has its partition (rollouts|ledger)_r[0-9a-f]{16}: delete it only after`),
      );
      expect(await code(`update runs set id = 'renamed' where id = $1`, [run])).toMatch(
        new RegExp(`^23503: run ${run} still has its partition .*: rename it only after`),
      );
    }
    expect(await code(`update runs set description = 'kept' where id = 'r1'`)).toBe("ok");
    // A run recorded in trajectories but without partitions (made before them by hand) stays too.
    await q(`insert into runs (id) values ('r3')`);
    for (const t of RUN_PARTITIONED_TABLES) {
      const [{ name }] = await q(`select verity_run_partition_name($1, 'r3') as name`, [t]);
      await q(`alter table ${t} detach partition "${name}"`);
      await q(`drop table "${name}"`);
    }
    await q(`insert into trajectories (trajectory_id, run_id) values ('r3/t1', 'r3')`);
    expect(await code(`delete from runs where id = 'r3'`)).toMatch(
      /^23503: run r3 still has trajectories in trajectories: delete it only after/,
    );
    // as archive deletes them (034: trajectories are deleted only for the run being archived)
    await q("begin");
    await q(`select set_config('verity.archiving_run', 'r3', true)`);
    await q(`delete from trajectories where run_id = 'r3'`);
    await q("commit");
    expect(await code(`delete from runs where id = 'r3'`)).toBe("ok");
  });

  it("records what a writer did not, stops early when it did, and refuses a trajectory of another run", async () => {
    const { q, code } = await database();
    await q(`insert into runs (id) values ('r1'), ('r2')`);
    // A writer that records nothing itself: the trigger does (rollout and entry in one transaction).
    await q("begin");
    await q(...rollout("r1/t1", "r1"));
    await q(...entry("r1/t1", "r1"));
    await q("commit");
    await q(...entry("r1/t2", "r1"));
    // A writer that recorded its trajectories first (ingest): the rows go in, nothing is recorded twice.
    await q(`insert into trajectories (trajectory_id, run_id) values ('r2/t1', 'r2')`);
    await q(...entry("r2/t1", "r2"));
    expect(await q(`select trajectory_id, run_id from trajectories order by 1`)).toEqual([
      { trajectory_id: "r1/t1", run_id: "r1" },
      { trajectory_id: "r1/t2", run_id: "r1" },
      { trajectory_id: "r2/t1", run_id: "r2" },
    ]);
    // A trajectory another run holds, by a writer that recorded nothing or its own run's row first.
    const clash = "23505: trajectory r1/t1 belongs to run r1, not r2: trajectory ids are unique across runs";
    expect(await code(...entry("r1/t1", "r2"))).toBe(clash);
    expect(await code(...rollout("r1/t1", "r2"))).toBe(clash);
    expect(await code(`insert into trajectories (trajectory_id, run_id) values ('r1/t1', 'r2')`)).toMatch(
      /^23505: duplicate key value violates unique constraint "trajectories_pkey"/,
    );
    // A statement mixing recorded and new trajectories records the new ones only.
    await q(`insert into trajectories (trajectory_id, run_id) values ('r2/t3', 'r2')`);
    await q(
      `insert into ledger (trajectory_id, run_id, step, ticket_id, status, source, reward, content_hash)
       select t, 'r2', 1, 'T', 'scored', 'external', 1, 'h' from unnest(array['r2/t3', 'r2/t2']) t`,
    );
    expect(await q(`select count(*)::int as n from trajectories where run_id = 'r2'`)).toEqual([{ n: 3 }]);
  });
});
