// Reward functions' throughput: `npx tsx bench/rewards.ts [rollouts] [judge calls] [results] [--store-only]` (defaults 100000, 800
// and 1000000). Prints each figure beside its baseline, measured in the same run, and whether the target holds:
//  - rule components (format + exact match + math) over demo-like rollouts vs JSON.parse of the same rollouts (≥ 0.5×);
//  - a judge against a fake endpoint answering in 300 ms, 16 requests in flight (≥ 0.8 × 16 / 0.3 s), and a re-run
//    of the same version over the same rollouts, reused from the stored results (≥ 20,000 rollouts/s);
//  - storing results into one run with the run's writer vs a bare COPY of the same rows (≥ 0.3×), peak RSS < 400 MB;
//  - code rewards in the sandbox (bench/lib/rewards-code.ts), when bubblewrap is there.
// Needs DATABASE_URL or starts the embedded server (as the CLI does) for the cached re-run and the storing figures.
// The reward leaderboard's page read over their results (20 functions × 10,000 audited items within 1 s, uncached) is
// measured by bench/leaderboard-db.ts, on a database of its own (docs/benchmarks.md).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type pg from "pg";
import { benchCodeRewards } from "@/bench/lib/rewards-code.ts";
import { copyRows } from "@/lib/db/copy.ts";
import { withBulkDatabase } from "@/lib/ingest/database.ts";
import { clientOver } from "@/lib/db/client.ts";
import { compileVersion } from "@/lib/rewards/evaluate.ts";
import type { RewardInput } from "@/lib/rewards/input.ts";
import { judgeEvaluator } from "@/lib/rewards/judge.ts";
import { addRewardVersion } from "@/lib/rewards/mutations.ts";
import { executeRewardRun, startRewardRun } from "@/lib/rewards/runs.ts";
import { versionDocument, type JudgeComponent } from "@/lib/rewards/schema.ts";
import { sandboxAvailability } from "@/lib/rewards/sandbox/index.ts";
import { RESULT_COLUMNS, resultValues, storeResults, type ResultRow } from "@/lib/rewards/store.ts";
import { mulberry32 } from "@/lib/stats/prng.ts";
import { seedRun } from "@/lib/testing/audit-data.ts";
import { makeCase, makeRollout } from "@/lib/testing/verifier-fixtures.ts";

const positional = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const ROLLOUTS = Number(positional[0] ?? 100_000);
const JUDGE_CALLS = Number(positional[1] ?? 800);
const RESULTS = Number(positional[2] ?? 1_000_000);

const verdict = (ok: boolean) => (ok ? "met" : "NOT met");
const fmt = (n: number) => Math.round(n).toLocaleString("en-US");

const doc = versionDocument;

const RULES = doc({
  components: [
    { kind: "format", weight: 0.2, pattern: "refunded [\\d.]+ EUR" },
    { kind: "exact_match", weight: 0.4, pattern: "refunded ([\\d.]+) EUR", reference: "$order.paid_amount" },
    { kind: "math", weight: 0.4, pattern: "refunded ([\\d.]+) EUR", reference: "$order.paid_amount" },
  ],
});

/** Demo-like rollouts as JSON lines: the refund story with varied amounts and replies, a tenth of them wrong. */
function rolloutLines(n: number): string[] {
  const rand = mulberry32(20261206);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const amount = (10 + Math.floor(rand() * 9000) / 100).toFixed(2);
    const shown = rand() < 0.1 ? (Number(amount) + 1).toFixed(2) : amount;
    out.push(
      JSON.stringify(
        makeRollout({
          trajectoryId: `b/${i}`,
          reply: `I'm sorry. I have refunded ${shown} EUR; it arrives in 3-5 days.`,
        }),
      ),
    );
  }
  return out;
}

async function benchRules(): Promise<void> {
  const lines = rolloutLines(ROLLOUTS);
  const caseDoc = makeCase();
  const t0 = performance.now();
  const parsed = lines.map((l) => JSON.parse(l));
  const parseSeconds = (performance.now() - t0) / 1000;
  const compiled = compileVersion(RULES);
  const t1 = performance.now();
  let sum = 0;
  for (const rollout of parsed) {
    caseDoc.env_snapshot = {
      order: { paid_amount: Number(/refunded ([\d.]+)/.exec(rollout.trajectory.final_reply)![1]) },
    };
    sum += (await compiled.evaluate({ rollout, caseDoc } as RewardInput)).reward ?? 0;
  }
  const ruleSeconds = (performance.now() - t1) / 1000;
  const ratio = parseSeconds / ruleSeconds;
  console.log(
    `rules (format + exact match + math) over ${fmt(ROLLOUTS)} rollouts: ${fmt(ROLLOUTS / ruleSeconds)}/s; JSON.parse of the same: ${fmt(ROLLOUTS / parseSeconds)}/s; ratio ${ratio.toFixed(2)}x, target ≥ 0.5x: ${verdict(ratio >= 0.5)} (Σ reward ${sum.toFixed(1)})`,
  );
}

async function benchJudge(): Promise<void> {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () =>
      setTimeout(() => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            choices: [{ message: { content: '{"score": 0.8, "reason": "ok"}' } }],
            usage: { prompt_tokens: 300, completion_tokens: 12 },
          }),
        );
      }, 300),
    );
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  const judge = doc({
    components: [
      { kind: "judge", rubric: "r", endpoint: `http://127.0.0.1:${port}/v1`, model: "fake", max_in_flight: 16 },
    ],
  }).components[0] as JudgeComponent;
  const run = judgeEvaluator(judge, { env: null });
  const input: RewardInput = { rollout: makeRollout(), caseDoc: makeCase() };
  const t0 = performance.now();
  const results = await Promise.all(Array.from({ length: JUDGE_CALLS }, () => run(input)));
  const seconds = (performance.now() - t0) / 1000;
  server.close();
  const ok = results.filter((r) => r.status === "ok").length;
  const target = (0.8 * 16) / 0.3;
  console.log(
    `judge, 300 ms endpoint, 16 in flight: ${JUDGE_CALLS} calls (${ok} ok) in ${seconds.toFixed(2)} s = ${(JUDGE_CALLS / seconds).toFixed(1)}/s; target ≥ ${target.toFixed(1)}/s: ${verdict(JUDGE_CALLS / seconds >= target)}`,
  );
}

async function benchCachedRerun(pool: pg.Pool, url: string): Promise<void> {
  const runId = `bench-rewards-${Date.now()}`;
  const n = Math.min(ROLLOUTS, 20_000);
  await seedRun(url, { runId, tickets: n / 4, perTicket: 4 });
  const simulated = doc({ components: [{ kind: "judge", rubric: "r", simulated: true }] });
  const { version } = await addRewardVersion(
    { name: runId, doc: simulated, reason: "bench" },
    { label: "bench" },
    clientOver(pool),
  );
  const first = await startRewardRun(
    pool,
    { versionId: version.id, runId, scope: { kind: "range" } },
    { label: "bench" },
  );
  await executeRewardRun(pool, first.id, { pageSize: 2000 });
  const again = await startRewardRun(
    pool,
    { versionId: version.id, runId, scope: { kind: "range" } },
    { label: "bench" },
  );
  const t0 = performance.now();
  const p = await executeRewardRun(pool, again.id, { pageSize: 2000 });
  const rate = p.done / ((performance.now() - t0) / 1000);
  console.log(
    `cached re-run over ${fmt(n)} rollouts (${fmt(p.reused)} reused): ${fmt(rate)}/s; target ≥ 20,000/s: ${verdict(rate >= 20_000)}`,
  );
}

async function benchStore(pool: pg.Pool, url: string): Promise<void> {
  const runId = `bench-store-${Date.now()}`;
  await seedRun(url, { runId, tickets: 1, perTicket: 1 });
  const { version } = await addRewardVersion(
    { name: runId, doc: RULES, reason: "bench" },
    { label: "bench" },
    clientOver(pool),
  );
  const s = await startRewardRun(pool, { versionId: version.id, runId, scope: { kind: "range" } }, { label: "bench" });
  const row = (i: number): ResultRow => ({
    runId,
    rewardRunId: s.id,
    versionId: version.id,
    rolloutId: String(i + 1),
    step: i >> 10,
    ticketId: `T${i & 1023}`,
    reward: (i % 10) / 10,
    components: [{ kind: "format", name: "format#1", weight: 1, status: "ok", value: (i % 10) / 10 }],
    status: "ok",
    error: null,
    latencyMs: 0.05,
    judgeTokens: 0,
    cost: 0,
    inputHash: "h".repeat(64),
  });
  const BATCH = 5000;
  const client = await pool.connect();
  let peak = process.memoryUsage().rss;
  try {
    await client.query(`create temp table bare_results (like reward_results including defaults)`);
    const t0 = performance.now();
    for (let i = 0; i < RESULTS; i += BATCH) {
      const rows = Array.from({ length: Math.min(BATCH, RESULTS - i) }, (_, k) => resultValues(row(i + k)));
      await copyRows(client, "bare_results", RESULT_COLUMNS, rows);
    }
    const bare = (performance.now() - t0) / 1000;
    const t1 = performance.now();
    for (let i = 0; i < RESULTS; i += BATCH) {
      await client.query("begin");
      await storeResults(
        client,
        Array.from({ length: Math.min(BATCH, RESULTS - i) }, (_, k) => row(i + k)),
      );
      await client.query("commit");
      peak = Math.max(peak, process.memoryUsage().rss);
    }
    const stored = (performance.now() - t1) / 1000;
    const ratio = bare / stored;
    console.log(
      `storing ${fmt(RESULTS)} results: ${fmt(RESULTS / stored)}/s; bare COPY of the same rows: ${fmt(RESULTS / bare)}/s; ratio ${ratio.toFixed(2)}x, target ≥ 0.3x: ${verdict(ratio >= 0.3)}; peak RSS ${Math.round(peak / 2 ** 20)} MB, target < 400 MB: ${verdict(peak < 400 * 2 ** 20)}`,
    );
  } finally {
    client.release();
  }
}

// `--store-only`: the storing figure alone, in a process of its own, so its peak RSS is the store's and not what the
// earlier phases left on the heap (the default run prints it after them, and says so).
if (process.argv.includes("--store-only")) {
  await withBulkDatabase((pool, url) => benchStore(pool, url));
} else {
  await benchRules();
  await benchJudge();
  await withBulkDatabase(async (pool, url) => {
    await benchCachedRerun(pool, url);
    await benchStore(pool, url);
  });
  console.log(
    "(the peak RSS above includes what the earlier phases left on the heap: `--store-only` measures it alone)",
  );
  const sandbox = sandboxAvailability();
  if (sandbox.ok) await benchCodeRewards({ rollouts: Math.min(ROLLOUTS, 20_000) });
  else console.log(`code rewards: not measured: ${sandbox.reason}`);
}
