// Every load from the command line is in the activity log with its counts: `verity ingest`, `verity import jsonl`
// and `verity import tau2` under "cli", each with the run it named as the target (the API's ingest:
// app/api/v1/ingest/activity.int.test.ts).
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run as importCli } from "@/lib/cli/import.ts";
import { run as ingestCli } from "@/lib/cli/ingest.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import { caseLine, externalScore, rolloutLine } from "@/lib/testing/ingest-fixtures.ts";

const tag = randomBytes(3).toString("hex");
const IMPORTS = path.join(import.meta.dirname, "..", "import", "fixtures");
let tmp: string;

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "verity-load-log-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

type Entry = { actor_label: string; target_type: string; details: Record<string, unknown> };

async function entries(action: string, run: string): Promise<Entry[]> {
  const r = await bulkPool().query<Entry>(
    `select actor_label, target_type, details from activity_log
      where action = $1 and target_type = 'run' and target_id = $2 order by id`,
    [action, run],
  );
  return r.rows;
}

function io() {
  const out: string[] = [];
  const stdout = new Writable({ write: (_c, _e, done) => done() });
  return { out, io: { out: (s: string) => void out.push(s), err: () => undefined, stdout, stderr: process.stderr } };
}

const lines = (run: string, ticket: string) =>
  [caseLine(ticket), rolloutLine(`${run}/1`, ticket, { run }), externalScore(`${run}/2`, ticket, 0.5, { run })]
    .map((l) => JSON.stringify(l))
    .join("\n") + "\n{broken\n";

describe("loads in the activity log", () => {
  it("records verity ingest under cli, with its file and counts", async () => {
    const run = `cli-log-${tag}`;
    const file = path.join(tmp, "load.ndjson");
    fs.writeFileSync(file, lines(run, `T-cli-${tag}`));
    expect(await ingestCli([file, "--run", run, "--no-progress"], io().io as never)).toBe(0);
    const log = await entries("ingest.cli", run);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ actor_label: "cli", details: { file, lines: 4, accepted: 3, rejected: 1 } });
  });

  it("records verity import jsonl, a second import as all unchanged", async () => {
    const run = `jsonl-log-${tag}`;
    const args = ["jsonl", path.join(IMPORTS, "verl/12.jsonl"), "--preset", "verl", "--run", run, "--no-progress"];
    expect(await importCli(args, io().io)).toBe(0);
    expect(await importCli(args, io().io)).toBe(0);
    const log = await entries("import.jsonl", run);
    expect(log.map((e) => e.details)).toMatchObject([
      { preset: "verl", lines: 6, accepted: 6, unchanged: 0, rejected: 0 },
      { preset: "verl", lines: 6, accepted: 0, unchanged: 6, rejected: 0 },
    ]);
  });

  it("records verity import tau2 with its tasks, simulations and scored rollouts", async () => {
    const run = `tau2-log-${tag}`;
    const dir = path.join(IMPORTS, "tau2-bench-retail");
    const args = ["tau2", path.join(dir, "results-gpt-4.1.json"), "--db", path.join(dir, "db.json"), "--run", run];
    expect(await importCli(args, io().io)).toBe(0);
    const log = await entries("import.tau2", run);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({
      actor_label: "cli",
      details: { ok: true, tasks: 40, simulations: 40, rollouts: 40, scored: 40, rejected: 0 },
    });
  });
});
