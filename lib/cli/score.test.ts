// `verity score` as a user runs it: a spawned process (tsx bin/verity.ts) on real files, checking exit codes,
// stdout records and `FILE:LINE: path: message` lines on stderr.
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { completion, startFakeLlm, type FakeLlm } from "@/lib/testing/fake-llm-server.ts";
import { makeCase, makeRollout } from "@/lib/testing/verifier-fixtures.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const EXAMPLES = path.resolve(ROOT, "lib/verifier/examples");
const TSX = path.join(ROOT, "node_modules/.bin/tsx");

type Run = { code: number | null; stdout: string; stderr: string; records: Record<string, unknown>[] };

function verity(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, ["bin/verity.ts", "score", ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => {
      try {
        resolve({
          code,
          stdout,
          stderr,
          records: stdout
            .split("\n")
            .filter(Boolean)
            .map((l) => JSON.parse(l)),
        });
      } catch {
        resolve({ code, stdout, stderr, records: [] }); // not NDJSON (help text)
      }
    });
  });
}

const dir = mkdtempSync(path.join(tmpdir(), "verity-score-"));
const file = (name: string, content: string) => {
  const p = path.join(dir, name);
  writeFileSync(p, content);
  return p;
};
const ndjson = (...values: unknown[]) => values.map((v) => JSON.stringify(v)).join("\n") + "\n";

describe("verity score", { timeout: 30_000 }, () => {
  it("prints help and exits 0", async () => {
    const r = await verity(["--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^usage: verity score/);
  });

  it("exits 2 on unusable arguments", async () => {
    const none = await verity([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no input files/);
    const flag = await verity(["--frobnicate", "x.json"]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/unknown option --frobnicate/);
    const ext = await verity(["--extractor", "magic", "x.json"]);
    expect(ext.code).toBe(2);
    expect(ext.stderr).toMatch(/--extractor must be "rules" or "llm"/);
  });

  it("exits 2 on an unreadable or broken file, before printing anything", async () => {
    const ok = file("ok.ndjson", ndjson({ ...makeRollout(), case: makeCase() }));
    const missing = await verity([ok, path.join(dir, "nope.json")]);
    expect(missing.code).toBe(2);
    expect(missing.stdout).toBe("");
    expect(missing.stderr).toMatch(/cannot read .*nope\.json: ENOENT/);
    const broken = await verity([file("broken.json", '{\n  "kind": "rollout",\n  "step": ,\n}\n')]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/broken\.json:3: not JSON or NDJSON/);
  });

  it("scores the spec examples given as a shell glob, skipping the expected files", async () => {
    const all = readdirSync(EXAMPLES)
      .filter((f) => f.endsWith(".json"))
      .sort()
      .map((f) => path.join(EXAMPLES, f));
    const r = await verity(all);
    expect(r.code).toBe(0);
    expect(r.records).toHaveLength(10);
    for (const rec of r.records) {
      const name = readdirSync(EXAMPLES).find(
        (f) =>
          f.endsWith(".expected.json") &&
          JSON.parse(readFileSync(path.join(EXAMPLES, f), "utf8")).trajectory_id === rec.trajectory_id,
      );
      const expected = JSON.parse(readFileSync(path.join(EXAMPLES, name as string), "utf8"));
      expect(rec).toMatchObject({ kind: "score", status: expected.status, reward: expected.reward });
    }
    expect(r.stderr.match(/skipping .*\.expected\.json/g)).toHaveLength(10);
    expect(r.stderr).toMatch(
      /08-spec-error\.json:70: case\.verifier_spec\.required_writes\.0\.args\.amount: pointer \$order\.paid does not resolve/,
    );
  });

  it("resolves cases across files and after their rollouts, and reports bad rollouts with file:line", async () => {
    const good = makeRollout({ trajectoryId: "t/good" });
    const bad = makeRollout({ trajectoryId: "t/bad" }) as unknown as { trajectory: { steps: { status: string }[] } };
    bad.trajectory.steps[1].status = "done";
    const orphan = makeRollout({ trajectoryId: "t/orphan", ticketId: "T-404" });
    const rollouts = file("rollouts.ndjson", ndjson(good, bad, orphan) + "{not json\n");
    const cases = file("cases.json", JSON.stringify([makeCase()], null, 2));
    const r = await verity([rollouts, cases]);
    expect(r.code).toBe(0);
    expect(r.records.map((x) => [x.trajectory_id, x.status])).toEqual([
      ["t/good", "scored"],
      ["t/bad", "input_error"],
      ["t/orphan", "input_error"],
      [null, "input_error"],
    ]);
    expect(r.records[0].reward).toBe(1);
    expect(r.stderr).toContain(
      `${rollouts}:2: trajectory.steps.1.status: Invalid option: expected one of "success"|"failed"`,
    );
    expect(r.stderr).toContain(`${rollouts}:3: ticket_id: no case for ticket T-404: not embedded and not found`);
    expect(r.stderr).toMatch(
      new RegExp(`${rollouts.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}:4: \\(root\\): invalid JSON`),
    );
  });

  it("costs a bad first line of an NDJSON file only that line, and warns of an unused spec section", async () => {
    const first = file("first-bad.ndjson", "{not json\n" + ndjson(makeRollout({ trajectoryId: "t/after" })));
    const other = file("other.ndjson", ndjson({ ...makeRollout({ trajectoryId: "t/other" }), case: makeCase() }));
    const caseFile = file("case.json", JSON.stringify(makeCase({ deadline: "tomorrow" })));
    const r = await verity([first, other, caseFile]);
    expect(r.code).toBe(0);
    expect(r.records.map((x) => [x.trajectory_id, x.status])).toEqual([
      [null, "input_error"],
      ["t/after", "scored"],
      ["t/other", "scored"],
    ]);
    // The case's deadline is read only by stale_submission, which is off: a warning, the rollout is scored.
    expect(r.stderr).toContain(
      `${caseFile}:1: verifier_spec.deadline: verifier_spec.deadline must be an ISO-8601 instant; not used, stale_submission is off`,
    );
    expect(r.stderr).toMatch(
      new RegExp(`${first.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}:1: \\(root\\): invalid JSON`),
    );
  });

  it("points at the line of the offending field in a pretty-printed file", async () => {
    const r0 = makeRollout() as unknown as Record<string, unknown>;
    const text = JSON.stringify([makeCase(), { ...r0, sample_index: -3 }], null, 2);
    const p = file("pretty.json", text);
    const r = await verity([p]);
    const line = text.split("\n").findIndex((l) => l.includes('"sample_index": -3')) + 1;
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`${p}:${line}: sample_index: `);
  });

  it("reports an invalid case where it is and names it on the rollouts that needed it", async () => {
    const c = makeCase() as unknown as { verifier_spec: Record<string, unknown> };
    c.verifier_spec.handof = "allowed";
    const p = file("bad-case.ndjson", ndjson(c, makeRollout()));
    const r = await verity([p]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`${p}:1: verifier_spec.handof: unknown field "handof"`);
    expect(r.stderr).toContain(
      `${p}:2: ticket_id: no case for ticket T-1001: not embedded and not found (the case at ${p}:1 is invalid)`,
    );
  });

  it("holds its input to the limits: nesting depth and ids, each reported with its line and path", async () => {
    const deep = (n: number) => '{"a":'.repeat(n) + "1" + "}".repeat(n);
    const deepCase = JSON.stringify(makeCase({}, undefined, "T-DEEP")).replace(
      '"env_snapshot":{',
      `"env_snapshot":{"x":${deep(10_000)},`,
    );
    const rollout = JSON.stringify(makeRollout({ trajectoryId: "t/deep" }));
    const deepRollout = rollout.replace('"output":"ok"', `"output":${deep(10_000)}`);
    expect(deepRollout).not.toBe(rollout);
    const f = file(
      "limits.ndjson",
      [
        JSON.stringify(makeCase()),
        deepCase,
        JSON.stringify(makeRollout()),
        deepRollout,
        JSON.stringify({ ...makeRollout({ trajectoryId: "t/long" }), run_id: "r".repeat(3000) }),
      ].join("\n") + "\n",
    );
    const r = await verity([f]);
    expect(r.code).toBe(0);
    expect(r.records.map((x) => [x.trajectory_id, x.status])).toEqual([
      ["t/1", "scored"],
      ["t/deep", "input_error"],
      ["t/long", "input_error"],
    ]);
    const depthMessage = "nested deeper than 64 levels of objects and arrays";
    const caseDepthPath = ["env_snapshot", "x", ...Array(62).fill("a")].join(".");
    const stepDepthPath = ["trajectory", "steps", "0", "output", ...Array(60).fill("a")].join(".");
    expect((r.records[1].reasons as unknown[])[0]).toMatchObject({ path: stepDepthPath, message: depthMessage });
    expect((r.records[2].reasons as unknown[])[0]).toMatchObject({
      path: "run_id",
      message: "too long: at most 200 characters (got 3000)",
    });
    expect(r.stderr.split("\n")).toEqual(
      expect.arrayContaining([
        `${f}:2: ${caseDepthPath}: ${depthMessage}`,
        `${f}:4: ${stepDepthPath}: ${depthMessage}`,
        `${f}:5: run_id: too long: at most 200 characters (got 3000)`,
      ]),
    );
  });

  it("uses --config: an invalid one exits 2 with the reason, a valid one changes the hash and the guardrails", async () => {
    const bad = await verity([
      "--config",
      file("bad-config.json", '{"weights": {"outcome": 0.9}}'),
      file("x.ndjson", ndjson(makeRollout())),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/bad-config\.json: weights: weights must sum to 1 \(they sum to 1\.45\)/);
    const cfg = file("tool-missing.json", '{"guardrails": {"tool_missing": {"on": true}}}');
    const roll = makeRollout();
    roll.trajectory.steps.push({ type: "tool", name: "crm.lookup", input: {}, status: "success" });
    const input = file("with-unknown-tool.ndjson", ndjson(makeCase(), roll));
    const [plain, configured] = await Promise.all([verity([input]), verity(["--config", cfg, input])]);
    expect(plain.records[0].guardrails).toEqual([]);
    expect((configured.records[0].guardrails as { code: string }[]).map((g) => g.code)).toEqual(["tool_missing"]);
    expect(configured.records[0].config_hash).not.toBe(plain.records[0].config_hash);
  });

  describe("--extractor llm", () => {
    let llm: FakeLlm;
    beforeAll(async () => {
      llm = await startFakeLlm(() => ({
        body: completion({
          claimed_writes: ["finance.issue_refund"],
          mentioned: [{ key: "refund_amount", value: 59.99 }],
          forbidden_hits: [],
        }),
      }));
    });
    afterAll(() => llm.close());

    it("exits 2 when the LLM is not configured", async () => {
      const r = await verity(["--extractor", "llm", file("y.ndjson", ndjson(makeRollout()))], {
        VERITY_LLM_BASE_URL: "",
        VERITY_LLM_MODEL: "",
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/LLM extractor is not configured: VERITY_LLM_BASE_URL/);
    });

    it("extracts claims for rollouts without them and keeps bundle claims", async () => {
      const input = file(
        "llm.ndjson",
        ndjson(makeCase(), makeRollout({ claims: null, trajectoryId: "t/x" }), makeRollout({ trajectoryId: "t/b" })),
      );
      const r = await verity(["--extractor", "llm", input], {
        VERITY_LLM_BASE_URL: llm.baseUrl,
        VERITY_LLM_MODEL: "fake-1",
        VERITY_LLM_API_KEY: "k",
      });
      expect(r.code).toBe(0);
      expect(r.records.map((x) => [x.trajectory_id, x.claims_source])).toEqual([
        ["t/x", "llm:fake-1"],
        ["t/b", "bundle"],
      ]);
      expect(llm.requests).toHaveLength(1);
    });
  });
});
