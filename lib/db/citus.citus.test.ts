// Verity on a real Citus cluster (lib/testing/citus-cluster.ts, started by the "citus" project's global setup): a
// migrated database distributed by `verity db distribute` (lib/db/distribute.ts), the guarantees of the single-node
// database checked again on it, a run ingested through the real ingest path and read back through the browser, the
// browser's first page of one run answered by one worker, and a run's rows moved between workers.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { run as runDb } from "@/lib/cli/db.ts";
import { bindDatabase, db, poolOf } from "@/lib/db/client.ts";
import { distributeDatabase, REFERENCE_TABLES, RUN_SCOPED_TABLES } from "@/lib/db/distribute.ts";
import { migrate } from "@/lib/db/migrate.ts";
import { browseLedger, countLedger } from "@/lib/ledger/browse.ts";
import { browseParamsSchema } from "@/lib/ledger/browse-schema.ts";
import { ingestText, ndjson } from "@/lib/testing/ingest-db.ts";
import { caseLine, rolloutLine } from "@/lib/testing/ingest-fixtures.ts";

const url = inject("citusUrl");
let pool: pg.Pool;
/** The browser's page statements the console sent (its rows, then their audit items), with their parameters. */
const sent: { text: string; values: unknown[] }[] = [];

/**
 * The test's pool and the console's shared client, on connections opened now: the database settings distribute
 * makes (docs/scale.md) apply to sessions that start after it, as for a console restarted after distributing.
 */
async function connect() {
  await pool?.end();
  pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on("error", () => undefined);
  await bindDatabase(url);
  poolOf(db())!.on("connect", (client) => {
    const query = client.query.bind(client) as (...a: unknown[]) => unknown;
    (client as unknown as { query: (...a: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const q = args[0] as string | { text: string; values?: unknown[] };
      const text = typeof q === "string" ? q : q.text;
      const values = typeof q === "string" ? ((args[1] as unknown[]) ?? []) : (q.values ?? []);
      if (/from ledger l\b|from audit_items ai\b/.test(text)) sent.push({ text, values });
      return query(...args);
    };
  });
}

beforeAll(async () => {
  await migrate(url);
  process.env.DATABASE_URL = url;
  await connect();
});

afterAll(async () => {
  await pool?.end();
  await db().$disconnect();
});

async function ingestRun(run: string, n: number) {
  const lines: unknown[] = [caseLine(`T-${run}`)];
  for (let i = 0; i < n; i++) lines.push(rolloutLine(`${run}/${i}`, `T-${run}`, { run, step: 1 + (i % 3) }));
  return ingestText(pool, ndjson(lines));
}

const browse = (run: string) => browseLedger(browseParamsSchema.parse({ run }), 100);

describe("verity db distribute", () => {
  it("distributes a migrated database into reference and co-located run-scoped tables, keeping its rows", async () => {
    expect(await ingestRun("citus-0", 5)).toMatchObject({ ok: true, rejected: 0 });
    const r = await distributeDatabase(url);
    expect(r.changed).toBe(true);
    await connect();
    const { rows } = await pool.query<{ t: string; method: string; colocation: number }>(
      `select logicalrelid::text as t, partmethod as method, colocationid as colocation from pg_dist_partition
        where logicalrelid::text = any($1) order by 1`,
      [[...REFERENCE_TABLES, ...RUN_SCOPED_TABLES]],
    );
    const byTable = new Map(rows.map((x) => [x.t, x]));
    for (const t of REFERENCE_TABLES) expect(byTable.get(t)?.method, t).toBe("n");
    for (const t of RUN_SCOPED_TABLES) expect(byTable.get(t)?.method, t).toBe("h");
    expect(new Set(RUN_SCOPED_TABLES.map((t) => byTable.get(t)!.colocation)).size).toBe(1);
    const parted = await pool.query(`select relname from pg_class where relkind = 'p'`);
    expect(parted.rows).toEqual([]);
    expect((await browse("citus-0")).rows).toHaveLength(5);
    // Every shard has statistics at once (each is a new table): the workers plan the first reads with them. A shard
    // with rows has its columns' statistics; an empty one has none to gather.
    for (const t of [...REFERENCE_TABLES, ...RUN_SCOPED_TABLES]) {
      const shards = await pool.query<{ result: string }>(
        `select result from run_command_on_shards($1, $$
           select (c.reltuples = 0 or exists (select 1 from pg_statistic s where s.starelid = c.oid))::text
             from pg_class c where c.oid = '%s'::regclass$$)`,
        [t],
      );
      expect(shards.rows.length, t).toBeGreaterThan(0);
      expect(
        shards.rows.map((r) => r.result),
        t,
      ).not.toContain("false");
    }
  });

  it("does nothing the second time, and says so (verity db distribute)", async () => {
    const r = await distributeDatabase(url);
    expect(r).toEqual({ changed: false, steps: ["already distributed: nothing to do"] });
    const err: string[] = [];
    const code = await runDb(["distribute"], { out: () => undefined, err: (s) => err.push(s), stdout: process.stdout });
    expect(code).toBe(0);
    expect(err).toEqual(["verity db distribute: already distributed: nothing to do"]);
  });

  it("makes a missing enum cast on its own: one distributed before the cast from text existed gets it", async () => {
    const casts = async () =>
      (
        await pool.query<{ dir: string }>(
          `select case when castsource = 'text'::regtype then 'from text' else 'to text' end as dir
             from pg_cast where (castsource = 'text'::regtype and casttarget = '"ClusterStatus"'::regtype)
                             or (castsource = '"ClusterStatus"'::regtype and casttarget = 'text'::regtype) order by 1`,
        )
      ).rows.map((r) => r.dir);
    expect(await casts()).toEqual(["from text", "to text"]);
    await pool.query(`drop cast (text as "ClusterStatus")`);
    const r = await distributeDatabase(url);
    expect(r.changed).toBe(true);
    expect(r.steps.join("\n")).toMatch(/enum casts to and from text made IMMUTABLE .*ClusterStatus/);
    expect(await casts()).toEqual(["from text", "to text"]);
  });
});

describe("a run on the cluster", () => {
  it("is ingested through the ingest path and read back through the browser's first page and count", async () => {
    const s = await ingestRun("citus-a", 12);
    expect(s.error).toBeUndefined();
    expect(s).toMatchObject({ ok: true, rejected: 0 });
    const page = await browse("citus-a");
    expect(page.rows.map((r) => r.trajectoryId).sort()).toEqual(
      Array.from({ length: 12 }, (_, i) => `citus-a/${i}`).sort(),
    );
    expect(await countLedger(browseParamsSchema.parse({ run: "citus-a" }))).toEqual({ count: 12, exact: true });
  });
});

describe("the single-node guarantees, on the cluster", () => {
  it("refuses UPDATE and DELETE of the append-only tables' rows on the workers' shards", async () => {
    for (const t of ["ledger", "rollouts"]) {
      const [{ n }] = (await pool.query<{ n: number }>(`select count(*)::int as n from ${t} where run_id = 'citus-a'`))
        .rows;
      expect(n, t).toBeGreaterThan(0);
      await expect(pool.query(`update ${t} set step = step where run_id = 'citus-a'`), t).rejects.toThrow(
        /append-only/,
      );
      await expect(pool.query(`delete from ${t} where run_id = 'citus-a'`), t).rejects.toThrow(/append-only/);
    }
    // Every shard of every append-only or writer-only table has its table's refusal (the example run has no
    // guardrail or reason rows to try it on).
    for (const [t, trigger] of [
      ["ledger_guardrails", "ledger_guardrails_append_only"],
      ["ledger_reasons", "ledger_reasons_append_only"],
      ["step_rollups", "step_rollups_by_writer"],
      ["step_guardrail_rollups", "step_guardrail_rollups_by_writer"],
      ["group_rollups", "group_rollups_by_writer"],
    ]) {
      const { rows } = await pool.query<{ result: string }>(`select result from run_command_on_shards($1, $2)`, [
        t,
        `select count(*) from pg_trigger where tgrelid = '%s'::regclass and tgname like '${trigger}%%'`,
      ]);
      expect(rows.length, t).toBe(4);
      expect(new Set(rows.map((r) => r.result)), t).toEqual(new Set(["1"]));
    }
    await expect(pool.query(`update step_rollups set step = step where run_id = 'citus-a'`)).rejects.toThrow(
      /only its writer changes it/,
    );
    // A refusal names its table, not the shard whose trigger raised it (case_versions_102029): every append-only
    // trigger is given its table's name.
    const { rows: unnamed } = await pool.query(
      `select tgrelid::regclass::text from pg_trigger where tgfoid = 'verity_append_only'::regproc and tgnargs = 0`,
    );
    expect(unnamed).toEqual([]);
    await expect(pool.query(`update case_versions set reason = reason`)).rejects.toThrow(
      /^case_versions is append-only/,
    );
  });

  it("keeps one current entry per trajectory: a second is refused, and so is clearing one without a successor", async () => {
    const c = await pool.connect();
    try {
      await c.query("begin");
      await c.query(
        `create temp table dup on commit drop as select * from ledger where run_id = 'citus-a' and is_current limit 1`,
      );
      await c.query(`update dup set id = nextval('ledger_id_seq')`);
      await expect(c.query(`insert into ledger select * from dup`)).rejects.toThrow(/ledger_one_current_idx/);
      await c.query("rollback");
      await c.query("begin");
      await c.query(
        `update ledger set is_current = false where run_id = 'citus-a' and trajectory_id = 'citus-a/0' and is_current`,
      );
      // The worker's deferred check refuses its shard's commit; Citus reports the worker's reason as a warning.
      const warnings: string[] = [];
      c.on("notice", (n) => warnings.push(n.message ?? ""));
      await expect(c.query("commit")).rejects.toThrow(/could not commit transaction/);
      expect(warnings.join("\n")).toMatch(/is no longer current but no entry supersedes it/);
    } finally {
      await c.query("rollback").catch(() => undefined);
      c.release();
    }
  });

  it("keeps ids unique across runs, and a trajectory id to one run", async () => {
    expect(await ingestRun("citus-b", 6)).toMatchObject({ ok: true, rejected: 0 });
    const [ids] = (
      await pool.query<{ n: number; distinct: number }>(
        `select count(*)::int as n, count(distinct id)::int as distinct from ledger`,
      )
    ).rows;
    expect(ids.n).toBe(23);
    expect(ids.distinct).toBe(23);
    const clash = await ingestText(pool, ndjson([rolloutLine("citus-a/0", "T-citus-b", { run: "citus-b" })]));
    expect(clash.rejected).toBe(1);
    expect(clash.rejects[0].message).toMatch(/citus-a/);
  });

  it("counts a run's reviews, pair reviews and superseding entries beside its rows (run_counters, on its worker)", async () => {
    const counters = async () =>
      (
        await pool.query<{ reviews: number; pairs: number; superseding: string; last: string | null }>(
          `select review_count as reviews, pair_review_count as pairs, superseding_count::text as superseding,
                  last_superseding_id::text as last from run_counters where run_id = 'citus-a'`,
        )
      ).rows[0];
    const before = (await counters()) ?? { reviews: 0, pairs: 0, superseding: "0", last: null };
    // A re-score's write: the current entry cleared and its successor inserted, in one transaction.
    const c = await pool.connect();
    let successor: string;
    try {
      await c.query("begin");
      const [old] = (
        await c.query<{ id: string }>(
          `update ledger set is_current = false where run_id = 'citus-a' and trajectory_id = 'citus-a/1' and is_current
           returning id::text`,
        )
      ).rows;
      await c.query(
        `create temp table next on commit drop as select * from ledger where run_id = 'citus-a' and id = $1`,
        [old.id],
      );
      successor = (await c.query<{ id: string }>(`select nextval('ledger_id_seq')::text as id`)).rows[0].id;
      await c.query(`update next set id = $1, supersedes_id = $2, is_current = true, reward = 0.5`, [
        successor,
        old.id,
      ]);
      await c.query(`insert into ledger select * from next`);
      await c.query("commit");
    } finally {
      c.release();
    }
    const [user] = (
      await pool.query<{ id: number }>(
        `insert into users (email, role) values ('counter@example.org', 'annotator') returning id`,
      )
    ).rows;
    const [batch] = (
      await pool.query<{ id: number }>(
        `insert into audit_batches (name, run_id, step_from, step_to, rate, salt, pick)
         values ('counters', 'citus-a', 0, 9, 1, 's', 'one') returning id`,
      )
    ).rows;
    const [item] = (
      await pool.query<{ id: string }>(
        `insert into audit_items (batch_id, run_id, rollout_id, ledger_id, trajectory_id, ticket_id, inclusion_prob)
         select $1, run_id, rollout_id, id, trajectory_id, ticket_id, 1 from ledger
          where run_id = 'citus-a' and trajectory_id = 'citus-a/2' and is_current returning id::text`,
        [batch.id],
      )
    ).rows;
    for (let i = 0; i < 2; i++)
      await pool.query(
        `insert into reviews (item_id, reviewer_id, outcome, policy, evidence, efficiency, communication, guardrails, reward, claims, seconds_spent)
         values ($1, $2, 1, 1, 1, 1, 1, '{}', 1, '{}', 30)`,
        [item.id, user.id],
      );
    await pool.query(
      `insert into pair_reviews (item_id, reviewer_id, choice, seconds_spent) values ($1, $2, 'tie', 30)`,
      [item.id, user.id],
    );
    expect(await counters()).toEqual({
      reviews: before.reviews + 2,
      pairs: before.pairs + 1,
      superseding: String(Number(before.superseding) + 1),
      last: successor!,
    });
    // The counters' row is on the worker of the run's ledger rows (co-located), so the gate's and the caches' reads of
    // it with the run's rollups are one task there.
    const { rows: placed } = await pool.query<{ table_name: string; nodeport: number }>(
      `select s.table_name::text, s.nodeport from citus_shards s
        where s.table_name in ('ledger'::regclass, 'run_counters'::regclass)
          and s.shardid in (select get_shard_id_for_distribution_column(s.table_name, 'citus-a'))`,
    );
    expect(placed).toHaveLength(2);
    expect(placed[0].nodeport).toBe(placed[1].nodeport);
  });

  it("ingests two runs at once", async () => {
    const [a, b] = await Promise.all([ingestRun("citus-c", 8), ingestRun("citus-d", 8)]);
    expect(a).toMatchObject({ ok: true, rejected: 0 });
    expect(b).toMatchObject({ ok: true, rejected: 0 });
    expect((await browse("citus-c")).rows).toHaveLength(8);
    expect((await browse("citus-d")).rows).toHaveLength(8);
  });

  it("ingests one batch of two runs whose shards are on one worker", async () => {
    // The batch writes that worker over more than one connection (its rollups' INSERT … SELECT opens another), and
    // each replays the transaction's SET LOCALs there: the ledger's locks must not travel with them (docs/scale.md).
    const first = await placementOf("citus-e0");
    let second = "";
    for (let i = 1; !second && i < 50; i++) {
      const p = await placementOf(`citus-e${i}`);
      if (p.nodeport === first.nodeport && p.shardid !== first.shardid) second = `citus-e${i}`;
    }
    const runs = ["citus-e0", second];
    const lines = runs.flatMap((run) =>
      [0, 1].map((k) => rolloutLine(`${run}/${k}`, "T-citus-e", { run, step: 3, group: "g" })),
    );
    expect(await ingestText(pool, ndjson([caseLine("T-citus-e"), ...lines]))).toMatchObject({
      ok: true,
      rejected: 0,
      scored: 4,
    });
    for (const run of runs) expect((await browse(run)).rows).toHaveLength(2);
  });
});

type Placement = { shardid: string; nodeport: number };

/** Where run `run`'s ledger shard is: its id and the worker's port. */
/** A statement's plan on the coordinator, the nodes its tasks run on, and the notices Citus's planner gave for it. */
async function planOf(s: { text: string; values: unknown[] }) {
  const c = await pool.connect();
  const notices: string[] = [];
  const note = (n: { message?: string }) => notices.push(n.message ?? "");
  c.on("notice", note);
  try {
    await c.query("set client_min_messages = debug2");
    const { rows } = await c.query<{ "QUERY PLAN": string }>(`explain ${s.text}`, s.values);
    const plan = rows.map((r) => r["QUERY PLAN"]).join("\n");
    return { plan, notices, nodes: [...plan.matchAll(/Node: host=\S+ port=(\d+)/g)].map((m) => Number(m[1])) };
  } finally {
    await c.query("reset client_min_messages");
    c.off("notice", note);
    c.release();
  }
}

async function placementOf(run: string): Promise<Placement> {
  const { rows } = await pool.query<Placement>(
    `select s.shardid::text as shardid, s.nodeport from citus_shards s
      where s.table_name = 'ledger'::regclass and s.shardid = get_shard_id_for_distribution_column('ledger', $1::text)`,
    [run],
  );
  expect(rows).toHaveLength(1);
  return rows[0];
}

describe("single-shard reads and placement", () => {
  it("answers the browser's first page of one run with one task on one worker, planned on the fast path", async () => {
    sent.length = 0;
    await browse("citus-a");
    // The page's rows, then their audit items: one statement joining both was planned apart on the coordinator (the
    // page shipped back as an intermediate result, then joined to the items there), 20–60 ms more per page.
    expect(sent.map((s) => /from audit_items ai\b/.test(s.text))).toEqual([false, true]);
    const [page, items] = await Promise.all(sent.map(planOf));
    // The run's rows are read by one task on the worker that holds its shard, planned by Citus's fast-path router
    // planner (one table, its distribution column equal to a value); the audit items where they are, on the
    // coordinator.
    expect(page.nodes, page.plan).toEqual([(await placementOf("citus-a")).nodeport]);
    expect(
      page.plan.split("->  Task").filter((t) => /on ledger_\d+/.test(t)),
      page.plan,
    ).toHaveLength(1);
    const notes = page.notices.join("\n");
    expect(notes).toMatch(/fast-path router query/);
    expect(notes).not.toMatch(/generating subplan/);
    expect(items.nodes, items.plan).toEqual([Number(new URL(url).port)]);
  });

  it("puts two runs' rows on different workers, and a run moved to another worker keeps its page", async () => {
    const workers = inject("citusWorkerUrls").map((u) => Number(new URL(u).port));
    const a = await placementOf("citus-a");
    // A run whose shard is on the other worker (the hash of its id decides; four shards, two per worker).
    let other = "";
    for (let i = 0; !other && i < 50; i++)
      if ((await placementOf(`citus-x${i}`)).nodeport !== a.nodeport) other = `citus-x${i}`;
    expect(await ingestRun(other, 4)).toMatchObject({ ok: true, rejected: 0 });
    const b = await placementOf(other);
    expect(new Set([a.nodeport, b.nodeport])).toEqual(new Set(workers));
    const to = workers.find((p) => p !== a.nodeport)!;
    await pool.query(
      `select citus_move_shard_placement($1::bigint, '127.0.0.1', $2::int, '127.0.0.1', $3::int, shard_transfer_mode => 'block_writes')`,
      [a.shardid, a.nodeport, to],
    );
    expect((await placementOf("citus-a")).nodeport).toBe(to);
    const page = await browse("citus-a");
    expect(page.rows).toHaveLength(12);
    expect(await countLedger(browseParamsSchema.parse({ run: "citus-a" }))).toEqual({ count: 12, exact: true });
  });
});
