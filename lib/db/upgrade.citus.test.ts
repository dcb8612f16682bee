// A migration applied after the database was distributed (docs/scale.md, "Upgrading"): a database migrated to 040,
// given runs by the real ingest, distributed, and then brought to the latest migration by the ordinary runner. 042
// makes a table partitioned by run (the search's blocks) and fills it from the stored search rows: on Citus the runner
// distributes it instead of making the runs' partitions, and its fill writes the distributed table. Then the pages'
// reads, the search and the ingest work on the upgraded database, and each run's page reads stay on its worker.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { bindDatabase, db } from "@/lib/db/client.ts";
import { distributeDatabase, RUN_SCOPED_TABLES } from "@/lib/db/distribute.ts";
import { migrate, readMigrations } from "@/lib/db/migrate.ts";
import { browseLedger, countLedger } from "@/lib/ledger/browse.ts";
import { browseParamsSchema } from "@/lib/ledger/browse-schema.ts";
import { loadTrajectoryPage } from "@/lib/ledger/loaders.ts";
import { capture, installStatementCapture } from "@/lib/testing/capture-statements.ts";
import { createCitusDatabase, dropCitusDatabase } from "@/lib/testing/citus-cluster.ts";
import { ingestText, ndjson } from "@/lib/testing/ingest-db.ts";
import { caseLine, rolloutLine } from "@/lib/testing/ingest-fixtures.ts";
import { shardPlans } from "@/lib/testing/shard-plans.ts";

const DISTRIBUTED_AT = "040_run_counters";
const NAME = "verity_upgrade";
const admins = [inject("citusUrl"), ...inject("citusWorkerUrls")].map((u) =>
  Object.assign(new URL(u), { pathname: "/postgres" }).toString(),
);
let url = "";
let pool: pg.Pool;
let captured: { restore: () => void } | undefined;
const { expectSingleShard } = shardPlans(() => pool);
/** What the runner said while it applied the migrations after distributing. */
const said: string[] = [];
let applied: string[] = [];

async function connect() {
  await pool?.end();
  pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on("error", () => undefined);
}

async function ingestRun(run: string, n: number) {
  const lines: unknown[] = [caseLine(`T-${run}`)];
  for (let i = 0; i < n; i++) lines.push(rolloutLine(`${run}/${i}`, `T-${run}`, { run, step: 1 + (i % 3) }));
  return ingestText(pool, ndjson(lines));
}

beforeAll(async () => {
  captured = installStatementCapture();
  await dropCitusDatabase(admins, NAME);
  url = await createCitusDatabase(admins, NAME);
  // Never migrated, the database is refused with what to do (not a missing table's error).
  await expect(distributeDatabase(url)).rejects.toThrow(
    /the database was never migrated; it can be distributed from 040_run_counters on: run `npm run db:migrate` first/,
  );
  const earlier = readMigrations().filter((m) => m.name <= DISTRIBUTED_AT);
  expect(earlier.at(-1)?.name).toBe(DISTRIBUTED_AT);
  // Before 040 the database cannot be distributed (the ledger's shards write the run's counters), and says so.
  await migrate(url, { files: earlier.slice(0, -1) });
  await expect(distributeDatabase(url)).rejects.toThrow(
    /migrated to 039_saved_searches; it can be distributed from 040_run_counters on: run `npm run db:migrate` first/,
  );
  await migrate(url, { files: earlier });
  await connect();
  // Today's ingest also writes 042's search blocks and reads 046's words they leave out: stand-in tables take them,
  // dropped before distributing, so the database holds what an ingest at 040 left (rollouts, entries, search rows,
  // no blocks).
  await pool.query(`create table rollout_search_blocks (run_id text, first_id bigint, last_id bigint, words text)`);
  await pool.query(`create table search_omitted_words (run_id text, word text)`);
  expect(await ingestRun("up-a", 20)).toMatchObject({ ok: true, rejected: 0 });
  expect(await ingestRun("up-b", 20)).toMatchObject({ ok: true, rejected: 0 });
  await pool.query(`drop table rollout_search_blocks; drop table search_omitted_words`);
  expect((await distributeDatabase(url)).changed).toBe(true);
  applied = await migrate(url, { log: (line) => said.push(line) });
  // Sessions opened after the upgrade, as a console restarted after it.
  await connect();
  process.env.DATABASE_URL = url;
  await bindDatabase(url);
}, 240_000);

afterAll(async () => {
  captured?.restore();
  await pool?.end();
  if (process.env.DATABASE_URL === url) await db().$disconnect();
  await dropCitusDatabase(admins, NAME).catch(() => undefined);
});

/** A word of `run`'s stored search blocks: the search of it must find every rollout of the run (same texts). */
async function wordOf(run: string): Promise<string> {
  const [{ words }] = (
    await pool.query<{ words: string }>(`select words from rollout_search_blocks where run_id = $1 limit 1`, [run])
  ).rows;
  const word = words.split(" ").find((w) => /^[a-z]{6,}$/.test(w));
  expect(word, words).toBeDefined();
  return word!;
}

describe("a migration after distributing", () => {
  it("applies the later migrations, the runs' partitions replaced by distributing the new table", async () => {
    const later = readMigrations().filter((m) => m.name > DISTRIBUTED_AT);
    expect(applied).toEqual(later.map((m) => m.name));
    expect(said).toContain(
      `  on Citus: not run: SELECT verity_search_partition(id) FROM "runs" (a run's partitions are its shards)`,
    );
    expect(said).toContain("  on Citus: distributed by run_id, co-located: rollout_search_blocks");
    // Nothing left to do for `verity db distribute`, and nothing partitioned by run on the coordinator.
    expect(await distributeDatabase(url)).toEqual({ changed: false, steps: ["already distributed: nothing to do"] });
    expect((await pool.query(`select relname from pg_class where relkind = 'p'`)).rows).toEqual([]);
  });

  it("distributes the new run-scoped table by run_id, co-located with the others, with statistics", async () => {
    const { rows } = await pool.query<{ t: string; type: string; column: string; colocation: number }>(
      `select table_name::text as t, citus_table_type as type, distribution_column as column, colocation_id as colocation
         from citus_tables where table_name::text = any($1) order by 1`,
      [RUN_SCOPED_TABLES],
    );
    expect(rows.map((r) => r.t).sort()).toEqual([...RUN_SCOPED_TABLES].sort());
    for (const r of rows) expect(r, r.t).toMatchObject({ type: "distributed", column: "run_id" });
    expect(new Set(rows.map((r) => r.colocation)).size).toBe(1);
    const shards = await pool.query<{ n: number }>(
      `select count(*)::int as n from citus_shards where table_name = 'rollout_search_blocks'::regclass`,
    );
    expect(shards.rows[0].n).toBeGreaterThan(1);
  });

  it("converts the stored rows on the distributed tables: each run's blocks of 16 rollouts", async () => {
    const { rows } = await pool.query<{ run_id: string; blocks: number; first: string; last: string }>(
      `select b.run_id, count(*)::int as blocks, min(b.first_id)::text as first, max(b.last_id)::text as last
         from rollout_search_blocks b where b.run_id in ('up-a', 'up-b') group by b.run_id order by 1`,
    );
    const ids = await pool.query<{ run_id: string; first: string; last: string }>(
      `select run_id, min(id)::text as first, max(id)::text as last from rollouts
        where run_id in ('up-a', 'up-b') group by run_id order by 1`,
    );
    expect(rows).toEqual(ids.rows.map((r) => ({ ...r, blocks: 2 })));
    // 044 folds the case of the blocks' words that 042 stored as written (the texts have capitals), run by run on the
    // runs' workers
    const capitals = await pool.query<{ n: number }>(
      `select count(*)::int as n from rollout_search where run_id in ('up-a', 'up-b') and reply <> lower(reply)`,
    );
    expect(capitals.rows[0].n).toBeGreaterThan(0);
    expect(
      said.some((l) => /verity_fold_search_blocks called for each of \d+ runs$/.test(l)),
      said.join("\n"),
    ).toBe(true);
    const cased = await pool.query<{ n: number; all: number }>(
      `select count(*) filter (where words <> lower(words))::int as n, count(*)::int as all from rollout_search_blocks`,
    );
    expect(cased.rows[0]).toEqual({ n: 0, all: expect.any(Number) });
    expect(cased.rows[0].all).toBeGreaterThan(3);
  });

  it("reads the pages and searches each run on its own worker; a word of no rollout finds nothing", async () => {
    for (const run of ["up-a", "up-b"]) {
      const plain = browseParamsSchema.parse({ run });
      const reads = await capture(() => Promise.all([browseLedger(plain, 100), countLedger(plain)]));
      expect(reads.result[0].rows).toHaveLength(20);
      expect(reads.result[1]).toMatchObject({ count: 20, exact: true });
      await expectSingleShard(run, reads.statements);
      const detail = await capture(() => loadTrajectoryPage(reads.result[0].rows[0].trajectoryId, { run }));
      expect(detail.result).toBeTruthy();
      await expectSingleShard(run, detail.statements);
      // The search, through the blocks the migration made and filled: its answers. (Not its plans here: its count
      // past the estimate's threshold reads every shard, each task filtered by the run; its first page is asserted
      // one task on the run's worker in lib/db/single-shard.citus.test.ts.)
      const p = browseParamsSchema.parse({ run, q: await wordOf(run) });
      expect((await browseLedger(p, 100)).rows).toHaveLength(20);
      expect(await countLedger(p)).toMatchObject({ count: 20, exact: true });
      expect((await browseLedger(browseParamsSchema.parse({ run, q: "zzqqxxnotaword" }), 100)).rows).toEqual([]);
    }
  });

  it("ingests a new run into the upgraded database, its search blocks written and found", async () => {
    expect(await ingestRun("up-c", 17)).toMatchObject({ ok: true, rejected: 0, scored: 17 });
    const blocks = await pool.query(`select first_id from rollout_search_blocks where run_id = 'up-c'`);
    expect(blocks.rows.length).toBeGreaterThan(0);
    const p = browseParamsSchema.parse({ run: "up-c", q: await wordOf("up-c") });
    expect(await countLedger(p)).toMatchObject({ count: 17, exact: true });
    // Re-sent, nothing changes (the ingest's idempotence on the upgraded tables).
    expect(await ingestRun("up-c", 17)).toMatchObject({ ok: true, accepted: 0, rejected: 0 });
  });

  it("keeps the append-only rules and drops nothing Citus needs", async () => {
    await expect(pool.query(`update ledger set reward = 0 where run_id = 'up-a'`)).rejects.toThrow(/append-only/);
    await expect(pool.query(`delete from rollouts where run_id = 'up-a'`)).rejects.toThrow(/append-only/);
    const triggers = await pool.query<{ name: string }>(
      `select tgname as name from pg_trigger where tgrelid = 'runs'::regclass and not tgisinternal order by 1`,
    );
    expect(triggers.rows.map((r) => r.name)).not.toContain("runs_search_partition");
  });
});
