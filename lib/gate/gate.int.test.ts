// The audit gate against real databases and the real `verity` process: the demo's reward-hacking run fails naming
// reward hacking, its --json equals the API's body, the demo's healthy run passes over its whole run counting as the
// agreement page counts, a steady run lacks evidence before its audit and passes after, a rules file with a bad field
// is refused with its rule and field, a verdict change is posted once, and a stored verdict is known stale when
// reviews arrive after it.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createApiToken, createUser } from "@/lib/admin/mutations.ts";
import { loadAgreementReport } from "@/lib/agreement/cached.ts";
import { seedDemoAudit } from "@/lib/demo/audit.ts";
import { createDemoUsersIfEmpty } from "@/lib/demo/users.ts";
import { createClient } from "@/lib/db/client.ts";
import { seedDemoIfEmpty } from "@/lib/demo/seed.ts";
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";
import { gateApiResponse } from "@/lib/gate/api.ts";
import { getGateVerdict } from "@/lib/gate/data.ts";
import type { GateReport } from "@/lib/gate/evaluate.ts";
import { evaluateRunGate } from "@/lib/gate/refresh.ts";
import { reviewAsTheLedger, seedSteadyRun } from "@/lib/testing/gate-data.ts";
import { type ScratchDatabase, useMigratedScratch } from "@/lib/testing/scratch-suite.ts";
import { uniqueName } from "@/lib/testing/audit-data.ts";
import { alarmReceiverForFile } from "@/lib/testing/webhook-receiver.ts";

const TSX = path.resolve("node_modules/.bin/tsx");

/** Runs `verity gate ARGS` as its own process on the database at `url`: exit code, stdout, stderr. */
function verityGate(args: string[], url: string): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(
      TSX,
      ["bin/verity.ts", "gate", ...args],
      { env: { ...process.env, DATABASE_URL: url }, timeout: 120_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        resolve({ code, out: stdout, err: stderr });
      },
    );
  });
}

const url = process.env.DATABASE_URL!;
const receiver = alarmReceiverForFile();
const STEPS = [0, 500, 1000, 1500, 2000, 2500, 3000];

describe("the gate on the demo", () => {
  let scratch: ScratchDatabase;
  let client: PrismaClient;
  let token: string;
  useMigratedScratch("gate_demo", (s, c) => ((scratch = s), (client = c)));

  beforeAll(async () => {
    expect(await seedDemoIfEmpty(scratch.url, { size: "small" })).toMatch(/grpo-hacking/);
    await createDemoUsersIfEmpty(client);
    expect(await seedDemoAudit(scratch.url)).toMatch(/reward-hacking audit/);
    const admin = await client.user.findFirstOrThrow({ where: { role: "admin" }, select: { id: true, email: true } });
    token = (await createApiToken({ name: "gate", scopes: ["read"] }, { userId: admin.id, email: admin.email }, client))
      .token;
  }, 300_000);

  it("fails grpo-hacking (exit 1), one line per rule with value, threshold and interval", async () => {
    const r = await verityGate(["--run", "grpo-hacking"], scratch.url);
    expect(r.err).toBe("");
    expect(r.code).toBe(1);
    const lines = r.out.trim().split("\n");
    expect(lines[0]).toMatch(
      /^gate FAIL with warnings \(handoff\) for run grpo-hacking, steps 0–29250 \(last 30,000 steps\)$/,
    );
    expect(lines.slice(1).map((l) => l.split(/\s+/).slice(0, 2).join(" "))).toEqual([
      expect.stringMatching(/^\w+ hit_rate$/),
      // its hand-off rate (22.8%) is over the ceiling: a health warning, not a reason to stop
      "WARN handoff",
      expect.stringMatching(/^\w+ agreement$/),
      expect.stringMatching(/^\w+ extraction$/),
      "FAIL trained_mismatch",
      "FAIL reward_hacking",
      // its pairwise audit: judged over the whole run, with the ordering alarm's floor
      expect.stringMatching(/^(PASS|FAIL) ordering$/),
      // off unless a rules file names it
      "OFF ledger_rank",
    ]);
    // a full count of the window's rollouts is shown without a sampling interval
    const handoff = lines.find((l) => /^WARN\s+handoff /.test(l))!;
    expect(handoff).toMatch(/value \d+(\.\d)?%\s+threshold ≤ 10%\s+full count\s+hand-offs on/);
    // reward hacking's line and interval are in points per 1,000 steps, the interval the corrected slope's
    expect(lines.find((l) => /reward_hacking /.test(l))).toMatch(
      /threshold ≥ \+\d+\.\d\dpts\/1k\s+95% [+−]\d+\.\d\dpts\/1k to [+−]\d+\.\d\dpts\/1k /,
    );
    // The trainer of grpo-hacking drops the caps for the last quarter: its trained reward is not the ledger's.
    expect(lines.find((l) => /^FAIL\s+trained_mismatch /.test(l))).toContain("threshold ≤ 1%");
    // reward hacking is judged on ten 3,000-step audit windows (the run's thresholds), not left without evidence
    // and it names reward hacking: the ledger's success rises while the human-corrected success stays flat
    expect(lines.find((l) => /reward_hacking /.test(l))).toMatch(
      /over 10 audit windows of 3,000 steps: the ledger's success rises while the corrected success does not$/,
    );
  }, 120_000);

  it("prints with --json the same document as GET /api/v1/runs/grpo-hacking/gate", async () => {
    const r = await verityGate(["--run", "grpo-hacking", "--json"], scratch.url);
    expect(r.code).toBe(1);
    const cli = JSON.parse(r.out) as GateReport;
    const res = await gateApiResponse(
      new Request("http://verity.test/api/v1/runs/grpo-hacking/gate", {
        headers: { authorization: `Bearer ${token}` },
      }),
      "grpo-hacking",
      client,
    );
    expect(res.status).toBe(200);
    const api = (await res.json()) as GateReport;
    expect(cli).toEqual(api);
    expect(api.verdict).toBe("fail");
    expect(api.failed).toEqual(expect.arrayContaining(["trained_mismatch", "reward_hacking"]));
    expect(api.warnings).toEqual(["handoff"]);
    const rule = api.rules.find((x) => x.rule === "reward_hacking")!;
    expect(rule).toMatchObject({ unit: "windows" });
    expect(rule.n).toBeGreaterThanOrEqual(4);
    if (rule.status === "fail") expect(rule.value!).toBeLessThan(rule.threshold.min!);
    // the same window through the query gives the same report
    const windowed = await gateApiResponse(
      new Request(`http://verity.test/api/v1/runs/grpo-hacking/gate?window_steps=${api.window.steps}`, {
        headers: { authorization: `Bearer ${token}` },
      }),
      "grpo-hacking",
      client,
    );
    expect(await windowed.json()).toEqual(api);
  }, 120_000);

  it("passes grpo-main with its default window, its whole run, counting agreement and extraction as the agreement page does", async () => {
    // its audit is one batch over the whole run: the last 2,000 of its 30,000 steps (the window of a run without the
    // demo's thresholds) hold a handful of its reviewed items, not enough to judge
    const last = await verityGate(["--run", "grpo-main", "--window-steps", "2000", "--json"], scratch.url);
    expect(last.code).toBe(2);
    const lastReport = JSON.parse(last.out) as GateReport;
    expect(lastReport.insufficient).toEqual(["agreement", "reward_hacking"]);
    expect(lastReport.rules.find((x) => x.rule === "agreement")!.n).toBeLessThan(30);

    // the demo gives the run a window over its whole span: its own gate (no flag, as the run page and the API ask)
    const r = await verityGate(["--run", "grpo-main", "--json"], scratch.url);
    expect(r.err).toBe("");
    const report = JSON.parse(r.out) as GateReport;
    expect(report).toMatchObject({ verdict: "pass", failed: [], insufficient: [], window: { steps: 30_000, from: 0 } });
    expect(r.code).toBe(0);
    const stored = await evaluateRunGate("grpo-main", { webhookUrl: null }, client);
    expect(stored.report).toMatchObject({ verdict: "pass", window: { steps: 30_000 } });
    // the agreement page of the run: each item once, through its primary review; extraction's evidence in items
    const page = await loadAgreementReport({ run: "grpo-main", tolerance: 0.1 }, client);
    const agreement = report.rules.find((x) => x.rule === "agreement")!;
    expect(agreement).toMatchObject({ status: "pass", n: page.headline.n, unit: "items" });
    expect(agreement.value).toBeCloseTo(page.headline.value!, 12);
    const extraction = report.rules.find((x) => x.rule === "extraction")!;
    expect(extraction).toMatchObject({ n: page.extraction.items, unit: "items" });
    expect(extraction.value).toBeCloseTo(page.extraction.overallFigure.value!, 12);
    // the trend is fitted on audit windows a tenth of the gate window wide, where grpo-main's audit can say something
    // no pairwise audit: the ordering rule is off, as trained_mismatch is for a run without trained rewards
    expect(report.rules.find((x) => x.rule === "ordering")!.status).toBe("off");
    const hacking = report.rules.find((x) => x.rule === "reward_hacking")!;
    expect(hacking).toMatchObject({ status: "pass", unit: "windows" });
    expect(hacking.message).toMatch(/audit windows of 3,000 steps: the corrected success keeps up$/);
    expect(hacking.interval!.lower).toBeLessThanOrEqual(hacking.value!);
    expect(hacking.interval!.upper).toBeGreaterThanOrEqual(hacking.value!);
  }, 120_000);
});

describe("verity gate on runs built to pass and to lack evidence", () => {
  const run = uniqueName("gate-steady");

  beforeAll(async () => {
    await seedSteadyRun(url, run, STEPS);
  }, 120_000);

  it("exits 2 before the run is audited, naming the rules without evidence; 0 once it is audited", async () => {
    const before = await verityGate(["--run", run, "--json"], url);
    expect(before.code).toBe(2);
    const r = JSON.parse(before.out) as GateReport;
    expect(r).toMatchObject({ verdict: "insufficient", failed: [], window: { steps: 2000, from: 1001, to: 3000 } });
    // extraction is a health reading: without evidence it does not hold the verdict
    expect(r.insufficient).toEqual(["agreement", "reward_hacking"]);
    expect(r.rules.find((x) => x.rule === "extraction")).toMatchObject({ status: "insufficient", severity: "warn" });
    expect(r.rules.find((x) => x.rule === "hit_rate")).toMatchObject({ status: "pass", value: 0.2, n: 160 });
    expect(r.rules.find((x) => x.rule === "handoff")).toMatchObject({ status: "pass", value: 0, n: 160 });
    // no rollout of the run carries a trained reward: the default rules leave that rule out
    expect(r.rules.find((x) => x.rule === "trained_mismatch")).toMatchObject({ status: "off" });

    expect(await reviewAsTheLedger(run, 3000)).toBeGreaterThan(200);
    const after = await verityGate(["--run", run], url);
    expect(after.err).toBe("");
    expect(after.code).toBe(0);
    expect(after.out).toMatch(new RegExp(`^gate PASS for run ${run}, steps 1001–3000`));
    expect(after.out).toMatch(/PASS\s+agreement\s+value 100%/);
  }, 240_000);

  it("a narrower window is judged on its own steps", async () => {
    const r = await verityGate(["--run", run, "--window-steps", "600", "--json"], url);
    const report = JSON.parse(r.out) as GateReport;
    expect(report.window).toEqual({ steps: 600, from: 2401, to: 3000 });
    // steps 2500 and 3000, 40 rollouts each
    expect(report.rules.find((x) => x.rule === "hit_rate")!.n).toBe(80);
    // the audit windows overlapping it (2000, 2500, 3000 on the 500-step grid) are fewer than the four the
    // reward-hacking rule needs
    expect(report.rules.find((x) => x.rule === "reward_hacking")).toMatchObject({ status: "insufficient", n: 3 });
    expect(r.code).toBe(2);
  }, 120_000);

  it("refuses a rules file with a bad field, naming the rule, the field and why (exit 3)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gate-rules-"));
    const bad = path.join(dir, "bad.json");
    fs.writeFileSync(bad, JSON.stringify({ rules: { handoff: { ceiling: 1.5 }, agreement: { flor: 0.8 } } }));
    const r = await verityGate(["--run", run, "--rules", bad], url);
    expect(r.code).toBe(3);
    expect(r.out).toBe("");
    expect(r.err).toContain(`verity gate: --rules ${bad}: rule handoff, field ceiling: must be at most 1`);
    expect(r.err).toContain(`verity gate: --rules ${bad}: rule agreement: unknown field "flor"`);

    // a good file tightens a line: the hit rate's band no longer holds 20%, a warning that leaves the pass (exit 0)
    const good = path.join(dir, "good.json");
    fs.writeFileSync(good, JSON.stringify({ rules: { hit_rate: { low: 0.25, high: 0.3 }, reward_hacking: false } }));
    const g = await verityGate(["--run", run, "--rules", good, "--json"], url);
    const report = JSON.parse(g.out) as GateReport;
    expect(report).toMatchObject({ verdict: "pass", failed: [], warnings: ["hit_rate"] });
    expect(g.code).toBe(0);
    expect(report.rules.find((x) => x.rule === "hit_rate")!.threshold).toEqual({ min: 0.25, max: 0.3 });
    expect(report.rules.find((x) => x.rule === "reward_hacking")!.status).toBe("off");
    const text = await verityGate(["--run", run, "--rules", good], url);
    expect(text.out).toMatch(new RegExp(`^gate PASS with warnings \\(hit_rate\\) for run ${run}`));
    expect(text.out).toMatch(/\nWARN\s+hit_rate\s+value 20%/);
    // a file that makes it a stop rule fails the gate on it
    const strict = path.join(dir, "strict.json");
    fs.writeFileSync(
      strict,
      JSON.stringify({ rules: { hit_rate: { low: 0.25, high: 0.3, severity: "stop" }, reward_hacking: false } }),
    );
    const st = await verityGate(["--run", run, "--rules", strict, "--json"], url);
    expect(st.code).toBe(1);
    expect((JSON.parse(st.out) as GateReport).failed).toEqual(["hit_rate"]);
  }, 120_000);

  it("exits 3 for an unknown run and for a bad flag", async () => {
    const unknown = await verityGate(["--run", uniqueName("nope")], url);
    expect(unknown.code).toBe(3);
    expect(unknown.err).toMatch(/verity gate: no run "nope-/);
    const flag = await verityGate(["--run", run, "--window-steps", "0"], url);
    expect(flag.code).toBe(3);
    expect(flag.err).toContain("--window-steps: must be 1 or more");
  }, 120_000);
});

describe("a change of verdict fires the alarm webhook once", () => {
  const run = uniqueName("gate-hook");

  it("posts the first verdict and each change, once; an unchanged verdict posts nothing", async () => {
    await seedSteadyRun(url, run, STEPS);
    const mine = () => receiver.received.filter((x) => x.run === run) as unknown as Record<string, unknown>[];

    const first = await evaluateRunGate(run, { webhookUrl: receiver.url });
    expect(first.change).toMatchObject({ from: null, to: "insufficient" });
    expect(mine()).toHaveLength(1);
    expect(mine()[0]).toMatchObject({
      type: "verity.gate",
      from: null,
      to: "insufficient",
      insufficient: ["agreement", "reward_hacking"],
    });
    expect(await getGateVerdict(run)).toMatchObject({
      verdict: "insufficient",
      previous: null,
      webhook: "sent",
      stale: false,
    });

    // the same data twice at once: nothing changed, nothing posted
    const again = await Promise.all([
      evaluateRunGate(run, { webhookUrl: receiver.url }),
      evaluateRunGate(run, { webhookUrl: receiver.url }),
    ]);
    expect(again.map((a) => a.change)).toEqual([null, null]);
    // the report itself is reused while the run's rollups, reviews and thresholds are unchanged
    expect(again[0].report).toBe(first.report);
    expect(again[1].report).toBe(first.report);
    expect(mine()).toHaveLength(1);

    await reviewAsTheLedger(run, 3000);
    // reviews written without the after-review hook: the stored verdict is known to be stale until evaluated again
    expect(await getGateVerdict(run)).toMatchObject({ verdict: "insufficient", stale: true });
    // two evaluations of the new data at once: the change is recorded and posted by one of them
    const changed = await Promise.all([
      evaluateRunGate(run, { webhookUrl: receiver.url }),
      evaluateRunGate(run, { webhookUrl: receiver.url }),
    ]);
    expect(changed.filter((c) => c.change !== null)).toHaveLength(1);
    expect(changed[0].report).not.toBe(first.report);
    expect(mine()).toHaveLength(2);
    expect(mine()[1]).toMatchObject({ type: "verity.gate", from: "insufficient", to: "pass", failed: [] });
    expect(await getGateVerdict(run)).toMatchObject({
      verdict: "pass",
      previous: "insufficient",
      webhook: "sent",
      stale: false,
    });

    const settled = await evaluateRunGate(run, { webhookUrl: receiver.url });
    expect(mine()).toHaveLength(2);

    // trained rewards are part of what the gate reads (its trained-mismatch rule): a change of them alone means
    // a report computed again
    const client = createClient(url);
    try {
      // as their writer would (the rollups refuse any other UPDATE): a SET LOCAL, which Citus passes on to the workers
      await client.$transaction([
        client.$executeRawUnsafe("set local verity.rollup_writer = 'on'"),
        client.$executeRaw`update step_rollups set trained = trained + 1, trained_differs = trained_differs + 1
                                 where run_id = ${run} and step = 3000`,
      ]);
    } finally {
      await client.$disconnect();
    }
    // an ingest (here its rollups) after the verdict leaves it stale too
    expect(await getGateVerdict(run)).toMatchObject({ stale: true });
    const retrained = await evaluateRunGate(run, { webhookUrl: receiver.url });
    expect(await getGateVerdict(run)).toMatchObject({ stale: false });
    expect(retrained.report).not.toBe(settled.report);
    expect(retrained.report!.rules.find((r) => r.rule === "trained_mismatch")).not.toEqual(
      settled.report!.rules.find((r) => r.rule === "trained_mismatch"),
    );
  }, 240_000);

  it("a first verdict that passes is recorded without a post", async () => {
    const other = uniqueName("gate-pass");
    await seedSteadyRun(url, other, STEPS);
    await reviewAsTheLedger(other, 3000);
    const r = await evaluateRunGate(other, { webhookUrl: receiver.url });
    expect(r.change).toMatchObject({ from: null, to: "pass" });
    expect(receiver.received.filter((x) => x.run === other)).toHaveLength(0);
    expect(await getGateVerdict(other)).toMatchObject({ verdict: "pass", webhook: null });
  }, 240_000);
});

describe("GET /api/v1/runs/{run}/gate's errors", () => {
  let read: string;
  let ingest: string;
  const run = uniqueName("gate-api");

  beforeAll(async () => {
    await seedSteadyRun(url, run, [0, 500], 10);
    const email = `admin-${uniqueName("g")}@test.local`;
    const u = await createUser(
      { email, name: "", role: "admin", password: "a long enough password" },
      { label: "test" },
    );
    if (!u.ok) throw new Error(u.error);
    read = (await createApiToken({ name: "gate-read", scopes: ["read"] }, { userId: u.id, email })).token;
    ingest = (await createApiToken({ name: "gate-ingest", scopes: ["ingest"] }, { userId: u.id, email })).token;
  }, 120_000);

  const get = (runId: string, query: string, token?: string) =>
    gateApiResponse(
      new Request(`http://verity.test/api/v1/runs/${encodeURIComponent(runId)}/gate${query}`, {
        headers: token ? { authorization: `Bearer ${token}` } : {},
      }),
      runId,
    );

  it("needs a read token, names a bad query parameter, and 404s an unknown run", async () => {
    expect((await get(run, "")).status).toBe(401);
    expect((await get(run, "", ingest)).status).toBe(403);
    const bad = await get(run, "?window_steps=abc", read);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      error: { code: "bad_request", message: "window_steps: must be a whole number of steps, 1 or more" },
    });
    const unknown = await get(run, "?windows=3", read);
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toContain('"windows"');
    const twice = await get(run, "?window_steps=3&window_steps=4", read);
    expect(twice.status).toBe(400);
    const missing = await get(uniqueName("nope"), "", read);
    expect(missing.status).toBe(404);
    const ok = await get(run, "?window_steps=500", read);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as GateReport).window).toEqual({ steps: 500, from: 1, to: 500 });
  });
});
