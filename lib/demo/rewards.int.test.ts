// The demo's reward functions: stored once, each run over every shadow-audit batch, the judge labelled simulated,
// the code reward ok in the sandbox or unavailable without it — never a 0 for a failure.
import { describe, expect, it } from "vitest";
import { seedDemoAudit } from "@/lib/demo/audit.ts";
import { createDemoUsersIfEmpty } from "@/lib/demo/users.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import { DEMO_REWARD_FUNCTIONS, seedDemoRewards } from "@/lib/demo/rewards.ts";
import { loadLeaderboard } from "@/lib/leaderboard/loaders.ts";
import { loadHoldsUp } from "@/lib/leaderboard/reruns.ts";
import { parseLeaderboardQuery } from "@/lib/leaderboard/schema.ts";
import { PROBE_LINES } from "@/lib/rewards/probes.ts";
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";
import { sandboxAvailability } from "@/lib/rewards/sandbox/index.ts";
import { seedRun } from "@/lib/testing/audit-data.ts";
import { type ScratchDatabase, useMigratedScratch } from "@/lib/testing/scratch-suite.ts";

describe("the demo reward functions", () => {
  let scratch: ScratchDatabase;
  let client: PrismaClient;
  useMigratedScratch("demo_rewards", (s, c) => ((scratch = s), (client = c)));

  it("have results on every audited item, once", async () => {
    await createDemoUsersIfEmpty(client);
    await seedRun(scratch.url, {
      runId: "grpo-main",
      tickets: 120,
      variant: (i) => (i % 10 === 0 ? "empty_promise" : "honest"),
    });
    expect(await seedDemoAudit(scratch.url)).toMatch(/^demo shadow audit/);
    const lines: string[] = [];
    await seedDemoRewards(scratch.url, (l) => lines.push(l));
    expect(lines[0]).toMatch(/^loaded demo reward functions: 5 \(one judge simulated\)/);
    expect(lines[1]).toMatch(
      /^probed the demo reward functions on 40 audited rollouts of grpo-main, retested verifier/,
    );
    const pool = bulkPool(scratch.url);
    const items = (await pool.query("select count(distinct rollout_id)::int as n from audit_items")).rows[0].n;
    expect(items).toBeGreaterThan(20);
    const { rows } = await pool.query<{
      name: string;
      n: number;
      ok: number;
      unavailable: number;
      zero_failures: number;
    }>(
      `select f.name, count(*)::int as n, count(*) filter (where x.status = 'ok')::int as ok,
              count(*) filter (where x.status = 'unavailable')::int as unavailable,
              count(*) filter (where x.status <> 'ok' and x.reward is not null)::int as zero_failures
         from reward_results x join reward_function_versions v on v.id = x.version_id
         join reward_functions f on f.id = v.function_id join reward_runs rr on rr.id = x.reward_run_id
        where rr.kind = 'plain' group by f.name order by f.name`,
    );
    expect(rows.map((r) => r.name)).toEqual(DEMO_REWARD_FUNCTIONS.map((f) => f.name).sort());
    for (const r of rows) {
      expect(r.n).toBe(items);
      expect(r.zero_failures).toBe(0);
      if (r.name === "promise-kept-code") expect(sandboxAvailability().ok ? r.ok : r.unavailable).toBe(items);
      else expect(r.ok).toBe(items);
    }
    const judged = await pool.query(
      `select x.components->0->'detail'->>'simulated' as simulated, x.reward from reward_results x
         join reward_function_versions v on v.id = x.version_id join reward_functions f on f.id = v.function_id
        where f.name = 'cs-judge-simulated' limit 1`,
    );
    expect(judged.rows[0].simulated).toBe("true");
    // An empty promise scores 0 on the code reward where the rule verifier caps it too.
    if (sandboxAvailability().ok) {
      const empty = await pool.query(
        `select x.reward from reward_results x join reward_function_versions v on v.id = x.version_id
           join reward_functions f on f.id = v.function_id join rollouts o on o.run_id = x.run_id and o.id = x.rollout_id
          where f.name = 'promise-kept-code' and o.sandbox->'writes' = '[]'::jsonb`,
      );
      for (const r of empty.rows) expect(r.reward).toBe(0);
    }
    // How it holds up: the judge's probe moves it, the verifier's does not; both retests are recorded.
    const judge = (await loadHoldsUp(pool, "cs-judge-simulated"))[0];
    const verifier = (await loadHoldsUp(pool, "verifier"))[0];
    expect([judge.runId, judge.probe?.moved, judge.probe?.overall.n, judge.retest?.overall.n]).toEqual([
      "grpo-main",
      true,
      40 * PROBE_LINES.length,
      40,
    ]);
    expect([verifier.probe?.moved, verifier.probe?.overall.flips.k, verifier.retest?.moved]).toEqual([false, 0, false]);
    // The leaderboard reads the same pairs: the judge's row is flagged, the verifier's is not, and the probed results
    // are no part of any row's figures (each version covers the audited items once).
    const query = parseLeaderboardQuery({ run: "grpo-main" });
    if (!query.ok) throw new Error(query.errors.join("; "));
    const board = await loadLeaderboard(query.query, client);
    if (!board.ok) throw new Error(board.error);
    const row = (name: string) => board.view.rows.find((r) => r.function?.name === name)!;
    expect([
      row("cs-judge-simulated").flagged,
      row("verifier").flagged,
      (row("verifier").probe?.n ?? 0) + (row("verifier").probe?.incomplete ?? 0),
    ]).toEqual([true, false, 40 * PROBE_LINES.length]);
    for (const r of board.view.rows) {
      const missing = Object.values(r.coverage.missing).reduce((a, b) => a + b, 0);
      expect([r.label, r.coverage.items]).toEqual([r.label, r.coverage.covered + missing]);
      expect([r.label, r.coverage.missing.not_run]).toEqual([r.label, 0]);
    }
    await seedDemoRewards(scratch.url, (l) => lines.push(l));
    expect(lines).toHaveLength(2);
  });
});
