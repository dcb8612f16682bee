import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { run as exportRun } from "@/lib/cli/export.ts";
import { run as importRun } from "@/lib/cli/import.ts";
import type { Tau2ImportSummary } from "@/lib/import/schema.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import { SUCCESS_THRESHOLD } from "@/lib/stats/agreement.ts";
import { cohensKappa, confusionMatrix } from "@/lib/stats/kappa.ts";

const FIXTURE = path.join(import.meta.dirname, "fixtures", "tau2-bench-retail");
const RESULTS = path.join(FIXTURE, "results-gpt-4.1.json");
const DB = path.join(FIXTURE, "db.json");
const tag = randomBytes(3).toString("hex");

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  let streamed = "";
  const stdout = new Writable({
    write(chunk, _enc, done) {
      streamed += String(chunk);
      done();
    },
  });
  return {
    out,
    err,
    streamed: () => streamed,
    io: { out: (s: string) => void out.push(s), err: (s: string) => void err.push(s), stdout },
  };
}

async function importFile(args: string[]): Promise<{ code: number; summary: Tau2ImportSummary; err: string[] }> {
  const c = capture();
  const code = await importRun(["tau2", ...args], c.io);
  return { code, summary: JSON.parse(c.out[c.out.length - 1]), err: c.err };
}

async function ledgerCount(runId: string): Promise<number> {
  const r = await bulkPool().query("select count(*)::int as n from ledger where run_id = $1", [runId]);
  return r.rows[0].n;
}

type Entry = { trajectory_id: string; status: string; reward: number | null; trained_reward?: number | null };

async function exportEntries(runId: string): Promise<Entry[]> {
  const c = capture();
  expect(await exportRun(["--run", runId, "--no-cases"], c.io)).toBe(0);
  return c
    .streamed()
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
}

describe("verity import tau2 (the tau2-bench retail sample)", () => {
  const runId = `tau2-${tag}`;

  it("imports 40 tasks as cases and 40 simulations as scored rollouts; a second import changes nothing", async () => {
    const first = await importFile([RESULTS, "--db", DB, "--run", runId]);
    expect(first.code).toBe(0);
    expect(first.summary).toMatchObject({
      ok: true,
      run: runId,
      tasks: 40,
      simulations: 40,
      rollouts: { accepted: 40, unchanged: 0, rejected: 0 },
      scored: 40,
      rejected: 0,
      rejects: [],
    });
    expect(first.summary.cases.accepted + first.summary.cases.unchanged).toBe(40);
    expect(await ledgerCount(runId)).toBe(40);

    const again = await importFile([RESULTS, "--db", DB, "--run", runId]);
    expect(again.code).toBe(0);
    expect(again.summary).toMatchObject({
      ok: true,
      cases: { accepted: 0, unchanged: 40, rejected: 0 },
      rollouts: { accepted: 0, unchanged: 40, rejected: 0 },
      scored: 0,
    });
    expect(await ledgerCount(runId)).toBe(40);
  });

  it("verity export gives one scored entry per simulation, each with tau2-bench's reward as trained_reward", async () => {
    const entries = await exportEntries(runId);
    expect(entries).toHaveLength(40);
    expect(new Set(entries.map((e) => e.trajectory_id)).size).toBe(40);
    expect(entries.every((e) => e.status === "scored" && typeof e.reward === "number")).toBe(true);
    const tau2 = JSON.parse(fs.readFileSync(RESULTS, "utf8")) as {
      simulations: { task_id: string; trial: number; reward_info: { reward: number } }[];
    };
    const expected = new Map(tau2.simulations.map((s) => [`${runId}/${s.task_id}/${s.trial}`, s.reward_info.reward]));
    for (const e of entries) expect(e.trained_reward, e.trajectory_id).toBe(expected.get(e.trajectory_id));
  });

  it("agrees with tau2-bench's verdicts on at least 90% of the sample (Verity: reward ≥ 0.9, tau2-bench: reward 1), with κ as docs/import.md reports", async () => {
    const entries = await exportEntries(runId);
    const pairs = entries.map(
      (e) => [e.reward! >= SUCCESS_THRESHOLD ? "pass" : "fail", e.trained_reward === 1 ? "pass" : "fail"] as const,
    );
    const m = confusionMatrix(pairs, ["pass", "fail"]);
    const [[pp, pf], [fp, ff]] = m.counts; // rows: Verity, columns: tau2-bench
    const n = pp + pf + fp + ff;
    // By hand: observed agreement against the agreement expected from the two raters' marginals.
    const po = (pp + ff) / n;
    const pe = ((pp + pf) / n) * ((pp + fp) / n) + ((fp + ff) / n) * ((pf + ff) / n);
    const byHand = (po - pe) / (1 - pe);
    const kappa = cohensKappa(pairs);
    expect(kappa).not.toBeNull();
    expect(kappa!).toBeCloseTo(byHand, 12);
    expect(n).toBe(40);
    expect(pp + fp).toBe(34); // tau2-bench's own reward is 1 for 34 of the 40 simulations
    expect(po).toBeGreaterThanOrEqual(0.9);
    console.log(
      `tau2-bench retail sample, ${n} simulations: both pass ${pp}, only tau2-bench passes ${fp}, ` +
        `only Verity passes ${pf}, both fail ${ff}; agreement ${(po * 100).toFixed(1)}%, κ = ${kappa!.toFixed(3)}`,
    );
    // The documentation states the same figures.
    const doc = fs.readFileSync(path.join(import.meta.dirname, "..", "..", "docs", "import.md"), "utf8");
    expect(doc).toContain(`Agreement ${Math.round(po * 100)}% (${pp + ff} of ${n}), **κ = ${kappa!.toFixed(2)}**`);
    expect(doc).toContain(`| Verity passes (reward ≥ 0.9) | ${pp} | ${pf} | ${pp + pf} |`);
    expect(doc).toContain(`| Verity fails | ${fp} | ${ff} | ${fp + ff} |`);
  });

  it("the run defaults to the results file's name without its extension", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tau2-"));
    const file = path.join(dir, `sample-${tag}.json`);
    const doc = JSON.parse(fs.readFileSync(RESULTS, "utf8"));
    fs.writeFileSync(
      file,
      JSON.stringify({ ...doc, tasks: doc.tasks.slice(0, 2), simulations: doc.simulations.slice(0, 0) }),
    );
    const r = await importFile([file, "--db", DB]);
    expect(r.summary).toMatchObject({ ok: true, run: `sample-${tag}`, tasks: 2, simulations: 0 });
  });
});

describe("verity import tau2: bad input costs its own task or simulation", () => {
  const doc = JSON.parse(fs.readFileSync(RESULTS, "utf8")) as {
    tasks: unknown[];
    simulations: Record<string, unknown>[];
  };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tau2-bad-"));
  const write = (name: string, text: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return file;
  };
  const known = new Set((doc.tasks as { id: string }[]).map((t) => t.id));
  const sims = doc.simulations.filter((s) => known.has(s.task_id as string)).slice(0, 4);

  it("rejects a simulation of an unknown task and a bad field at their JSON paths, and imports the others", async () => {
    const bad = structuredClone(sims);
    bad[1].task_id = "no-such-task";
    const msgs = bad[2].messages as { tool_calls?: { arguments: unknown }[] | null }[];
    const at = msgs.findIndex((m) => m.tool_calls?.length);
    msgs[at].tool_calls![0].arguments = "not an object";
    const file = write("bad-fields.json", JSON.stringify({ ...doc, simulations: bad }, null, 1));
    const runId = `tau2-bad-${tag}`;
    const r = await importFile([file, "--db", DB, "--run", runId, "--strict"]);
    expect(r.code).toBe(1);
    expect(r.summary).toMatchObject({ ok: true, simulations: 4, rollouts: { accepted: 2, rejected: 2 }, rejected: 2 });
    expect(r.summary.rejects).toEqual([
      { path: "simulations[1].task_id", message: 'no task with id "no-such-task" in the file\'s tasks' },
      { path: `simulations[2].messages[${at}].tool_calls[0].arguments`, message: "expected an object" },
    ]);
    expect(r.err.join("\n")).toContain(`simulations[2].messages[${at}].tool_calls[0].arguments: expected an object`);
    expect(await ledgerCount(runId)).toBe(2);
  });

  it("stops at malformed JSON with its line, column and path; what came before is imported", async () => {
    const text = JSON.stringify({ ...doc, simulations: sims }, null, 1);
    // Break the third simulation: drop the colon after its "task_id" key.
    let third = text.indexOf('"simulations"');
    for (let k = 0; k < 3; k++) third = text.indexOf('"task_id":', third + 1);
    const broken = text.slice(0, third) + '"task_id" ' + text.slice(third + '"task_id":'.length);
    const lineNo = broken.slice(0, third).split("\n").length;
    const file = write("broken.json", broken);
    const runId = `tau2-broken-${tag}`;
    const r = await importFile([file, "--db", DB, "--run", runId]);
    expect(r.code).toBe(3);
    expect(r.summary.ok).toBe(false);
    expect(r.summary.error).toMatch(
      new RegExp(
        `^stopped: malformed JSON at line ${lineNo}, column \\d+ \\(in simulations\\[2\\]\\.task_id\\): expected : after the key`,
      ),
    );
    expect(r.summary.error).toContain("the 40 tasks and the 2 simulations before it are imported");
    expect(await ledgerCount(runId)).toBe(2);
  });

  it("refuses a missing --db, an unreadable db and an unknown format with usage errors", async () => {
    const c = capture();
    expect(await importRun(["tau2", RESULTS], c.io)).toBe(2);
    expect(c.err.join("\n")).toContain("give the domain's database with --db DB.json");
    const d = capture();
    expect(await importRun(["tau2", RESULTS, "--db", write("db.json", "{oops")], d.io)).toBe(2);
    expect(d.err.join("\n")).toMatch(/--db .*db\.json is not JSON/);
    const e = capture();
    expect(await importRun(["nope"], e.io)).toBe(2);
    expect(e.err.join("\n")).toContain('unknown format "nope"');
  });
});
