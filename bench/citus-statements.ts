// bench/citus-statements: where a run-scoped page's time goes on a Citus cluster, statement by statement. A small
// cluster (lib/testing/citus-cluster.ts) holds two databases with the small demo: one left on the coordinator ("one
// node"), one distributed. Each page's loader is called with every statement it sends captured; each statement is
// then timed on both databases (--iterations, p50), with the planner Citus chose for it on the cluster (its DEBUG2
// notice: fast-path router, router, or a plan over several shards) and its task count. With --url-one and
// --url-cluster it measures two existing databases instead (a kept bench/scale.ts --citus cluster), and --run names
// the run; --keep <folder> keeps the small cluster there for the next call. --trace N reads each page N times through
// its loaders instead, counting what a page load does outside its statements (trace(), below). Not part of npm test.
//
// `npx tsx bench/citus-statements.ts [--iterations 30] [--pages detail,run,count,...] [--url-one U --url-cluster U --run R] [--keep .data/citus-stmt] [--explain]`
// `npx tsx bench/citus-statements.ts --keep .data/citus-stmt --trace 20 [--rounds 2] [--idle 11] [--pages detail,run]`
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import pg from "pg";
import { loadAverage } from "@/bench/lib/bench-db.ts";
import { capture, installStatementCapture, planned, type Sent } from "@/lib/testing/capture-statements.ts";

const { values } = parseArgs({
  options: {
    iterations: { type: "string", default: "30" },
    pages: { type: "string" },
    "url-one": { type: "string" },
    "url-cluster": { type: "string" },
    run: { type: "string", default: "grpo-main" },
    keep: { type: "string" },
    explain: { type: "boolean" },
    trace: { type: "string" },
    rounds: { type: "string", default: "2" },
    idle: { type: "string" },
  },
});
const ITER = Number(values.iterations);
const RUN = values.run!;

installStatementCapture();

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function timeStatement(c: pg.Client, s: Sent): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < ITER; i++) {
    const t = performance.now();
    await c.query({ text: s.text, values: s.values as unknown[] });
    times.push(performance.now() - t);
  }
  return p50(times);
}

/** Citus's planner for the statement (its DEBUG2 notices) and the plan's task count. */
async function planner(c: pg.Client, s: Sent): Promise<string> {
  const notes: string[] = [];
  const on = (n: { message?: string }) => notes.push(n.message ?? "");
  c.on("notice", on);
  await c.query("set client_min_messages = debug2");
  try {
    await c.query({ text: `explain ${s.text}`, values: s.values as unknown[] });
  } finally {
    await c.query("reset client_min_messages");
    c.off("notice", on);
  }
  const kinds = notes.filter((n) =>
    /fast-path router|Creating router plan|Router planner|pushdown|recursively planned|Plan is router executable|subquery/i.test(
      n,
    ),
  );
  const { rows } = await c.query({ text: `explain ${s.text}`, values: s.values as unknown[] });
  const plan = rows.map((r: Record<string, string>) => r["QUERY PLAN"]).join("\n");
  const tasks = [...plan.matchAll(/Task Count: (\d+)/g)].map((m) => m[1]).join("+");
  return `${[...new Set(kinds.map((k) => k.replace(/^.*?(fast-path router|Creating router plan|recursively planned[^,]*|pushdown)/i, "$1").slice(0, 60)))].join("; ") || (tasks ? "?" : "local")} ${tasks ? `(tasks ${tasks})` : ""}`;
}

async function pages() {
  const { browseLedger, countLedger } = await import("@/lib/ledger/browse.ts");
  const { browseParamsSchema } = await import("@/lib/ledger/browse-schema.ts");
  const { loadTrajectoryPage } = await import("@/lib/ledger/loaders.ts");
  const { loadRunPage } = await import("@/lib/runs/loaders.ts");
  const { parseChartQuery } = await import("@/lib/monitors/schema.ts");
  const { listRunSummaries } = await import("@/lib/runs/data.ts");
  const { db } = await import("@/lib/db/client.ts");
  return async (c: pg.Client): Promise<Record<string, (i?: number) => Promise<unknown>>> => {
    const picks = (
      await c.query<{ trajectory_id: string }>(
        `select trajectory_id from ledger where run_id = $1 and is_current and group_id is not null order by hashint8(id) limit 40`,
        [RUN],
      )
    ).rows;
    return {
      "first page": () => browseLedger(browseParamsSchema.parse({ run: RUN }), 100),
      "first page capped by reward": () =>
        browseLedger(browseParamsSchema.parse({ run: RUN, capped: "yes", sort: "reward", dir: "asc" }), 100),
      count: () => countLedger(browseParamsSchema.parse({ run: RUN })),
      "count capped": () => countLedger(browseParamsSchema.parse({ run: RUN, capped: "yes" })),
      // A rollout of its own each time with --trace (as bench/scale.ts reads 40), the first one otherwise.
      detail: (i = 0) => loadTrajectoryPage(picks[i % picks.length].trajectory_id, { run: RUN }),
      run: () => loadRunPage(RUN, parseChartQuery({}).query, "admin"),
      "runs list": () => listRunSummaries(db()),
    };
  };
}

async function setUp(): Promise<{ urls: { one: string; cluster: string }; stop: () => Promise<void> }> {
  if (values["url-one"] && values["url-cluster"])
    return { urls: { one: values["url-one"], cluster: values["url-cluster"] }, stop: async () => {} };
  const { startCitusCluster, createCitusDatabase, databaseUrl } = await import("@/lib/testing/citus-cluster.ts");
  const { migrate } = await import("@/lib/db/migrate.ts");
  const { prepareFirstRun } = await import("@/lib/demo/first-run.ts");
  const { distributeDatabase } = await import("@/lib/db/distribute.ts");
  const { env } = await import("@/lib/env.ts");
  const cluster = await startCitusCluster("verity_stmt_cluster", ["log_connections = on"], values.keep);
  if (cluster.resumed)
    return {
      urls: { one: databaseUrl(cluster.adminUrls[0], "verity_stmt_one"), cluster: cluster.url },
      stop: cluster.stop,
    };
  const one = await createCitusDatabase(cluster.adminUrls, "verity_stmt_one");
  for (const url of [one, cluster.url]) {
    await migrate(url);
    await prepareFirstRun(url, () => undefined, { ...env(), VERITY_DEMO: "1", VERITY_DEMO_SIZE: "small" });
  }
  await distributeDatabase(cluster.url);
  return { urls: { one, cluster: cluster.url }, stop: cluster.stop };
}

/** Connections each node's log says were authorized into `database` so far (log_connections on). */
function connectionsLogged(root: string, database: string): number[] {
  return ["coordinator", "worker1", "worker2"].map((node) => {
    const file = path.join(root, `${node}.log`);
    if (!fs.existsSync(file)) return NaN;
    return fs.readFileSync(file, "utf8").split(`connection authorized: user=postgres database=${database}`).length - 1;
  });
}

/**
 * --trace N: each page read N times through its loaders on each database in turns (--rounds), with what happens
 * outside its statements counted: its statements, the time spent inside them as the client sees it, the coordinator
 * backends it used, the connections its pool opened, and the connections each node accepted (log_connections, with
 * --keep), per page load after two warm-up loads. --idle S waits S seconds between loads (a user reading the page).
 */
async function trace(urls: { one: string; cluster: string }, make: Awaited<ReturnType<typeof pages>>) {
  const { bindDatabase, db, poolOf } = await import("@/lib/db/client.ts");
  const n = Number(values.trace);
  const idle = Number(values.idle ?? 0) * 1000;
  const root = values.keep ? path.resolve(values.keep) : null;
  const admin = new pg.Client({ connectionString: urls.one });
  await admin.connect();
  const reads = await make(admin);
  await admin.end();
  const wanted = values.pages?.split(",");
  for (let round = 0; round < Number(values.rounds); round++)
    for (const [name, read] of Object.entries(reads)) {
      if (wanted && !wanted.some((w) => name.includes(w))) continue;
      for (const label of ["one", "cluster"] as const) {
        await bindDatabase(urls[label]);
        let opened = 0;
        poolOf(db())!.on("connect", () => opened++);
        await read();
        await read();
        const database = new URL(urls[label]).pathname.slice(1);
        const before = root ? connectionsLogged(root, database) : [];
        const opened0 = opened;
        const walls: number[] = [];
        const inside: number[] = [];
        const counts: number[] = [];
        const backends: number[] = [];
        for (let i = 0; i < n; i++) {
          if (idle) await new Promise((r) => setTimeout(r, idle));
          const t = performance.now();
          const { statements } = await capture(() => read(i));
          walls.push(performance.now() - t);
          inside.push(statements.reduce((a, s) => a + (s.answered ?? s.sent) - s.sent, 0));
          counts.push(statements.length);
          backends.push(new Set(statements.map((s) => s.pid)).size);
        }
        const after = root ? connectionsLogged(root, database) : [];
        const perLoad = (a: number, b: number) => ((b - a) / n).toFixed(2);
        console.log(
          `${name} | ${label} | wall p50 ${p50(walls).toFixed(2)} ms | statements ${p50(counts)} | inside them (sum) ${p50(inside).toFixed(2)} ms | backends ${p50(backends)} | pool connections/load ${perLoad(opened0, opened)} | node connections/load ${after.map((a, i) => perLoad(before[i], a)).join(" ")} | ${loadAverage()}`,
        );
        await db().$disconnect();
      }
    }
}

async function main() {
  const { urls, stop } = await setUp();
  if (values.trace) {
    try {
      return await trace(urls, await pages());
    } finally {
      await stop();
    }
  }
  const { bindDatabase, db } = await import("@/lib/db/client.ts");
  const make = await pages();
  try {
    const clients = {
      one: new pg.Client({ connectionString: urls.one }),
      cluster: new pg.Client({ connectionString: urls.cluster }),
    };
    await clients.one.connect();
    await clients.cluster.connect();
    const wanted = values.pages?.split(",");
    for (const [name, read] of Object.entries(await make(clients.one))) {
      if (wanted && !wanted.some((w) => name.includes(w))) continue;
      const whole: Record<string, number> = {};
      let statements: Sent[] = [];
      for (const label of ["one", "cluster"] as const) {
        await bindDatabase(urls[label]);
        await read();
        const times: number[] = [];
        for (let i = 0; i < ITER; i++) {
          const t = performance.now();
          await read();
          times.push(performance.now() - t);
        }
        whole[label] = p50(times);
        if (label === "one") statements = (await capture(read)).statements;
        await db().$disconnect();
      }
      console.log(
        `\n## ${name}: one node ${whole.one.toFixed(2)} ms, cluster ${whole.cluster.toFixed(2)} ms (${(whole.cluster / whole.one).toFixed(2)}×), ${statements.filter(planned).length} statements (${loadAverage()})`,
      );
      for (const s of statements.filter(planned)) {
        const one = await timeStatement(clients.one, s);
        const cl = await timeStatement(clients.cluster, s);
        if (values.explain && cl - one > 3)
          for (const c of [clients.one, clients.cluster]) {
            const { rows } = await c.query({
              text: `explain (analyze, buffers) ${s.text}`,
              values: s.values as unknown[],
            });
            console.log(rows.map((r: Record<string, string>) => `    ${r["QUERY PLAN"]}`).join("\n"));
          }
        console.log(
          `- ${one.toFixed(2)} → ${cl.toFixed(2)} ms (+${(cl - one).toFixed(2)}) ${await planner(clients.cluster, s)}: ${s.text.replace(/\s+/g, " ").slice(0, 160)}`,
        );
      }
    }
    await clients.one.end();
    await clients.cluster.end();
  } finally {
    await stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
