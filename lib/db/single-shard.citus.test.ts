// The run-scoped pages' reads on a Citus cluster (docs/scale.md, "Verity on Citus"): the demo loaded, the database
// distributed, and each page's own loader called with every statement it sends to PostgreSQL captured; each statement
// is then EXPLAINed on the coordinator with every task shown. A run's page reads only that run's shards, on the worker
// that holds them: one task on one worker. The run is then moved to the other worker and every page reads the same
// rows again, from there.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { loadAgreementItems } from "@/lib/agreement/data.ts";
import { loadAgreementPage } from "@/lib/agreement/loaders.ts";
import { agreementFilterSchema } from "@/lib/agreement/schema.ts";
import { listClusterRuns } from "@/lib/clusters/detail-data.ts";
import { loadClustersPage } from "@/lib/clusters/loaders.ts";
import { bindDatabase, db } from "@/lib/db/client.ts";
import { distributeDatabase } from "@/lib/db/distribute.ts";
import { migrate } from "@/lib/db/migrate.ts";
import { prepareFirstRun } from "@/lib/demo/first-run.ts";
import { env } from "@/lib/env.ts";
import { browseLedger, countLedger } from "@/lib/ledger/browse.ts";
import { browseParamsSchema } from "@/lib/ledger/browse-schema.ts";
import { exportFilterSchema, exportLedger } from "@/lib/ledger/export.ts";
import { loadGroupPage, loadTrajectoryPage } from "@/lib/ledger/loaders.ts";
import { parseChartQuery } from "@/lib/monitors/schema.ts";
import { listRunSummaries } from "@/lib/runs/data.ts";
import { loadRunPage } from "@/lib/runs/loaders.ts";
import { createCitusDatabase, startCitusServer } from "@/lib/testing/citus-cluster.ts";
import { capture, installStatementCapture } from "@/lib/testing/capture-statements.ts";
import { shardPlans } from "@/lib/testing/shard-plans.ts";

const RUN = "grpo-main";
const workerPorts = inject("citusWorkerUrls").map((u) => Number(new URL(u).port));
let url = "";
let pool: pg.Pool;

let captured: { restore: () => void } | undefined;

beforeAll(async () => {
  captured = installStatementCapture();
  // A database of this file's own: the global setup's is distributed and filled by another file.
  const admin = (u: string) => Object.assign(new URL(u), { pathname: "/postgres" }).toString();
  url = await createCitusDatabase([inject("citusUrl"), ...inject("citusWorkerUrls")].map(admin), "verity_single_shard");
  await migrate(url);
  await prepareFirstRun(url, () => undefined, { ...env(), VERITY_DEMO: "1", VERITY_DEMO_SIZE: "small" });
  await distributeDatabase(url);
  process.env.DATABASE_URL = url;
  // Connections opened after distributing, as a console restarted after it (the settings it makes apply to them).
  await bindDatabase(url);
  pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on("error", () => undefined);
}, 180_000);

let third: Awaited<ReturnType<typeof startCitusServer>> | undefined;

afterAll(async () => {
  captured?.restore();
  await third?.stop();
  await pool?.end();
  await db().$disconnect();
});

const { shardsOf, shardPorts, shardTasks, expectSingleShard, planned } = shardPlans(() => pool);

type Pick = { trajectory_id: string; group_id: string; step: number };
let pick: Pick;

/** Each run-scoped page's reads, through the page's own loaders, as the console calls them. */
const pages: Record<string, () => Promise<unknown>> = {
  "browser first page and count": () => {
    const p = browseParamsSchema.parse({ run: RUN });
    return Promise.all([browseLedger(p, 100), countLedger(p)]);
  },
  "browser first page and count, filtered": () => {
    const p = browseParamsSchema.parse({ run: RUN, capped: "yes", sampled: "yes", sort: "reward", dir: "asc" });
    return Promise.all([browseLedger(p, 100), countLedger(p)]);
  },
  // a search: its walk and probes, then the page's snippets (lib/search/data.ts), read on the run's worker
  "browser first page with a search": () => browseLedger(browseParamsSchema.parse({ run: RUN, q: "refund" }), 100),
  "rollout detail": () => loadTrajectoryPage(pick.trajectory_id, { run: RUN }),
  group: () => loadGroupPage({ runId: RUN, groupId: pick.group_id, step: pick.step }),
  // The gate's report is reused while the run's inputs are unchanged: its reads are those of the first call.
  "run page": () => loadRunPage(RUN, parseChartQuery({}).query, "admin"),
  "agreement for a run": () => loadAgreementItems(agreementFilterSchema.parse({ run: RUN })),
  export: async () => {
    const lines: string[] = [];
    for await (const chunk of exportLedger(pool, exportFilterSchema.parse({ run: RUN }))) lines.push(chunk);
    return lines.join("");
  },
};

/** The clusters page of the run: its report and links on the run's shards, its run selector over every run. */
const clustersPage = () => loadClustersPage({ run: RUN });
const RUN_SELECTOR = /from step_rollups where rollouts > 0 group by run_id/;

const before = new Map<string, unknown>();

/** Every page of the run reads what it read at first, each statement one task on the worker holding the run now. */
async function expectSameReads() {
  for (const [page, read] of Object.entries(pages)) {
    const { result, statements } = await capture(read);
    expect(result, page).toEqual(before.get(page));
    await expectSingleShard(RUN, statements);
  }
  const { result, statements } = await capture(clustersPage);
  expect(result.report).toEqual(before.get("clusters"));
  await expectSingleShard(RUN, statements, RUN_SELECTOR);
}

describe("a run's pages on the cluster", () => {
  it("reads the demo's runs from two workers", async () => {
    [pick] = (
      await pool.query<Pick>(
        `select trajectory_id, group_id, step from ledger
          where run_id = $1 and is_current and group_id is not null order by id limit 1`,
        [RUN],
      )
    ).rows;
    expect(pick).toBeDefined();
    // The demo's runs hash to shards on both workers (the hash of a run's id decides, as it would in production).
    const ports = new Set<number>();
    for (const run of ["grpo-main", "grpo-hacking", "grpo-demo"]) ports.add((await shardsOf(run)).port);
    expect(ports).toEqual(new Set(workerPorts));
  });

  for (const [page, read] of Object.entries(pages))
    it(`${page}: one task on the run's worker`, async () => {
      const { result, statements } = await capture(read);
      expect(result).toBeTruthy();
      before.set(page, result);
      await expectSingleShard(RUN, statements);
    });

  it("a count past the exact scope: a block sample of the run's shard, sized by the run's counters", async () => {
    // The demo's run is small: the scope counted exactly is made smaller than it, as a run of millions is to the default.
    const p = browseParamsSchema.parse({ run: RUN });
    const [{ n }] = (
      await pool.query<{ n: number }>(`select count(*)::int as n from ledger where run_id = $1 and is_current`, [RUN])
    ).rows;
    expect(n).toBeGreaterThan(1000);
    const { result, statements } = await capture(() => countLedger(p, { exactScopeRows: 1000 }));
    expect(result.exact).toBe(false);
    expect(Math.abs(result.count - n) / n).toBeLessThan(0.25);
    expect(statements.some((s) => /tablesample/.test(s.text))).toBe(true);
    await expectSingleShard(RUN, statements);
  });

  it("a search whose blocks say its matches are few: its blocks, their rollouts, their entries, each one task", async () => {
    // one order's id: the rollouts of its ticket, a few dozen, in as many blocks at most
    const [{ order_id: order }] = (
      await pool.query<{ order_id: string }>(
        `select substring(args from 'O-[0-9]{3,}') as order_id from rollout_search
          where run_id = $1 and args ~ 'O-[0-9]{3,}' order by rollout_id limit 1`,
        [RUN],
      )
    ).rows;
    const p = browseParamsSchema.parse({ run: RUN, q: `arg:"${order}"` });
    const { result, statements } = await capture(() => Promise.all([browseLedger(p, 100), countLedger(p)]));
    const [page, count] = result;
    expect(count).toEqual({ count: expect.any(Number), exact: true });
    expect(page.rows.length).toBe(Math.min(100, count.count));
    expect(count.count).toBeGreaterThan(0);
    // found first: the blocks read, then their rollouts by key range (once: the page and the count share the few
    // matches found, kept at the run's highest rollout id), then their entries; nothing walked
    const texts = statements.map((s) => s.text.replace(/\s+/g, " "));
    expect(texts.filter((t) => t.includes("from rollout_search_blocks b where b.run_id ="))).toHaveLength(1);
    expect(
      texts.filter((t) => t.includes("cross join lateral (select s.rollout_id, s.step from rollout_search s")),
    ).toHaveLength(1);
    expect(texts.filter((t) => t.includes(") w where exists (select 1 from rollout_search s"))).toEqual([]);
    await expectSingleShard(RUN, statements);
  });

  it("clusters: the report and its links on the run's worker; the run selector spans every run", async () => {
    const { result, statements } = await capture(clustersPage);
    expect(result.errors).toEqual([]);
    expect(result.report?.clusters.length).toBeGreaterThan(0);
    before.set("clusters", result.report);
    expect(statements.some((s) => RUN_SELECTOR.test(s.text))).toBe(true);
    await expectSingleShard(RUN, statements, RUN_SELECTOR);
    expect((await listClusterRuns(db())).map((r) => r.id).sort()).toEqual(["grpo-demo", "grpo-hacking", "grpo-main"]);
  });

  it("agreement over every run: one statement per run, on its worker; the case slots over every run", async () => {
    const { result, statements } = await capture(() => loadAgreementPage(agreementFilterSchema.parse({})));
    expect(result.report.headline.n).toBeGreaterThan(0);
    const runs = (await pool.query<{ run_id: string }>(`select distinct run_id from audit_batches order by 1`)).rows;
    const perRun = statements.filter((s) => /^\s*with it as materialized/.test(s.text));
    expect(perRun).toHaveLength(runs.length);
    for (const { run_id } of runs)
      await expectSingleShard(
        run_id,
        perRun.filter((s) => s.values.includes(run_id)),
      );
    // The slots' lookup of the rollouts of items stored without a registry names no run here: every shard, each empty.
    const slots = statements.filter((s) => /^\s*with\s+own as materialized/.test(s.text));
    expect(slots).toHaveLength(1);
    expect(new Set((await shardTasks(slots[0])).tasks.map((t) => t.port))).toEqual(new Set(workerPorts));
    // The page's fingerprint reads the runs' counters (040), each on its run's worker, and nothing else there.
    const counters = statements.filter((s) => /from run_counters/.test(s.text));
    expect(counters).toHaveLength(1);
    for (const t of (await shardTasks(counters[0])).tasks)
      for (const name of t.shards) expect(name).toMatch(/^run_counters_\d+$/);
    for (const s of statements.filter(
      (s) => planned(s) && !perRun.includes(s) && !slots.includes(s) && !counters.includes(s),
    ))
      expect((await shardTasks(s)).tasks, s.text).toEqual([]);
  });

  it("a rollout opened without a browser query: its neighbours one task per run, each on the run's worker", async () => {
    const { result, statements } = await capture(() => loadTrajectoryPage(pick.trajectory_id, {}));
    expect(result?.entry.trajectoryId).toBe(pick.trajectory_id);
    const each = statements.filter((s) => /union all/.test(s.text));
    expect(each).toHaveLength(2);
    const runs = ["grpo-demo", "grpo-hacking", "grpo-main"];
    const shards = await Promise.all(runs.map(shardsOf));
    for (const s of each) {
      const { plan, tasks } = await shardTasks(s);
      expect(tasks, plan).toHaveLength(runs.length);
      for (const t of tasks) {
        const of = shards.find((x) => t.shards.every((n) => x.names.has(n)));
        expect(of?.port, plan).toBe(t.port);
      }
    }
  });

  it("the runs list spans every run: one task per shard", async () => {
    const { result, statements } = await capture(() => listRunSummaries(db()));
    expect(result.map((r) => r.id).sort()).toEqual(["grpo-demo", "grpo-hacking", "grpo-main"]);
    const [s] = statements.filter(planned);
    const { plan, tasks } = await shardTasks(s);
    expect(tasks.length, plan).toBe(4);
    expect(new Set(tasks.map((t) => t.port)), plan).toEqual(new Set(workerPorts));
  });

  it("read again after a pause, a run's pages keep their connections: the same coordinator backends and their worker connections", async () => {
    // Each worker seen from a connection of its own, held throughout.
    const workers = inject("citusWorkerUrls").map((u) => {
      const c = new pg.Client({
        connectionString: Object.assign(new URL(u), { pathname: "/verity_single_shard" }).toString(),
      });
      c.on("error", () => undefined);
      return c;
    });
    await Promise.all(workers.map((c) => c.connect()));
    /** The coordinator backends (server processes) the console's statements went to while the run's pages were read. */
    const read = async () => {
      const { statements } = await capture(async () => {
        await loadTrajectoryPage(pick.trajectory_id, { run: RUN });
        await loadRunPage(RUN, parseChartQuery({}).query, "admin");
      });
      return new Set(statements.map((s) => s.pid));
    };
    /** The connections `backends` opened to each worker (Citus names its coordinator backend in application_name). */
    const workerConnections = async (backends: Set<number>) =>
      (
        await Promise.all(
          workers.map(async (c, i) => {
            const { rows } = await c.query<{ pid: number; origin: number | null }>(
              `select pid, (substring(application_name from 'gpid=(\\d+)')::bigint % 10000000000)::int as origin
                 from pg_stat_activity where datname = current_database() and backend_type = 'client backend'`,
            );
            return rows.filter((r) => backends.has(r.origin!)).map((r) => `worker ${i + 1}: ${r.pid}`);
          }),
        )
      ).flat();
    try {
      const backends = new Set<number>();
      for (let i = 0; i < 3; i++) for (const pid of await read()) backends.add(pid);
      const warm = await workerConnections(backends);
      expect(warm.length).toBeGreaterThan(0);
      // Every coordinator backend connected before the pause: the console's pool may hold more connections than the
      // warm-up's reads went through (opened by earlier pages), and one of those taken after it is not a new one.
      const existing = new Set(
        (
          await pool.query<{ pid: number }>(
            `select pid from pg_stat_activity where datname = current_database() and backend_type = 'client backend'`,
          )
        ).rows.map((r) => r.pid),
      );
      // Longer than a user may read a page, and than pg's pool keeps an idle connection by default (10 s).
      await new Promise((r) => setTimeout(r, 11_000));
      const again = await read();
      expect(
        [...again].filter((pid) => !backends.has(pid) && !existing.has(pid)),
        "new coordinator backends",
      ).toEqual([]);
      const after = await workerConnections(backends);
      expect(
        warm.filter((c) => !after.includes(c)),
        "worker connections closed",
      ).toEqual([]);
    } finally {
      await Promise.all(workers.map((c) => c.end()));
    }
  });

  it("moved to the other worker, reads the same rows from there", async () => {
    const from = await shardsOf(RUN);
    const to = workerPorts.find((p) => p !== from.port)!;
    const [ledgerShard] = [...from.names].filter((n) => n.startsWith("ledger_"));
    await pool.query(
      `select citus_move_shard_placement($1::bigint, '127.0.0.1', $2::int, '127.0.0.1', $3::int,
                                         shard_transfer_mode => 'block_writes')`,
      [ledgerShard.slice("ledger_".length), from.port, to],
    );
    expect((await shardsOf(RUN)).port).toBe(to);
    await expectSameReads();
  });

  it("a third worker added and the shards rebalanced onto it: the run's pages read the same rows", async () => {
    third = await startCitusServer();
    const admin = new pg.Client({ connectionString: third.adminUrl });
    await admin.connect();
    await admin.query(`create database "verity_single_shard"`);
    await admin.end();
    const node = new pg.Client({
      connectionString: Object.assign(new URL(third.adminUrl), { pathname: "/verity_single_shard" }).toString(),
    });
    await node.connect();
    await node.query("create extension citus");
    await node.end();
    await pool.query(`select citus_add_node('127.0.0.1', $1::int)`, [third.port]);
    await pool.query(`select citus_rebalance_start(shard_transfer_mode => 'block_writes')`);
    await pool.query(`select citus_rebalance_wait()`);
    expect(await shardPorts()).toEqual(new Set([...workerPorts, third.port]));
    await expectSameReads();
  });
});
