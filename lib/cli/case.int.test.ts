import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "@/lib/cli/case.ts";
import { ingestValues } from "@/lib/ingest/ingest.ts";
import { uniqueName } from "@/lib/testing/audit-data.ts";
import { caseLine, rolloutLine } from "@/lib/testing/ingest-fixtures.ts";
import { captureIo } from "@/lib/testing/cli-io.ts";

let pool: pg.Pool;
let dir: string;
const T = uniqueName("T-CLI");
const RUN = uniqueName("cli-case");

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 2 });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "verity-case-"));
  const s = await ingestValues([caseLine(T), rolloutLine(`${RUN}/1`, T, { run: RUN, step: 1 })], { pool });
  expect(s).toMatchObject({ ok: true, rejected: 0, scored: 1 });
});
afterAll(async () => {
  await pool?.end();
  fs.rmSync(dir, { recursive: true, force: true });
});

const file = (name: string, value: unknown) => {
  const f = path.join(dir, name);
  fs.writeFileSync(f, typeof value === "string" ? value : JSON.stringify(value));
  return f;
};
const spec = () => structuredClone((caseLine(T) as { verifier_spec: Record<string, unknown> }).verifier_spec);

describe("verity case revise", () => {
  it("names the bad field of the file by its path, and wants a reason", async () => {
    const c = captureIo();
    expect(await run(["revise", T, file("bad.json", { ...spec(), step_budget: -1 }), "--reason", "x"], c.io)).toBe(1);
    expect(c.err.join("\n")).toMatch(/invalid .*bad\.json: step_budget: /);
    const d = captureIo();
    const whole = { ...caseLine(T), verifier_spec: { ...spec(), handoff: "sometimes" } };
    expect(await run(["revise", T, file("case.json", whole), "--reason", "x"], d.io)).toBe(1);
    expect(d.err.join("\n")).toMatch(/verifier_spec\.handoff: /);
    const e = captureIo();
    expect(await run(["revise", T, file("ok.json", spec())], e.io)).toBe(2);
    expect(e.err.join("\n")).toMatch(/--reason: a revision needs a reason/);
    const f = captureIo();
    expect(await run(["revise", T, file("broken.json", "{"), "--reason", "x"], f.io)).toBe(1);
    expect(f.err.join("\n")).toMatch(/cannot read .*broken\.json/);
  });

  it("--dry-run prints the change and stores nothing; without it, stores the version and re-scores", async () => {
    const revised = {
      ...spec(),
      required_writes: [...(spec().required_writes as unknown[]), { tool: "logistics.create_return" }],
    };
    const f = file("spec.json", { verifier_spec: revised });
    const dry = captureIo();
    expect(await run(["revise", T, f, "--dry-run"], dry.io)).toBe(0);
    const diff = JSON.parse(dry.out[0]);
    expect(diff).toMatchObject({ trajectoryId: `${RUN}/1`, before: { reward: 1 }, rewardChanged: true });
    expect(JSON.parse(dry.out.at(-1)!)).toEqual({
      ticket_id: T,
      dry_run: true,
      rollouts: 1,
      rewardChanged: 1,
      nowAgree: 0,
      nowDisagree: 0,
    });
    const versions = async () =>
      (await pool.query("select version, reason from case_versions where ticket_id = $1 order by version", [T])).rows;
    expect(await versions()).toEqual([{ version: 1, reason: "" }]);

    const c = captureIo();
    expect(
      await run(["revise", T, f, "--reason", "return label", "--adjudication", "12", "--cluster", "k"], c.io),
    ).toBe(0);
    const summary = JSON.parse(c.out.at(-1)!);
    expect(summary).toMatchObject({
      ticket_id: T,
      status: "created",
      version: 2,
      rescore: { rescored: 1, reward_changed: 1 },
    });
    expect(await versions()).toEqual([
      { version: 1, reason: "" },
      { version: 2, reason: "return label" },
    ]);
    const ledger = await pool.query(
      "select reward, case_version, is_current from ledger where run_id = $1 order by id",
      [RUN],
    );
    expect(ledger.rows.map((r) => [r.case_version, r.is_current])).toEqual([
      [1, false],
      [2, true],
    ]);
    expect(ledger.rows[1].reward).toBe(diff.after.reward);

    const again = captureIo();
    expect(await run(["revise", T, f, "--reason", "again"], again.io)).toBe(0);
    expect(JSON.parse(again.out.at(-1)!)).toMatchObject({ status: "unchanged", version: 2, rescore: { rescored: 0 } });

    const h = captureIo();
    expect(await run(["history", T, "--json"], h.io)).toBe(0);
    expect(
      h.out.map((l) => JSON.parse(l)).map((v) => [v.version, v.answers_adjudication_ids, v.answers_cluster]),
    ).toEqual([
      [2, ["12"], "k"],
      [1, [], null],
    ]);
  });

  it("an unknown ticket is named", async () => {
    const c = captureIo();
    expect(await run(["revise", "T-NOPE-" + RUN, file("s.json", spec()), "--reason", "x"], c.io)).toBe(1);
    expect(c.err.join("\n")).toMatch(/no case T-NOPE-/);
  });
});
