// Ingest benchmark: `npx tsx bench/ingest.ts [--n 200000] [--batch 2000] [--api-first]`.
// N pre-scored rollouts (each rollout line followed by its verifier score record) go into three fresh databases:
//   raw COPY  the baseline — parse each line, COPY the same columns into scratch tables with no index/constraint
//   CLI       `verity ingest FILE` as its own process (validation, hashing, dedupe lookups, COPY, rollups)
//   API       POST /api/v1/ingest's handler on a node:http server in its own process, the file streamed to it
// and prints rollouts/s, the ratios to raw COPY, and the peak RSS of the ingesting process (CLI and API server).
// Uses DATABASE_URL's server, else the embedded one; the scratch databases are dropped afterwards.
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { createDatabaseIfMissing, ensureDatabase } from "@/lib/db/embedded.ts";
import { migrate } from "@/lib/db/migrate.ts";
import { writePrescoredFile } from "@/bench/lib/ingest-fixture.ts";
import { watchBackendCpu } from "@/bench/lib/backend-cpu.ts";
import { rawCopy } from "@/bench/lib/raw-copy.ts";
import { quiesce, timed, withDb } from "@/bench/lib/timed-process.ts";
import { INGEST_NODE_FLAGS } from "@/lib/ingest/memory.ts";

const { values } = parseArgs({
  options: {
    n: { type: "string", default: "200000" },
    batch: { type: "string", default: "2000" },
    keep: { type: "boolean" },
    "api-first": { type: "boolean" },
  },
});
const N = Number(values.n);
const BATCH = Number(values.batch);
const say = (s: string) => process.stdout.write(s + "\n");

async function counts(url: string): Promise<{ rollouts: number; ledger: number }> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const r = await c.query(
    "select (select count(*) from rollouts)::int as rollouts, (select count(*) from ledger)::int as ledger",
  );
  await c.end();
  return r.rows[0];
}

type Names = { raw: string; cli: string; api: string; raw2: string };
type Fixture = Awaited<ReturnType<typeof writePrescoredFile>>;

async function main() {
  const database = await ensureDatabase("postgres");
  const admin = database.adminUrl;
  const tag = `${process.pid}`;
  const names: Names = {
    raw: `verity_bench_raw_${tag}`,
    cli: `verity_bench_cli_${tag}`,
    api: `verity_bench_api_${tag}`,
    raw2: `verity_bench_raw2_${tag}`,
  };
  const dir = path.resolve("bench/out");
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `ingest-${N}.ndjson`);
  try {
    say(`generating ${N.toLocaleString("en-US")} pre-scored rollouts -> ${path.relative(process.cwd(), file)}`);
    const fx = await writePrescoredFile(file, N);
    say(
      `  ${fx.lines.toLocaleString("en-US")} lines (${fx.cases} cases, ${fx.rollouts} rollouts + their score records), ${(fx.bytes / 1e6).toFixed(1)} MB`,
    );
    for (const n of Object.values(names)) await createDatabaseIfMissing(admin, n);
    await migrate(withDb(admin, names.cli));
    await migrate(withDb(admin, names.api));

    say("raw COPY …");
    const raw = await measureRawCopy(admin, names.raw, file);
    // CLI and API take turns going first (--api-first): the first ingest after the baseline may run on a server
    // still settling from it, so a single order could favour one path.
    let c: Awaited<ReturnType<typeof runCli>>;
    let a: Awaited<ReturnType<typeof runApi>>;
    if (values["api-first"]) {
      a = await runApi(admin, names, file, fx, names.raw);
      c = await runCli(admin, names, file, names.api);
    } else {
      c = await runCli(admin, names, file, names.raw);
      a = await runApi(admin, names, file, fx, names.cli);
    }
    // The baseline again, last: the machine's load drifts during a run, so the ratios use the mean of both.
    say("raw COPY again …");
    const raw2 = await measureRawCopy(admin, names.raw2, file, values["api-first"] ? names.cli : names.api);
    await checkStored(admin, names, fx, c.cliSummary, a.apiSummary);
    printTable(fx, raw, raw2, c, a);
  } finally {
    for (const n of Object.values(names)) {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`drop database if exists "${n}" with (force)`).catch(() => undefined);
      await c.end();
    }
    if (!values.keep) fs.rmSync(file, { force: true });
    await database.stop();
  }
}

/** The baseline: the file's rows COPYed straight into `db`, with the CPU of this process and of its backend. */
async function measureRawCopy(admin: string, db: string, file: string, previous?: string) {
  await quiesce(admin, previous);
  const pgCpu = watchBackendCpu(admin, db);
  const cpu0 = process.cpuUsage();
  const { seconds } = await rawCopy(withDb(admin, db), file, BATCH);
  const cpu = process.cpuUsage(cpu0);
  return { seconds, node: (cpu.user + cpu.system) / 1e6, pgCpu: await pgCpu.stop() };
}

async function runCli(admin: string, names: Names, file: string, previous: string) {
  say("CLI (verity ingest) …");
  await quiesce(admin, previous);
  const env = { ...process.env, DATABASE_URL: withDb(admin, names.cli) };
  const cliPg = watchBackendCpu(admin, names.cli);
  // As a user runs it (the npm script sets the process's memory flags).
  const cli = await timed(
    "npm",
    ["run", "-s", "verity", "--", "ingest", file, "--batch", String(BATCH), "--no-progress"],
    env,
  );
  if (cli.code !== 0) throw new Error(`the CLI failed: ${cli.stderr}`);
  const cliSummary = JSON.parse(cli.stdout.trim().split("\n").pop()!);
  const cliPgCpu = await cliPg.stop();
  return { cli, cliSummary, cliPgCpu };
}

async function runApi(admin: string, names: Names, file: string, fx: Fixture, previous: string) {
  say("API (POST /api/v1/ingest handler on node:http) …");
  await quiesce(admin, previous);
  let resolvePort: (p: number) => void;
  const port = new Promise<number>((r) => (resolvePort = r));
  // With the console server's memory flags (bin/start.ts).
  const server = timed(
    process.execPath,
    [...INGEST_NODE_FLAGS, "--import", "tsx", "bench/lib/api-server.ts", withDb(admin, names.api)],
    process.env,
    (s) => {
      const m = /PORT (\d+)/.exec(s);
      if (m) resolvePort(Number(m[1]));
    },
  );
  const apiPg = watchBackendCpu(admin, names.api);
  const apiStarted = process.hrtime.bigint();
  const apiBody = await new Promise<string>(async (resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port: await port,
        method: "POST",
        path: `/api/v1/ingest?batch=${BATCH}`,
        headers: { "content-type": "application/x-ndjson", "content-length": fx.bytes },
      },
      (res) => {
        let body = "";
        res.on("data", (c) => (body += c));
        res.on("end", () => resolve(body));
      },
    );
    req.on("error", reject);
    fs.createReadStream(file, { highWaterMark: 1 << 20 }).pipe(req);
  });
  const apiSeconds = Number(process.hrtime.bigint() - apiStarted) / 1e9;
  const apiServer = await server;
  const apiPgCpu = await apiPg.stop();
  const apiSummary = JSON.parse(apiBody);
  return { apiSeconds, apiServer, apiPgCpu, apiSummary };
}

/** Both paths stored every rollout and its entry, and rejected nothing. */
async function checkStored(
  admin: string,
  names: Names,
  fx: Fixture,
  cliSummary: { ok: boolean; rejected?: number },
  apiSummary: { ok: boolean; rejected?: number },
) {
  const cliCounts = await counts(withDb(admin, names.cli));
  const apiCounts = await counts(withDb(admin, names.api));
  for (const [what, s, c] of [
    ["CLI", cliSummary, cliCounts],
    ["API", apiSummary, apiCounts],
  ] as const) {
    if (!s.ok || s.rejected || c.rollouts !== fx.rollouts || c.ledger !== fx.rollouts)
      throw new Error(
        `${what} did not store everything: ${JSON.stringify({ ...s, rejects: undefined })} ${JSON.stringify(c)}`,
      );
  }
}

type RawRun = Awaited<ReturnType<typeof measureRawCopy>>;

function printTable(
  fx: Fixture,
  raw: RawRun,
  raw2: RawRun,
  { cli, cliPgCpu }: Awaited<ReturnType<typeof runCli>>,
  { apiSeconds, apiServer, apiPgCpu }: Awaited<ReturnType<typeof runApi>>,
) {
  const rate = (secs: number) => fx.rollouts / secs;
  const total = (node: number, pgCpu: number | null) => node + (pgCpu ?? NaN);
  const rawSeconds = (raw.seconds + raw2.seconds) / 2;
  const rawTotal = (total(raw.node, raw.pgCpu) + total(raw2.node, raw2.pgCpu)) / 2;
  const rows = [
    ...(
      [
        ["raw COPY (baseline), first", raw],
        ["raw COPY (baseline), last", raw2],
      ] as const
    ).map(
      ([name, r]) =>
        [name, r.seconds, rawSeconds / r.seconds, r.node, r.pgCpu, rawTotal / total(r.node, r.pgCpu), null] as const,
    ),
    [
      "CLI: verity ingest",
      cli.seconds,
      rawSeconds / cli.seconds,
      cli.cpu,
      cliPgCpu,
      rawTotal / total(cli.cpu, cliPgCpu),
      cli.rssMb,
    ] as const,
    [
      "API: POST /api/v1/ingest",
      apiSeconds,
      rawSeconds / apiSeconds,
      apiServer.cpu,
      apiPgCpu,
      rawTotal / total(apiServer.cpu, apiPgCpu),
      apiServer.rssMb,
    ] as const,
  ];
  const f1 = (x: number | null) => (x === null || Number.isNaN(x) ? "–" : x.toFixed(1));
  say("");
  say(
    `${N.toLocaleString("en-US")} pre-scored rollouts (${fx.lines.toLocaleString("en-US")} lines, ${(fx.bytes / 1e6).toFixed(0)} MB), batch ${BATCH}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model}), load ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")}`,
  );
  say(
    "| path | wall s | rollouts/s | vs raw COPY (wall, mean of both) | CPU s: Node | CPU s: PostgreSQL | vs raw COPY (CPU) | peak RSS |",
  );
  say("|---|---:|---:|---:|---:|---:|---:|---:|");
  for (const [name, secs, ratio, node, pgCpu, cpuRatio, rss] of rows) {
    say(
      `| ${name} | ${secs.toFixed(1)} | ${Math.round(rate(secs)).toLocaleString("en-US")} | ${ratio.toFixed(2)}x | ${f1(node)} | ${f1(pgCpu)} | ${Number.isNaN(cpuRatio) ? "–" : `${cpuRatio.toFixed(2)}x`} | ${rss === null ? "–" : `${Math.round(rss)} MB`} |`,
    );
  }
  say("");
  say(
    `targets: CLI >= 0.50x raw COPY (${(rawSeconds / cli.seconds).toFixed(2)}x), API >= 0.40x (${(rawSeconds / apiSeconds).toFixed(2)}x), peak RSS < 300 MB (${Math.round(Math.max(cli.rssMb, apiServer.rssMb))} MB)`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`bench/ingest: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
