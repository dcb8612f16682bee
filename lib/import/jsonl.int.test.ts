import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { rawClient } from "@/lib/db/raw-client.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run as importCli } from "@/lib/cli/import.ts";
import { exportLedger } from "@/lib/ledger/export.ts";
import { openInputFile } from "@/lib/ingest/content-encoding.ts";
import { importJsonl } from "@/lib/import/jsonl.ts";
import { buildImportMap } from "@/lib/import/jsonl-map.ts";
import { count, freshDatabase, type TestDatabase } from "@/lib/testing/ingest-db.ts";
import { captureIo } from "@/lib/testing/cli-io.ts";

const FIXTURES = path.join(import.meta.dirname, "fixtures");
const VERL = path.join(FIXTURES, "verl/12.jsonl");
const TRL = path.join(FIXTURES, "trl/completions.jsonl");

let t: TestDatabase;
let tmp: string;
beforeAll(async () => {
  t = await freshDatabase("import_jsonl");
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "verity-import-"));
});
afterAll(async () => {
  await t?.drop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

function importMap(opts: Parameters<typeof buildImportMap>[0]) {
  const m = buildImportMap(opts);
  if (!m.ok) throw new Error(m.message);
  return m.value;
}

async function importFile(file: string, run: string, opts: Parameters<typeof buildImportMap>[0], batchLines?: number) {
  return importJsonl(openInputFile(file, Number.POSITIVE_INFINITY), {
    pool: t.pool,
    map: importMap(opts),
    defaults: { run, category: "imported" },
    batchLines,
  });
}

async function exported(run: string): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const l of exportLedger(t.pool, { run, cases: true })) out.push(JSON.parse(l));
  return out;
}

describe("verity import jsonl into a real database", () => {
  it("stores the verl fixture as rollouts, external entries and one minimal case per prompt; a second import changes nothing", async () => {
    const first = await importFile(VERL, "verl-run", { preset: "verl", map: "outcome=acc" });
    expect(first).toMatchObject({
      ok: true,
      lines: 6,
      accepted: 6,
      unchanged: 0,
      rejected: 0,
      scored: 0,
      by_kind: {
        case: { accepted: 2, unchanged: 0 },
        rollout: { accepted: 6, unchanged: 0 },
        score: { accepted: 6, unchanged: 0 },
      },
    });
    const { rows } = await t.pool.query(
      `select l.trajectory_id, l.source::text, l.reward, l.outcome, l.group_id, r.sample_index, l.category
         from ledger l join rollouts r using (trajectory_id) where l.run_id = 'verl-run' and l.is_current
        order by l.trajectory_id`,
    );
    expect(rows).toHaveLength(6);
    expect(rows.map((r) => [r.source, Number(r.reward), Number(r.outcome), r.category])).toEqual(
      expect.arrayContaining([
        ["external", 1, 1, "imported"],
        ["external", 0, 0, "imported"],
      ]),
    );
    expect(new Set(rows.map((r) => r.group_id)).size).toBe(2);
    expect(rows.map((r) => r.sample_index).sort()).toEqual([0, 0, 1, 1, 2, 2]);
    expect(await count(t.pool, `select 1 from cases where ticket_id like 'P-%'`)).toBe(2);

    const again = await importFile(VERL, "verl-run", { preset: "verl", map: "outcome=acc" });
    expect(again).toMatchObject({ ok: true, lines: 6, accepted: 0, unchanged: 6, rejected: 0 });
    expect(await count(t.pool, `select 1 from ledger where run_id = 'verl-run'`)).toBe(6);
    expect(await count(t.pool, `select 1 from rollouts where run_id = 'verl-run'`)).toBe(6);
  });

  it("the export carries the imported entries, each ticket's case first", async () => {
    const lines = await exported("verl-run");
    const cases = lines.filter((l) => l.kind === "case");
    const scores = lines.filter((l) => l.kind === "score");
    expect(cases).toHaveLength(2);
    expect(scores).toHaveLength(6);
    const verl = fs
      .readFileSync(VERL, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(
      (cases.map((c) => c.ticket) as Record<string, unknown>[]).map((tk) => [tk.message, tk.reference_output]),
    ).toEqual(
      expect.arrayContaining([
        [verl[0].input, verl[0].gts],
        [verl[3].input, verl[3].gts],
      ]),
    );
    // The dump's score is what the trainer optimized: each entry carries it as trained_reward too.
    expect(scores.map((s) => [s.source, s.step, s.reward, s.trained_reward]).sort()).toEqual(
      verl.map((l) => ["external", 12, l.score, l.score]).sort(),
    );
  });

  it("reads a gzip file as it streams (the TRL fixture, weighted)", async () => {
    const gz = path.join(tmp, "completions.jsonl.gz");
    fs.writeFileSync(gz, gzipSync(fs.readFileSync(TRL)));
    const s = await importFile(gz, "trl-run", { preset: "trl", weights: "accuracy_reward=0.8,format_reward=0.2" });
    expect(s).toMatchObject({ ok: true, lines: 7, accepted: 7, rejected: 0 });
    const { rows } = await t.pool.query(
      `select step, reward from ledger where run_id = 'trl-run' and is_current order by step, trajectory_id`,
    );
    const rewards = (step: number) =>
      rows
        .filter((r) => r.step === step)
        .map((r) => Number(r.reward))
        .sort();
    expect(rewards(5)).toEqual([0, 0.2, 0.8, 1, 1]);
    expect(rewards(10)).toEqual([1, 1]);
    // The group of a (step, prompt) is one GRPO group: two prompts at step 5, one at step 10.
    expect(await count(t.pool, `select distinct group_id from ledger where run_id = 'trl-run'`)).toBe(3);
  });

  it("stores the trainer's reward as trained_reward on its own scale when --reward-range rescales the ledger's", async () => {
    const s = await importFile(TRL, "trl-range", { preset: "trl", rewardRange: "0,2" });
    expect(s).toMatchObject({ ok: true, lines: 7, accepted: 7, rejected: 0 });
    const { rows } = await t.pool.query(
      `select l.reward, l.trained_reward as ledger_trained, r.trained_reward as rollout_trained
         from ledger l join rollouts r using (trajectory_id) where l.run_id = 'trl-range' and l.is_current`,
    );
    const sums = fs
      .readFileSync(TRL, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .map((l) => (l.accuracy_reward ?? 0) + (l.format_reward ?? 0));
    const triples = rows.map((r) => [Number(r.reward), r.ledger_trained, r.rollout_trained]);
    expect(triples.sort()).toEqual(sums.map((x) => [x / 2, x, x]).sort());
    const exportedTrained = (await exported("trl-range"))
      .filter((l) => l.kind === "score")
      .map((l) => l.trained_reward);
    expect(exportedTrained.sort()).toEqual([...sums].sort());
  });

  it("a bad line costs that line only, with its line number, path and field; the rest is stored", async () => {
    const good = JSON.parse(fs.readFileSync(VERL, "utf8").split("\n")[0]);
    const file = path.join(tmp, "mixed.jsonl");
    fs.writeFileSync(
      file,
      [
        JSON.stringify({ ...good, step: 40 }),
        "{not json",
        JSON.stringify({ ...good, step: 40, output: ["x"] }),
        JSON.stringify({ ...good, step: 40, score: 2.5 }),
        JSON.stringify({ ...good, step: "forty" }),
        JSON.stringify({ ...good, step: 40, output: "another reply" }),
      ].join("\n") + "\n",
    );
    // Batches of 2: the bad lines do not take the good ones of their batch with them.
    const s = await importFile(file, "mixed-run", { preset: "verl" }, 2);
    expect(s).toMatchObject({ ok: true, lines: 6, accepted: 2, rejected: 4 });
    expect(s.rejects).toEqual([
      { line: 2, path: "", message: expect.stringMatching(/^invalid JSON: /) },
      { line: 3, path: "output", message: "completion: expected text or a list of chat messages (got an array)" },
      {
        line: 4,
        path: "score",
        message:
          "reward: 2.5 is outside [0, 1], the ledger's scale: give --reward-range LO,HI to map the trainer's range onto it",
      },
      {
        line: 5,
        path: "step",
        message: 'step: expected an integer >= 0 or a string of digits (got the string "forty")',
      },
    ]);
    const { rows } = await t.pool.query(
      `select sample_index from rollouts where run_id = 'mixed-run' order by sample_index`,
    );
    // Lines 3 and 4 were counted in the group before their error, so the last good line keeps index 3 when the
    // fixed file is imported again.
    expect(rows.map((r) => r.sample_index)).toEqual([0, 3]);
  });

  it("a value the ingest schemas refuse is reported at the line's own path", async () => {
    const good = JSON.parse(fs.readFileSync(VERL, "utf8").split("\n")[0]);
    const file = path.join(tmp, "long.jsonl");
    fs.writeFileSync(file, JSON.stringify({ ...good, uid: "u".repeat(250) }) + "\n");
    const s = await importFile(file, "long-run", { preset: "verl", map: "group=uid" });
    expect(s.rejects).toEqual([
      {
        line: 1,
        path: "uid",
        message: "group: the group id derived from it (RUN/sSTEP/GROUP) would have 263 characters (at most 200)",
      },
    ]);
  });
});

describe("verity import (the command)", () => {
  it("imports a file into the database, prints the summary last and exits 0; a second run is unchanged", async () => {
    const runId = `cli-verl-${Date.now()}`;
    const c = captureIo();
    const code = await importCli(["jsonl", VERL, "--preset", "verl", "--run", runId, "--no-progress"], c.io);
    expect(code).toBe(0);
    expect(JSON.parse(c.out.at(-1)!)).toMatchObject({ ok: true, lines: 6, accepted: 6, rejected: 0 });
    const again = captureIo();
    expect(await importCli(["jsonl", VERL, "--preset", "verl", "--run", runId, "--no-progress"], again.io)).toBe(0);
    expect(JSON.parse(again.out.at(-1)!)).toMatchObject({ accepted: 0, unchanged: 6 });
    const db = rawClient({ connectionString: process.env.DATABASE_URL });
    await db.connect();
    try {
      const { rows } = await db.query(`select count(*)::int as n from ledger where run_id = $1`, [runId]);
      expect(rows[0].n).toBe(6);
    } finally {
      await db.end();
    }
  });

  it("exits 1 under --strict with rejected lines, 2 for usage, and lists its formats", async () => {
    const file = path.join(tmp, "one-bad.jsonl");
    fs.writeFileSync(file, '{"input": "x"}\n');
    const c = captureIo();
    expect(
      await importCli(
        ["jsonl", file, "--preset", "verl", "--run", `cli-bad-${Date.now()}`, "--strict", "--no-progress"],
        c.io,
      ),
    ).toBe(1);
    expect(JSON.parse(c.out.at(-1)!).rejects).toEqual([{ line: 1, path: "step", message: "step: step is absent" }]);
    const u = captureIo();
    expect(await importCli(["jsonl", file, "--preset", "verl"], u.io)).toBe(2);
    expect(u.err[0]).toMatch(/^verity import jsonl: --run: give the run/);
    const f = captureIo();
    expect(await importCli(["csv"], f.io)).toBe(2);
    expect(f.err[0]).toMatch(/^verity import: unknown format "csv"/);
    const h = captureIo();
    expect(await importCli(["--help"], h.io)).toBe(0);
    expect(h.out[0]).toMatch(/jsonl +rollout dumps/);
  });
});
