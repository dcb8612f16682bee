import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoRunValues } from "@/lib/demo/generate.ts";
import { ingestText, ledgerPicture, freshDatabase, type TestDatabase } from "@/lib/testing/ingest-db.ts";
import { ingestValues } from "@/lib/ingest/ingest.ts";
import { ArchiveRefused, archiveRun, RUN_PARTITIONED_TABLES } from "@/lib/runs/archive.ts";
import { ON_CITUS } from "@/lib/testing/scratch-db.ts";

// `verity run archive`: the run's current entries and rollouts are exported to a complete file first, and only then
// are its partitions detached and dropped; the other runs are untouched, and the file ingests back into the ledger
// it came from.

let t: TestDatabase;
let dir: string;
const demo = (runId: string, seed: string) =>
  demoRunValues({ runId, tickets: 4, steps: 3, k: 2, seed, variant: "normal" });

beforeAll(async () => {
  t = await freshDatabase("archive");
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "verity-archive-"));
  for (const [run, seed] of [
    ["arch-a", "a"],
    ["arch-b", "b"],
    ["arch-audited", "c"],
  ])
    expect(await ingestValues(demo(run, seed), { pool: t.pool })).toMatchObject({ ok: true, rejected: 0 });
  await t.pool.query(
    `insert into audit_batches (name, run_id, step_from, step_to, rate, salt, pick) values ('b', 'arch-audited', 0, 9, 1, 's', 'one')`,
  );
});
afterAll(async () => {
  await t?.drop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** A run's partitions: one per run-scoped table; none on Citus, where its rows are in its shard and archive deletes them. */
const PARTITIONS = ON_CITUS ? 0 : RUN_PARTITIONED_TABLES.length;

const partitionsOf = async (run: string) =>
  (
    await t.pool.query(
      `select count(*)::int as n from pg_class c where c.relispartition and pg_get_expr(c.relpartbound, c.oid) = $1`,
      [`FOR VALUES IN ('${run}')`],
    )
  ).rows[0].n as number;

describe("verity run archive", () => {
  it("exports the run, then drops its partitions and rows, leaving the other runs as they were", async () => {
    const picture = await ledgerPicture(t.pool, "arch-a");
    const rolloutsOf = async (run: string) =>
      (
        await t.pool.query(
          `select trajectory_id, step, group_id, sample_index, ticket_id, tool_steps, trained_reward from rollouts where run_id = $1
            order by trajectory_id`,
          [run],
        )
      ).rows;
    const rollouts = await rolloutsOf("arch-a");
    expect(rollouts.some((r) => r.trained_reward !== null)).toBe(true);
    const other = await ledgerPicture(t.pool, "arch-b");
    expect(picture).toHaveLength(24);
    expect(await partitionsOf("arch-a")).toBe(PARTITIONS);
    const out = path.join(dir, "arch-a.ndjson");

    const s = await archiveRun(t.pool, "arch-a", out);
    expect(s).toMatchObject({ run: "arch-a", entries: 24, rollouts: 24, cases: 4 });
    const lines = fs
      .readFileSync(out, "utf8")
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.kind).filter((k) => k === "rollout")).toHaveLength(24);
    expect(lines.map((l) => l.kind).filter((k) => k === "score")).toHaveLength(24);
    expect(s.bytes).toBe(fs.statSync(out).size);
    expect(fs.existsSync(`${out}.partial`)).toBe(false);

    expect(await partitionsOf("arch-a")).toBe(0);
    const left = await t.pool.query(
      `select (select count(*)::int from runs where id = 'arch-a') as runs,
              (select count(*)::int from trajectories where run_id = 'arch-a') as trajectories,
              (select count(*)::int from ledger where run_id = 'arch-a') as ledger,
              (select count(*)::int from rollouts where run_id = 'arch-a') as rollouts,
              (select count(*)::int from step_rollups where run_id = 'arch-a') as rollups,
              (select count(*)::int from monitor_alarms where run_id = 'arch-a') as alarms`,
    );
    expect(left.rows[0]).toEqual({ runs: 0, trajectories: 0, ledger: 0, rollouts: 0, rollups: 0, alarms: 0 });
    expect(await ledgerPicture(t.pool, "arch-b")).toEqual(other);
    expect(await partitionsOf("arch-b")).toBe(PARTITIONS);

    // The file is the run: ingested again, the ledger is what it was.
    const back = await ingestText(t.pool, fs.readFileSync(out, "utf8"));
    expect(back).toMatchObject({ ok: true, rejected: 0 });
    expect(await ledgerPicture(t.pool, "arch-a")).toEqual(picture);
    // and so are its rollouts, trained rewards included (their content hashes are not key-order canonical, and
    // jsonb stored the documents in its own key order: see rolloutRow)
    expect(await rolloutsOf("arch-a")).toEqual(rollouts);
    expect(await partitionsOf("arch-a")).toBe(PARTITIONS);
  });

  it("refuses a run with shadow-audit batches, an unknown run, and a file it cannot write, dropping nothing", async () => {
    await expect(archiveRun(t.pool, "arch-audited", path.join(dir, "x.ndjson"))).rejects.toThrow(
      'run "arch-audited" has 1 shadow-audit batch(es)',
    );
    await expect(archiveRun(t.pool, "no-such-run", path.join(dir, "y.ndjson"))).rejects.toThrow('no run "no-such-run"');
    const bad = path.join(dir, "missing-folder", "b.ndjson");
    const err = await archiveRun(t.pool, "arch-b", bad).catch((e) => e);
    expect(err).toBeInstanceOf(ArchiveRefused);
    expect(err.message).toMatch(/the export did not complete .*nothing was dropped/);
    expect(await partitionsOf("arch-b")).toBe(PARTITIONS);
    expect((await t.pool.query(`select count(*)::int as n from ledger where run_id = 'arch-b'`)).rows[0].n).toBe(24);
  });
});
