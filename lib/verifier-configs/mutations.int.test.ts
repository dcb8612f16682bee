import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { createUser } from "@/lib/admin/mutations.ts";
import { run } from "@/lib/cli/config.ts";
import { db } from "@/lib/db/client.ts";
import { configHash, parseVerifierConfig } from "@/lib/verifier/config.ts";
import { addVerifierConfig } from "@/lib/verifier-configs/mutations.ts";
import { parseAddConfigForm } from "@/lib/verifier-configs/schema.ts";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verity-configs-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

// A tag in every name keeps this file's configs apart from any others in the database; a hand-off outcome of its own
// keeps their hashes apart too.
const tag = randomBytes(4).toString("hex");
const outcome = 0.3 + (parseInt(tag, 16) % 1000) / 10_000;

function file(name: string, text: string): string {
  const p = path.join(dir, name);
  fs.writeFileSync(p, text);
  return p;
}

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await run(args, { out: (s) => (stdout += s + "\n"), err: (s) => (stderr += s + "\n") });
  return { code, stdout, stderr };
}

const rowsNamed = (name: string) => db().verifierConfig.findMany({ where: { name }, orderBy: { version: "asc" } });
const activityCount = (action: string) => db().activityLog.count({ where: { action } });

describe("verity config add / list", () => {
  it("refuses a bad document with its path and reason, and stores nothing", async () => {
    const name = `bad-${tag}`;
    const before = await activityCount("config.create");

    const json = await cli(["add", file(`${name}.json`, '{"handoff_outcome": 0.5,,}'), "--name", name]);
    expect(json.code).toBe(1);
    expect(json.stderr).toMatch(
      new RegExp(`^verity config add: invalid config .*${name}\\.json: not valid JSON: .*position 24`),
    );

    const weights = await cli([
      "add",
      file(
        "w.json",
        '{"weights": {"outcome": 0.5, "policy": 0.2, "evidence": 0.2, "efficiency": 0.1, "communication": 0.05}}',
      ),
      "--name",
      name,
    ]);
    expect(weights.code).toBe(1);
    expect(weights.stderr).toContain("w.json: weights: weights must sum to 1 (they sum to 1.05)");

    const code = await cli([
      "add",
      file("g.json", '{"guardrails": {"rude_tone": {"on": true, "cap": 0.5}}}'),
      "--name",
      name,
    ]);
    expect(code.code).toBe(1);
    expect(code.stderr).toContain(
      'g.json: guardrails.rude_tone: unknown guardrail code "rude_tone" (known: customer_harm,',
    );

    const missing = await cli(["add", path.join(dir, "nope.json")]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("nope.json: no such file");

    expect((await cli(["add", file("n.json", "{}"), "--name", "<script>"])).code).toBe(2);
    expect((await cli(["add"])).code).toBe(2);
    expect((await cli(["add", "a.json", "b.json"])).code).toBe(2);
    expect((await cli(["add", "a.json", "--bogus"])).code).toBe(2);
    expect((await cli(["frobnicate"])).code).toBe(2);

    expect(await rowsNamed(name)).toEqual([]);
    expect(await activityCount("config.create")).toBe(before);
  });

  it("stores a config whole under its canonical hash, versioned by name, recorded in the activity log; the same content again is unchanged", async () => {
    const name = `strict-${tag}`;
    const partial = `{"handoff_outcome": ${outcome}, "guardrails": {"tool_missing": {"on": true, "cap": 0.55}}}`;
    const first = await cli(["add", file(`${name}.json`, partial)]);
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    const [v1] = await rowsNamed(name);
    expect(first.stdout).toBe(`stored ${name} v1 (${v1.hash})\n`);
    // The stored body is the whole config: re-scoring with it (lib/actions/rescore.ts) reproduces the hash.
    const parsed = parseVerifierConfig(v1.body);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(configHash(parsed.config)).toBe(v1.hash);
    expect(parsed.config.handoff_outcome).toBe(outcome);
    expect(parsed.config.guardrails.tool_missing).toEqual({ on: true, cap: 0.55 });
    expect(Object.keys(v1.body as object).sort()).toEqual(["claims", "guardrails", "handoff_outcome", "weights"]);
    expect(v1).toMatchObject({ version: 1, isDefault: false, createdById: null });
    const log = await db().activityLog.findFirstOrThrow({
      where: { action: "config.create", targetId: String(v1.id) },
    });
    expect(log).toMatchObject({
      actorLabel: "cli",
      targetType: "verifier_config",
      details: { name, version: 1, hash: v1.hash },
    });

    // The same config again — other key order, other name — is unchanged: no row, no activity-log entry.
    const creates = await activityCount("config.create");
    const again = await cli([
      "add",
      file("again.json", `{"guardrails": {"tool_missing": {"cap": 0.55, "on": true}}, "handoff_outcome": ${outcome}}`),
      "--name",
      `other-${tag}`,
    ]);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(`unchanged: this config is already stored as ${name} v1 (${v1.hash})\n`);
    expect(await rowsNamed(`other-${tag}`)).toEqual([]);
    expect(await activityCount("config.create")).toBe(creates);

    // Different content under the same name is its next version; --default makes it the only default.
    const second = await cli(["add", file("v2.json", `{"handoff_outcome": ${outcome}}`), "--name", name, "--default"]);
    expect(second.code).toBe(0);
    const rows = await rowsNamed(name);
    expect(rows.map((r) => [r.version, r.isDefault])).toEqual([
      [1, false],
      [2, true],
    ]);
    expect(second.stdout).toBe(`stored ${name} v2 (${rows[1].hash}), now the default\n`);
    expect((await db().verifierConfig.findMany({ where: { isDefault: true } })).map((r) => r.id)).toEqual([rows[1].id]);
    const setDefault = await db().activityLog.findFirstOrThrow({
      where: { action: "config.set_default", targetId: String(rows[1].id) },
    });
    expect(setDefault.details).toMatchObject({ name, version: 2, hash: rows[1].hash });

    // An unchanged add with --default makes the stored one the default, and says so.
    const back = await cli(["add", path.join(dir, `${name}.json`), "--default"]);
    expect(back.stdout).toBe(`unchanged: this config is already stored as ${name} v1 (${v1.hash}), now the default\n`);
    expect((await db().verifierConfig.findMany({ where: { isDefault: true } })).map((r) => r.id)).toEqual([v1.id]);

    const list = await cli(["list"]);
    expect(list.code).toBe(0);
    const lines = list.stdout.split("\n").filter((l) => l.startsWith(`${name} `));
    expect(lines.map((l) => l.split("\t").slice(0, 3))).toEqual([
      [`${name} v2`, rows[1].hash, ""],
      [`${name} v1`, v1.hash, "default"],
    ]);
    const json = (await cli(["list", "--json"])).stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .filter((c) => c.name === name);
    expect(json.map((c) => [c.version, c.hash, c.default, c.created_by])).toEqual([
      [2, rows[1].hash, false, null],
      [1, v1.hash, true, null],
    ]);
  });

  it("stores what the admin page's form sends, as that admin", async () => {
    const admin = await createUser(
      { email: `cfg-admin-${tag}@test.local`, name: "", role: "admin", password: "a long enough password" },
      { label: "test" },
    );
    if (!admin.ok) throw new Error(admin.error);
    const actor = { userId: admin.id, email: `cfg-admin-${tag}@test.local` };
    const form = new FormData();
    form.append("name", "");
    form.append("config", "");
    form.append(
      "file",
      new File(
        [`{"handoff_outcome": ${outcome}, "guardrails": {"privacy_overreach": {"on": true, "cap": 0.2}}}`],
        `privacy-${tag}.json`,
      ),
    );
    const parsed = await parseAddConfigForm(form);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const r = await addVerifierConfig(parsed, actor);
    expect(r).toMatchObject({
      ok: true,
      status: "created",
      config: { name: `privacy-${tag}`, version: 1, isDefault: false },
      defaultChanged: false,
    });
    const row = await db().verifierConfig.findUniqueOrThrow({ where: { id: r.config.id } });
    expect(row.createdById).toBe(admin.id);
    const log = await db().activityLog.findFirstOrThrow({
      where: { action: "config.create", targetId: String(row.id) },
    });
    expect(log).toMatchObject({ actorId: admin.id, actorLabel: actor.email });
    expect((await addVerifierConfig(parsed, actor)).status).toBe("unchanged");
  });

  it("gives concurrent adds of one name distinct versions", async () => {
    const name = `race-${tag}`;
    const docs = [0.11, 0.12, 0.13, 0.14].map((h) => parseVerifierConfig({ handoff_outcome: h + outcome / 100 }));
    const results = await Promise.all(
      docs.map((d) =>
        d.ok ? addVerifierConfig({ name, config: d.config }, { label: "test" }) : Promise.reject(new Error("bad")),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(["created", "created", "created", "created"]);
    expect((await rowsNamed(name)).map((r) => r.version)).toEqual([1, 2, 3, 4]);
  });

  it("is wired into the verity command line", async () => {
    const r = await new Promise<{ code: number; stdout: string }>((resolve) => {
      const child = spawn("npx", ["tsx", "bin/verity.ts", "config", "list"], {
        env: process.env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      child.stdout.on("data", (c) => (stdout += c));
      child.on("close", (code) => resolve({ code: code ?? 1, stdout }));
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`strict-${tag} v2\t`);
  });
});
