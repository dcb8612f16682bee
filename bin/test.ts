// `npm test`: typecheck, lint, unit and integration tests (Vitest, a fresh database per run), end-to-end tests
// (Playwright in Debian's Chromium against the built console on its own fresh database with demo data) and the
// Python client's tests (unittest, against the built console on a fresh database without demo data), and the Citus
// tests (Vitest, against a coordinator and two workers it starts; skipped where Citus is not installed); with Citus,
// the end-to-end part runs the smoke of the main pages again against a console on a distributed demo database.
// Ends with one line "N passed, N failed". `npm test -- unit|int|citus|e2e|py|static` runs one part.
import { spawn, type SpawnOptions } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type net from "node:net";
import path from "node:path";
import pg from "pg";
import { createApiToken, createUser } from "@/lib/admin/mutations.ts";
import { createClient } from "@/lib/db/client.ts";
import { createDatabaseIfMissing, ensureDatabase } from "@/lib/db/embedded.ts";
import { migrate } from "@/lib/db/migrate.ts";
import { prepareFirstRun } from "@/lib/demo/first-run.ts";
import { refreshStoredAlarms } from "@/lib/monitors/on-start.ts";
import { distributeDatabase } from "@/lib/db/distribute.ts";
import { missingCitus, startCitusCluster } from "@/lib/testing/citus-cluster.ts";
import { buildConsoleIfStale, startConsoleServer, type ConsoleServer } from "@/lib/testing/console-process.ts";
import { unittestCounts } from "@/bin/unittest-report.ts";
import { checkLayers, formatReport } from "@/bin/check-layers.ts";

// The e2e database gets the small demo (quick to load); set before lib/env.ts reads and caches the environment.
process.env.VERITY_DEMO_SIZE ??= "small";

const ROOT = process.cwd();
const OUT = path.join(ROOT, ".data", "test-results");
const PARTS = ["static", "unit", "int", "citus", "e2e", "py"];
const parts = new Set(process.argv.slice(2).filter((a) => PARTS.includes(a)));
const extra = process.argv.slice(2).filter((a) => !PARTS.includes(a));
const want = (p: string) => parts.size === 0 || parts.has(p);

let passed = 0;
let failed = 0;
let skipped = 0;
const failures: string[] = [];
const say = (line: string) => process.stdout.write(`\n▶ ${line}\n`);

function run(cmd: string, args: string[], opts: SpawnOptions = {}): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: "inherit", ...opts });
    child.on("close", (code) => resolve(code ?? 1));
  });
}

function tally(name: string, p: number, f: number, which: string[] = []) {
  passed += p;
  failed += f;
  if (f) failures.push(`${name}: ${f} failed${which.length ? ` (${which.join("; ")})` : ""}`);
}

/** The first line of a failure message, without colour codes, at most 300 characters. */
const firstLine = (m: string | undefined) =>
  (m ?? "")
    .replace(/\u001b\[[0-9;]*m/g, "")
    .trim()
    .split("\n")[0]
    .slice(0, 300);

type VitestFile = {
  name: string;
  status: string;
  message?: string;
  assertionResults: { fullName: string; status: string; failureMessages?: string[] }[];
};

/**
 * What failed in a vitest JSON report, one entry per failed test or per file that failed without a failed test (a
 * hook or an import that threw), so the summary at the end of the output names it.
 */
function vitestFailures(files: VitestFile[]): string[] {
  const out: string[] = [];
  for (const f of files) {
    const file = path.relative(process.cwd(), f.name);
    const tests = f.assertionResults.filter((a) => a.status === "failed");
    for (const t of tests) out.push(`${file} › ${t.fullName}: ${firstLine(t.failureMessages?.[0])}`);
    if (tests.length || f.status !== "failed") continue;
    // A hook or the file's imports threw: its tests are skipped, and the error is only in the output above.
    const skipped = f.assertionResults.filter((a) => a.status === "skipped").length;
    out.push(
      `${file}: ${firstLine(f.message) || `failed outside its tests (a hook or an import), ${skipped} skipped`}`,
    );
  }
  return out;
}

function withDb(url: string, name: string) {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** A fresh database named `<prefix>_<random>` for a part's console, and the environment of a production console on it. */
async function consoleDatabase(adminUrl: string, prefix: string, more: Record<string, string>) {
  const name = `${prefix}_${crypto.randomBytes(3).toString("hex")}`;
  await createDatabaseIfMissing(adminUrl, name);
  const url = withDb(adminUrl, name);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: url,
    NEXT_TELEMETRY_DISABLED: "1",
    NODE_ENV: "production",
    ...more,
  };
  return { name, url, env };
}

async function dropDatabase(adminUrl: string, name: string) {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  await c.query(`drop database if exists "${name}" with (force)`).catch(() => undefined);
  await c.end();
}

async function staticChecks() {
  say("typecheck (tsc --noEmit)");
  const tsc = await run("npx", ["tsc", "--noEmit"]);
  tally("typecheck", tsc === 0 ? 1 : 0, tsc === 0 ? 0 : 1);
  say("format (prettier --check)");
  const fmt = await run("npx", ["prettier", "--check", ".", "--log-level=warn"]);
  tally("format", fmt === 0 ? 1 : 0, fmt === 0 ? 0 : 1);
  say("lint (eslint)");
  const lint = await run("npx", ["eslint", ".", "--max-warnings=0"]);
  tally("lint", lint === 0 ? 1 : 0, lint === 0 ? 0 : 1);
  say("layers (imports point down; no circle of lib/ folders: docs/architecture.md)");
  const layers = formatReport(checkLayers(ROOT));
  for (const line of layers) process.stdout.write(`${line}\n`);
  tally("layers", layers.length ? 0 : 1, layers.length ? 1 : 0, layers.slice(0, 3));
}

async function vitest(
  project: "unit" | "int" | "citus",
  env: NodeJS.ProcessEnv,
  args = extra,
  label: string = project,
) {
  say(`${label} tests (vitest)`);
  const out = path.join(OUT, `vitest-${label}.json`);
  const unhandled = path.join(OUT, `vitest-${label}-unhandled.txt`);
  fs.rmSync(out, { force: true });
  fs.rmSync(unhandled, { force: true });
  const code = await run(
    "npx",
    [
      "vitest",
      "run",
      "--project",
      project,
      "--reporter=default",
      "--reporter=json",
      `--outputFile.json=${out}`,
      ...args,
    ],
    { env: { ...env, VERITY_VITEST_UNHANDLED: unhandled } },
  );
  const errors = fs.existsSync(unhandled)
    ? fs
        .readFileSync(unhandled, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((e) => `outside any test: ${e}`)
    : [];
  if (!fs.existsSync(out)) return tally(`${label} tests`, 0, 1, errors);
  const r = JSON.parse(fs.readFileSync(out, "utf8")) as {
    numPassedTests: number;
    numFailedTests: number;
    numTotalTestSuites: number;
    success: boolean;
    testResults?: VitestFile[];
  };
  // a suite that fails to load has no failed tests but fails the run: count it
  tally(`${label} tests`, r.numPassedTests, r.numFailedTests || (code !== 0 ? 1 : 0), [
    ...vitestFailures(r.testResults ?? []),
    ...errors,
  ]);
}

/**
 * The integration tests that run a second time against a distributed database on a Citus cluster (`npm test --
 * citus`): every write path and every run-scoped read (docs/scale.md, "Verity on Citus"). A test in them that cannot
 * apply on Citus is skipped there (`ON_CITUS`, lib/testing/scratch-db.ts) with its reason beside it.
 */
const CITUS_INT_FILES = [
  // ingest: idempotence, conflicts, any batch cut, a killed ingest re-run, the API; the per-run lock
  "lib/ingest/ingest.int.test.ts",
  "lib/ingest/interrupt.int.test.ts",
  "app/api/v1/ingest/route.int.test.ts",
  "lib/ingest/run-lock.int.test.ts",
  // browse and counts (the estimate of a large count, search, "find this ticket" across runs), detail, groups, export
  "lib/ledger/browse.int.test.ts",
  "lib/ledger/count-estimate.int.test.ts",
  "lib/ledger/search-view.int.test.ts",
  "lib/search/browse-search.int.test.ts",
  "lib/search/omitted-words.int.test.ts",
  "lib/search/match-set.int.test.ts",
  "lib/ledger/detail.int.test.ts",
  "lib/ledger/group.int.test.ts",
  "lib/ledger/export.int.test.ts",
  // the run page: its summary, charts and marks
  "lib/runs/data.int.test.ts",
  "lib/runs/loaders.int.test.ts",
  "lib/monitors/charts.int.test.ts",
  "lib/monitors/corrected-curve.int.test.ts",
  "lib/monitors/score-change-marks.int.test.ts",
  // shadow-audit sampling (from a search too), leases and reviews
  "lib/cli/sample.int.test.ts",
  "lib/audit/mutations.int.test.ts",
  "lib/audit/search-batch.int.test.ts",
  "lib/review/leases.int.test.ts",
  "lib/review/mutations.int.test.ts",
  // agreement, pairwise
  "lib/agreement/report.int.test.ts",
  "lib/agreement/data.int.test.ts",
  "lib/audit/pair-batch.int.test.ts",
  "lib/pairwise/pair-review.int.test.ts",
  "lib/pairwise/report.int.test.ts",
  // clusters: the report, a cluster's status, a bulk fix
  "lib/clusters/data.int.test.ts",
  "lib/clusters/mutations.int.test.ts",
  "lib/clusters/bulk-fix.int.test.ts",
  // monitors and alarms after a write, the gate
  "lib/monitors/evaluate.int.test.ts",
  "lib/server/after-write.int.test.ts",
  "lib/gate/gate.int.test.ts",
  // case revisions and re-scores, archive, reward-function runs
  "lib/cases/cases.int.test.ts",
  "lib/cases/apply-fix.int.test.ts",
  "lib/ledger/mutations.int.test.ts",
  "lib/runs/archive.int.test.ts",
  "lib/rewards/runs.int.test.ts",
  // Not here: lib/db/append-only (written against a run's partitions; lib/db/citus.citus.test.ts checks those rules on
  // the cluster), and the tests of the single node's own machinery (migrations, partitions, the embedded server).
];

/**
 * The Citus part's integration tests: a cluster of its own, a database migrated and distributed on it, and the files
 * of CITUS_INT_FILES (those matching the file filters among the extra arguments, when there are any) run on it.
 */
async function intOnCitus(env: NodeJS.ProcessEnv) {
  const filters = extra.filter((a) => !a.startsWith("-"));
  const files = CITUS_INT_FILES.filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)));
  if (!files.length) return;
  const started = Date.now();
  const cluster = await startCitusCluster("verity_test");
  try {
    await migrate(cluster.url);
    await distributeDatabase(cluster.url);
    say(`integration tests on the cluster: started, migrated and distributed in ${Date.now() - started} ms`);
    await vitest(
      "int",
      {
        ...env,
        DATABASE_URL: cluster.url,
        VERITY_TEST_ADMIN_URL: cluster.adminUrls[0],
        VERITY_TEST_CITUS_NODES: cluster.adminUrls.join(","),
      },
      [...files, ...extra.filter((a) => a.startsWith("-"))],
      "int-citus",
    );
  } finally {
    await cluster.stop();
  }
}

type PlaywrightSuite = {
  title: string;
  file?: string;
  suites?: PlaywrightSuite[];
  specs?: {
    title: string;
    file?: string;
    ok: boolean;
    tests?: { results?: { error?: { message?: string } }[] }[];
  }[];
};

/** The specs that failed in a Playwright JSON report, each with its file and the first line of its last error. */
function playwrightFailures(suites: PlaywrightSuite[], titles: string[] = []): string[] {
  const out: string[] = [];
  for (const s of suites) {
    const path = s.file && titles.length === 0 ? [] : [...titles, s.title];
    for (const spec of s.specs ?? []) {
      if (spec.ok) continue;
      const error = spec.tests?.flatMap((t) => t.results ?? []).findLast((x) => x.error)?.error?.message;
      out.push(`${spec.file ?? s.file ?? ""} › ${[...path, spec.title].join(" › ")}: ${firstLine(error)}`);
    }
    out.push(...playwrightFailures(s.suites ?? [], path));
  }
  return out;
}

/** Playwright with `args` against the console at `base` (its database `url`), tallied as `label`. */
async function playwright(base: string, url: string, args: string[], label: string) {
  say(`${label} tests (playwright, ${base})`);
  const out = path.join(OUT, `playwright-${label}.json`);
  fs.rmSync(out, { force: true });
  await run("npx", ["playwright", "test", "--reporter=list,json", ...args], {
    env: { ...process.env, VERITY_E2E_BASE_URL: base, DATABASE_URL: url, PLAYWRIGHT_JSON_OUTPUT_NAME: out },
  });
  if (!fs.existsSync(out)) return tally(label, 0, 1);
  const r = JSON.parse(fs.readFileSync(out, "utf8")) as {
    stats: { expected: number; unexpected: number; flaky: number };
    suites?: PlaywrightSuite[];
  };
  tally(label, r.stats.expected + r.stats.flaky, r.stats.unexpected, playwrightFailures(r.suites ?? []));
}

/** The spec of the main pages, run again against a console on a distributed database (e2eOnCitus). */
const CITUS_SMOKE = "e2e/smoke.spec.ts";

/**
 * The smoke of the main pages against a console whose database is distributed on a Citus cluster of its own (the
 * demo loaded, then `verity db distribute`), when Citus is installed and the spec is among those asked for.
 */
async function e2eOnCitus(env: NodeJS.ProcessEnv) {
  const files = extra.filter((a) => !a.startsWith("-"));
  if (files.length > 0 && !files.some((f) => CITUS_SMOKE.includes(f))) return;
  const missing = missingCitus();
  if (missing) return say(`end-to-end smoke on Citus: skipped: ${missing}`);
  const started = Date.now();
  const cluster = await startCitusCluster("verity_e2e");
  let server: ConsoleServer | undefined;
  try {
    await migrate(cluster.url);
    await prepareFirstRun(cluster.url, (l) => process.stdout.write(`  ${l}\n`));
    await refreshStoredAlarms(cluster.url, (l) => process.stdout.write(`  ${l}\n`));
    await distributeDatabase(cluster.url);
    server = await startConsoleServer({ ...env, DATABASE_URL: cluster.url });
    say(`a Citus cluster with the demo, distributed, and its console in ${Date.now() - started} ms`);
    await playwright(server.base, cluster.url, [CITUS_SMOKE, ...extra.filter((a) => a.startsWith("-"))], "e2e-citus");
  } finally {
    await server?.stop();
    await cluster.stop();
    say(`end-to-end smoke on Citus: ${((Date.now() - started) / 1000).toFixed(0)} s in all`);
  }
}

async function e2e(adminUrl: string) {
  const { name, url, env } = await consoleDatabase(adminUrl, "verity_e2e", { VERITY_DEMO: "1" });
  let server: ConsoleServer | undefined;
  try {
    await migrate(url);
    await prepareFirstRun(url, (l) => process.stdout.write(`  ${l}\n`));
    await refreshStoredAlarms(url, (l) => process.stdout.write(`  ${l}\n`));
    if (!(await buildConsoleIfStale(env, say))) return tally("build", 0, 1);
    server = await startConsoleServer(env);
    await playwright(server.base, url, extra, "e2e");
    await server.stop();
    server = undefined;
    await e2eOnCitus(env);
  } finally {
    await server?.stop();
    await dropDatabase(adminUrl, name);
  }
}

/** An admin and two API tokens (scopes ingest, read) in the Python tests' database, made as the console makes them. */
async function pythonTestTokens(url: string): Promise<{ ingest: string; read: string }> {
  const client = createClient(url);
  try {
    const email = "python-client@test.local";
    const u = await createUser(
      { email, name: "", role: "admin", password: crypto.randomBytes(18).toString("base64url") },
      { label: "npm test" },
      client,
    );
    if (!u.ok) throw new Error(u.error);
    const actor = { userId: u.id, email };
    const ingest = await createApiToken({ name: "python ingest", scopes: ["ingest"] }, actor, client);
    const read = await createApiToken({ name: "python read", scopes: ["read"] }, actor, client);
    return { ingest: ingest.token, read: read.token };
  } finally {
    await client.$disconnect();
  }
}

/**
 * A control endpoint on 127.0.0.1 for a test process that is not this one (the Python client's tests):
 * `POST /kill` and `POST /start` act on the console and answer 200 when done (500 with the reason otherwise).
 */
async function controlEndpoint(server: ConsoleServer): Promise<{ url: string; close: () => Promise<void> }> {
  const srv = http.createServer((req, res) => {
    const action = req.method === "POST" ? { "/kill": server.kill, "/start": server.start }[req.url ?? ""] : undefined;
    if (!action) {
      res.writeHead(404).end();
      return;
    }
    action().then(
      () => res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}'),
      (err: Error) =>
        res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: err.message })),
    );
  });
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", () => resolve()));
  const port = (srv.address() as net.AddressInfo).port;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => srv.close(() => resolve())) };
}

async function python(adminUrl: string) {
  const { name, url, env } = await consoleDatabase(adminUrl, "verity_py", { VERITY_DEMO: "0" });
  let server: ConsoleServer | undefined;
  let control: { url: string; close: () => Promise<void> } | undefined;
  try {
    await migrate(url);
    const tokens = await pythonTestTokens(url);
    if (!(await buildConsoleIfStale(env, say))) return tally("build", 0, 1);
    server = await startConsoleServer(env);
    control = await controlEndpoint(server);
    say(`python client tests (unittest, ${server.base})`);
    const child = spawn("python3", ["-m", "unittest", "discover", "-s", "clients/python/tests", "-v", ...extra], {
      env: {
        ...process.env,
        PYTHONPATH: path.join(ROOT, "clients", "python"),
        PYTHONDONTWRITEBYTECODE: "1",
        VERITY_TEST_URL: server.base,
        VERITY_TEST_INGEST_TOKEN: tokens.ingest,
        VERITY_TEST_READ_TOKEN: tokens.read,
        VERITY_TEST_CONTROL_URL: control.url,
      },
      stdio: ["ignore", "inherit", "pipe"],
    });
    // unittest writes its report on stderr: pass it through and keep it for the tally.
    let report = "";
    child.stderr!.on("data", (d: Buffer) => {
      report += d.toString("utf8");
      process.stderr.write(d);
    });
    const code = await new Promise<number>((resolve) => child.on("close", (c) => resolve(c ?? 1)));
    const t = unittestCounts(report);
    // A run that crashed before its summary, or exited non-zero without a failure in it, counts as one failure.
    tally("python client tests", t?.passed ?? 0, t ? t.failed || (code !== 0 ? 1 : 0) : 1);
  } finally {
    await control?.close();
    await server?.stop();
    await dropDatabase(adminUrl, name);
  }
}

async function main(): Promise<number> {
  fs.mkdirSync(OUT, { recursive: true });
  if (want("static")) await staticChecks();
  if (want("unit")) await vitest("unit", { ...process.env, NODE_ENV: "test" });
  if (want("citus")) {
    const missing = missingCitus();
    if (missing) {
      say(`citus tests: skipped: ${missing}`);
      skipped++;
    } else {
      const started = Date.now();
      await vitest("citus", { ...process.env, NODE_ENV: "test" }, ["--passWithNoTests", ...extra]);
      await intOnCitus({ ...process.env, NODE_ENV: "test" });
      say(`citus part: ${((Date.now() - started) / 60_000).toFixed(1)} minutes`);
    }
  }
  if (want("int") || want("e2e") || want("py")) {
    const database = await ensureDatabase("postgres");
    const adminUrl = database.adminUrl;
    try {
      if (want("int")) {
        const name = `verity_test_${crypto.randomBytes(3).toString("hex")}`;
        await createDatabaseIfMissing(adminUrl, name);
        const url = withDb(adminUrl, name);
        try {
          await migrate(url);
          await vitest("int", { ...process.env, NODE_ENV: "test", DATABASE_URL: url, VERITY_TEST_ADMIN_URL: adminUrl });
        } finally {
          await dropDatabase(adminUrl, name);
        }
      }
      if (want("e2e")) await e2e(adminUrl);
      if (want("py")) await python(adminUrl);
    } finally {
      await database.stop();
    }
  }
  if (failures.length) process.stdout.write(`\nfailures: ${failures.join("; ")}\n`);
  process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} part skipped` : ""}\n`);
  return failed === 0 && (passed > 0 || skipped > 0) ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`npm test: ${err instanceof Error ? err.message : String(err)}\n`);
    process.stdout.write(`\n${passed} passed, ${failed + 1} failed\n`);
    process.exit(1);
  },
);
