// `npm start` (production server) and `npm run dev` (dev server): database up, migrations applied, demo data on an
// empty database, a production build when the sources changed, then the console on http://localhost:$PORT.
import { spawn, spawnSync } from "node:child_process";
import { INGEST_NODE_FLAGS } from "@/lib/ingest/memory.ts";
import { ensureDatabase } from "@/lib/db/embedded.ts";
import { migrate } from "@/lib/db/migrate.ts";
import { prepareFirstRun } from "@/lib/server/first-run.ts";
import { refreshStoredAlarms } from "@/lib/monitors/on-start.ts";
import { buildIsCurrent, recordBuild } from "@/lib/server/build-stamp.ts";
import { env } from "@/lib/env.ts";

const dev = process.argv.includes("--dev");
const say = (line: string) => process.stdout.write(`verity: ${line}\n`);

async function main(): Promise<void> {
  const e = env();
  const database = await ensureDatabase();
  say(
    database.startedHere
      ? `started the embedded PostgreSQL (${e.VERITY_DATA_DIR}/pg)`
      : e.DATABASE_URL
        ? "using DATABASE_URL"
        : "reusing the running embedded PostgreSQL",
  );
  const applied = await migrate(database.url);
  if (applied.length) say(`applied migrations: ${applied.join(", ")}`);
  await prepareFirstRun(database.url, say);
  await refreshStoredAlarms(database.url, say);

  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: database.url,
    NEXT_TELEMETRY_DISABLED: "1",
    // The console serves POST /api/v1/ingest: its memory flags are the CLI's (see lib/ingest/memory.ts).
    NODE_OPTIONS: [process.env.NODE_OPTIONS, ...INGEST_NODE_FLAGS].filter(Boolean).join(" "),
  };
  if (!dev && !buildIsCurrent()) {
    say("building the console (first start or changed sources)…");
    const b = spawnSync("npx", ["next", "build"], { stdio: "inherit", env: { ...childEnv, NODE_ENV: "production" } });
    if (b.status !== 0) throw new Error("the production build failed (see above)");
    recordBuild();
  }
  // The production console runs behind bin/serve.ts, which records each connection's own address (the dev server
  // does not: it believes a client's X-Forwarded-For, see docs/auth.md).
  const child = dev
    ? spawn("npx", ["next", "dev", "-p", String(e.PORT)], { stdio: ["ignore", "pipe", "inherit"], env: childEnv })
    : spawn("npx", ["tsx", "bin/serve.ts", "--port", String(e.PORT)], {
        stdio: ["ignore", "pipe", "inherit"],
        env: { ...childEnv, NODE_ENV: "production" },
      });
  let announced = false;
  child.stdout.on("data", (chunk: Buffer) => {
    const text = chunk.toString();
    if (dev) process.stdout.write(text);
    if (!announced && /Ready|started server|Local:/i.test(text)) {
      announced = true;
      say(`console ready at http://localhost:${e.PORT}`);
    }
  });

  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    child.kill("SIGTERM");
    await database.stop();
    process.exit(code);
  };
  child.on("exit", (code) => void stop(code ?? 0));
  process.on("SIGINT", () => void stop(0));
  process.on("SIGTERM", () => void stop(0));
}

main().catch((err: unknown) => {
  process.stderr.write(`verity: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
