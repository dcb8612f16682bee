// `npm test`: typecheck, lint, unit and integration tests (Vitest, a fresh database per run) and end-to-end tests
// (Playwright in Debian's Chromium against the built console on its own fresh database with demo data).
// Ends with one line "N passed, N failed". `npm test -- unit|int|e2e|static` runs one part.
import { spawn, type SpawnOptions } from "node:child_process";
import { INGEST_NODE_FLAGS } from "@/lib/ingest/memory.ts";
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import pg from "pg";
import { createDatabaseIfMissing, ensureDatabase } from "@/lib/db/embedded.ts";
import { migrate } from "@/lib/db/migrate.ts";
import { prepareFirstRun } from "@/lib/server/first-run.ts";
import { buildIsCurrent, recordBuild } from "@/lib/server/build-stamp.ts";

// The e2e database gets the small demo (quick to load); set before lib/env.ts reads and caches the environment.
process.env.VERITY_DEMO_SIZE ??= "small";

const ROOT = process.cwd();
const OUT = path.join(ROOT, ".data", "test-results");
const parts = new Set(process.argv.slice(2).filter((a) => ["static", "unit", "int", "e2e"].includes(a)));
const extra = process.argv.slice(2).filter((a) => !["static", "unit", "int", "e2e"].includes(a));
const want = (p: string) => parts.size === 0 || parts.has(p);

let passed = 0;
let failed = 0;
const failures: string[] = [];
const say = (line: string) => process.stdout.write(`\n▶ ${line}\n`);

function run(cmd: string, args: string[], opts: SpawnOptions = {}): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: "inherit", ...opts });
    child.on("close", (code) => resolve(code ?? 1));
  });
}

function tally(name: string, p: number, f: number) {
  passed += p;
  failed += f;
  if (f) failures.push(`${name}: ${f} failed`);
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

function withDb(url: string, name: string) {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
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
}

async function vitest(project: "unit" | "int", env: NodeJS.ProcessEnv) {
  say(`${project} tests (vitest)`);
  const out = path.join(OUT, `vitest-${project}.json`);
  fs.rmSync(out, { force: true });
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
      ...extra,
    ],
    { env },
  );
  if (!fs.existsSync(out)) return tally(`${project} tests`, 0, 1);
  const r = JSON.parse(fs.readFileSync(out, "utf8")) as {
    numPassedTests: number;
    numFailedTests: number;
    numTotalTestSuites: number;
    success: boolean;
  };
  // a suite that fails to load has no failed tests but fails the run: count it
  tally(`${project} tests`, r.numPassedTests, r.numFailedTests || (code !== 0 ? 1 : 0));
}

async function e2e(adminUrl: string) {
  const name = `verity_e2e_${crypto.randomBytes(3).toString("hex")}`;
  await createDatabaseIfMissing(adminUrl, name);
  const url = withDb(adminUrl, name);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: url,
    NEXT_TELEMETRY_DISABLED: "1",
    NODE_ENV: "production",
    VERITY_DEMO: "1",
  };
  let server: ReturnType<typeof spawn> | undefined;
  try {
    await migrate(url);
    await prepareFirstRun(url, (l) => process.stdout.write(`  ${l}\n`));
    if (!buildIsCurrent()) {
      say("production build (next build)");
      const b = await run("npx", ["next", "build"], { env });
      if (b !== 0) return tally("build", 0, 1);
      recordBuild();
    }
    const port = await freePort();
    // With the memory flags `npm start` gives the console (bin/start.ts).
    const serverEnv = {
      ...env,
      NODE_OPTIONS: [process.env.NODE_OPTIONS, ...INGEST_NODE_FLAGS].filter(Boolean).join(" "),
    };
    server = spawn("npx", ["tsx", "bin/serve.ts", "--port", String(port)], {
      env: serverEnv,
      stdio: ["ignore", "ignore", "inherit"],
      detached: true,
    });
    const base = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 60_000;
    for (;;) {
      const ok = await fetch(`${base}/api/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline) throw new Error("the console did not become healthy within 60 s");
      await new Promise((r) => setTimeout(r, 300));
    }
    say(`end-to-end tests (playwright, ${base})`);
    const out = path.join(OUT, "playwright.json");
    fs.rmSync(out, { force: true });
    await run("npx", ["playwright", "test", "--reporter=list,json", ...extra], {
      env: { ...process.env, VERITY_E2E_BASE_URL: base, DATABASE_URL: url, PLAYWRIGHT_JSON_OUTPUT_NAME: out },
    });
    if (!fs.existsSync(out)) return tally("e2e", 0, 1);
    const r = JSON.parse(fs.readFileSync(out, "utf8")) as {
      stats: { expected: number; unexpected: number; flaky: number };
    };
    tally("e2e", r.stats.expected + r.stats.flaky, r.stats.unexpected);
  } finally {
    if (server?.pid) {
      try {
        process.kill(-server.pid, "SIGTERM");
      } catch {
        /* already gone */
      }
    }
    await dropDatabase(adminUrl, name);
  }
}

async function main(): Promise<number> {
  fs.mkdirSync(OUT, { recursive: true });
  if (want("static")) await staticChecks();
  if (want("unit")) await vitest("unit", { ...process.env, NODE_ENV: "test" });
  if (want("int") || want("e2e")) {
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
    } finally {
      await database.stop();
    }
  }
  if (failures.length) process.stdout.write(`\nfailures: ${failures.join("; ")}\n`);
  process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
  return failed === 0 && passed > 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`npm test: ${err instanceof Error ? err.message : String(err)}\n`);
    process.stdout.write(`\n${passed} passed, ${failed + 1} failed\n`);
    process.exit(1);
  },
);
