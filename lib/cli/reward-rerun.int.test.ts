// `verity reward probe` and `verity reward retest` against the real database: the report in words and as the last
// JSON line, the run stored with its kind, and every bad input refused with the flag it concerns.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBatch } from "@/lib/audit/mutations.ts";
import { run } from "@/lib/cli/reward.ts";
import { clientOver } from "@/lib/db/client.ts";
import { addRewardVersion } from "@/lib/rewards/mutations.ts";
import { PROBE_LINES } from "@/lib/rewards/probes.ts";
import { versionDocument } from "@/lib/rewards/schema.ts";
import { seedRun, uniqueName } from "@/lib/testing/audit-data.ts";
import { captureIo } from "@/lib/testing/cli-io.ts";

const ACTOR = { label: "test" };
const RUN = uniqueName("cli-probe");
const BARE = uniqueName("cli-bare");
const JUDGE = uniqueName("judge");
let pool: pg.Pool;

beforeAll(async () => {
  const url = process.env.DATABASE_URL!;
  pool = new pg.Pool({ connectionString: url, max: 2 });
  await seedRun(url, { runId: RUN, tickets: 4, perTicket: 1 });
  await seedRun(url, { runId: BARE, tickets: 1, perTicket: 1 });
  const b = await createBatch(
    { runId: RUN, stepFrom: 0, stepTo: 100, rate: 1, salt: "x", pick: "all", overlapRate: 0, tolerance: 0.1 },
    ACTOR,
  );
  if (!b.ok) throw new Error(b.error);
  await pool.query("update audit_items set reviews_done = 1 where batch_id = $1", [b.batchId]);
  const doc = versionDocument({ components: [{ kind: "judge", rubric: "r", simulated: true }] });
  await addRewardVersion({ name: JUDGE, doc, reason: "test" }, ACTOR, clientOver(pool));
});
afterAll(async () => pool?.end());

const last = (out: string[]) => JSON.parse(out[out.length - 1]);

describe("verity reward probe", () => {
  it("probes the audited rollouts and says the judge moves, line by line", async () => {
    const c = captureIo();
    expect(await run(["probe", JUDGE, "--run", RUN, "--sample", "3"], c.io)).toBe(0);
    expect(c.err[0]).toMatch(
      /^started injection probe #\d+: .* v1 over a sample of 3 audited rollouts .* \(3 rollouts\)/,
    );
    const text = c.out.join("\n");
    expect(text).toMatch(/injection probe #\d+ \(pass at 0\.9\): the reward MOVES/);
    expect(text).toMatch(
      / {2}instruction-zh: MOVES \(too few to say\) · mean shift \+0\.250 \(n = 3 · 95% CI 0\.250 to 0\.250\) · verdicts flipped 3 of 3 · 95% CI 44–100%/,
    );
    expect(text).toMatch(/ {2}resolved-claim-en: holds/);
    const summary = last(c.out);
    expect(summary).toMatchObject({ kind: "probe", status: "done", done: 3, report: { moved: true } });
    expect(summary.report.lines).toHaveLength(PROBE_LINES.length);
    const { rows } = await pool.query("select kind, scope from reward_runs where id = $1", [summary.reward_run]);
    expect(rows[0]).toEqual({ kind: "probe", scope: { kind: "audited", n: 3, salt: "audited" } });
  });

  it("refuses bad input with the flag it concerns", async () => {
    const cases: [string[], number, RegExp][] = [
      [["probe", JUDGE], 2, /probe: --run: name the run \(--run R\)/],
      [["probe", JUDGE, "--run", RUN, "--sample", "0"], 2, /--sample: at least 1/],
      [["probe", JUDGE, "--run", RUN, "--sample", "many"], 2, /--sample: a whole number/],
      [["probe", JUDGE, "--run", RUN, "--batch", "3"], 2, /--batch: a probe runs on the run's audited rollouts/],
      [["probe", JUDGE, "--run", RUN, "--fresh"], 2, /--fresh: a probe scores every rollout anew/],
      [["probe", JUDGE, "--run", RUN, "--version", "x"], 2, /--version: a version number/],
      [["probe", "no-such-fn", "--run", RUN], 1, /there is no reward function "no-such-fn"/],
      [["probe", JUDGE, "--run", "no-such-run"], 1, /there is no run "no-such-run"/],
      [["probe", JUDGE, "--run", BARE], 1, new RegExp(`run ${BARE} has no audited rollouts`)],
      [["probe", JUDGE, "also", "--run", RUN], 2, /probe: name one reward function/],
    ];
    for (const [args, code, message] of cases) {
      const c = captureIo();
      expect([args.join(" "), await run(args, c.io)]).toEqual([args.join(" "), code]);
      expect(c.err.join("\n")).toMatch(message);
    }
  });
});

describe("verity reward retest", () => {
  it("scores the same rollouts again and reports their agreement; --fresh scores both sides", async () => {
    const c = captureIo();
    expect(await run(["retest", JUDGE, "--run", RUN, "--json"], c.io)).toBe(0);
    const s = last(c.out);
    // The probe's originals of three rollouts are the stored results they pair with; the fourth is scored twice. A
    // deterministic judge agrees with itself.
    expect(s).toMatchObject({
      kind: "retest",
      done: 4,
      reused: 3,
      report: { kind: "retest", moved: false, lines: [] },
    });
    expect([s.report.overall.n, s.report.overall.agreement.k]).toEqual([4, 4]);
    const again = captureIo();
    expect(await run(["retest", JUDGE, "--run", RUN], again.io)).toBe(0);
    expect(last(again.out)).toMatchObject({ reused: 4 });
    expect(again.out.join("\n")).toMatch(/retest #\d+ \(pass at 0\.9\): the reward holds/);
    const fresh = captureIo();
    expect(await run(["retest", JUDGE, "--run", RUN, "--fresh", "--sample", "2"], fresh.io)).toBe(0);
    expect(last(fresh.out)).toMatchObject({ reused: 0, done: 2 });
  });
});
