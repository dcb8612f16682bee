// The reward leaderboard read from the database: a run seeded through the product's own write paths (ingest, a tickets
// batch reviewed blind, a pairwise batch judged, four reward-function versions run, with results ok, error, timeout,
// invalid output, unavailable and not run), loaded by loadLeaderboardInput and built, against the independent
// reference (lib/testing/leaderboard_reference.py) fed with an input read back with plain SQL.
import { beforeAll, describe, expect, it } from "vitest";
import { rawClient } from "@/lib/db/raw-client.ts";
import { buildLeaderboard } from "@/lib/leaderboard/build.ts";
import { loadLeaderboardInput } from "@/lib/leaderboard/data.ts";
import { headToHead } from "@/lib/leaderboard/head-to-head.ts";
import { columnsOf, type CandidateResult, type LeaderboardInput } from "@/lib/leaderboard/input.ts";
import { LEADERBOARD_SEED } from "@/lib/leaderboard/row.ts";
import { ledgerStanding } from "@/lib/leaderboard/standing.ts";
import { loadGateReport } from "@/lib/gate/loaders.ts";
import { seedLeaderboardRun, type LeaderboardSeed } from "@/lib/testing/leaderboard-seed.ts";
import {
  expectHeadToHeadMatches,
  expectRowsMatch,
  expectSlicesMatch,
  leaderboardReference,
} from "@/lib/testing/leaderboard-reference.ts";

const url = process.env.DATABASE_URL!;

type ItemRow = {
  item_id: string;
  rollout_id: string;
  group_id: string;
  step: number;
  ledger: number | null;
  category: string | null;
  human: number;
  hg: string[];
  lg: string[];
};
type ResultRow = {
  id: string;
  rollout_id: string;
  status: CandidateResult["status"];
  reward: number | null;
  latency_ms: number;
  cost: number;
};
type PairRow = { a: string; b: string; ta: string; group_id: string; pi: number; pref: string | null };

/** The leaderboard's input as plain SQL reads it: primary blind review first by id, latest result by id. */
async function inputBySql(runId: string, thresholds: Record<string, number>): Promise<LeaderboardInput> {
  const c = rawClient({ connectionString: url });
  await c.connect();
  try {
    const counted = (t: string) =>
      `${t}.excluded_reason is null and not exists (select 1 from ${t === "r" ? "reviews" : "pair_reviews"} s where s.supersedes_id = ${t}.id)`;
    const items = await c.query<ItemRow>(
      `with prim as (
         select distinct on (r.item_id) r.item_id, r.reward, r.guardrails from reviews r
          where ${counted("r")} order by r.item_id, r.id)
       select i.id::text as item_id, i.rollout_id::text as rollout_id, ro.group_id, ro.step, l.reward as ledger,
              l.category, p.reward as human, p.guardrails as hg,
              (select coalesce(array_agg(g.code::text), '{}') from ledger_guardrails g where g.ledger_id = l.id) as lg
         from audit_items i join prim p on p.item_id = i.id
         join ledger l on l.run_id = i.run_id and l.id = i.ledger_id
         join rollouts ro on ro.run_id = i.run_id and ro.id = i.rollout_id
        where i.run_id = $1 order by i.id`,
      [runId],
    );
    const results = await c.query<ResultRow>(
      `select distinct on (x.version_id, x.rollout_id) x.version_id::text as id, x.rollout_id::text as rollout_id,
              x.status, x.reward, x.latency_ms, x.cost
         from reward_results x where x.run_id = $1 order by x.version_id, x.rollout_id, x.id desc`,
      [runId],
    );
    const pairs = await c.query<PairRow>(
      `select i.rollout_id::text as a, i.rollout_b_id::text as b, i.trajectory_id as ta, ro.group_id, i.inclusion_prob as pi,
              (select p.preferred_trajectory_id from pair_reviews p where p.item_id = i.id and ${counted("p")}
                order by p.id limit 1) as pref
         from audit_items i join rollouts ro on ro.run_id = i.run_id and ro.id = i.rollout_id
        where i.run_id = $1 and i.rollout_b_id is not null
          and exists (select 1 from pair_reviews p where p.item_id = i.id and ${counted("p")})
        order by i.id`,
      [runId],
    );
    const ledger: Record<string, CandidateResult> = {};
    for (const i of items.rows)
      ledger[i.rollout_id] = i.ledger === null ? { reward: null, status: "error" } : { reward: i.ledger, status: "ok" };
    const byVersion = new Map<string, Record<string, CandidateResult>>();
    for (const r of results.rows) {
      if (!byVersion.has(r.id)) byVersion.set(r.id, {});
      byVersion.get(r.id)![r.rollout_id] = {
        reward: r.reward,
        status: r.status,
        latencyMs: r.latency_ms,
        costUsd: r.cost,
      };
    }
    const candidates = [
      { id: "ledger", label: "ledger", kind: "ledger" as const, results: ledger },
      ...[...byVersion].map(([id, results]) => ({ id, label: id, kind: "rule" as const, results })),
    ].map((x) => (thresholds[x.id] ? { ...x, threshold: thresholds[x.id] } : x));
    return {
      items: items.rows.map((i) => ({
        itemId: i.item_id,
        rolloutId: i.rollout_id,
        groupId: i.group_id,
        human: { verdict: i.human >= 0.9 ? "pass" : "fail", reward: i.human },
        guardrails: [...new Set([...i.lg, ...i.hg])],
        category: i.category,
      })),
      candidates,
      pairwise: pairs.rows.map((p) => ({
        groupId: p.group_id,
        left: p.a,
        right: p.b,
        preferred: p.pref === null ? "tie" : p.pref === p.ta ? "left" : "right",
        inclusionProb: p.pi,
      })),
    };
  } finally {
    await c.end();
  }
}

describe("the reward leaderboard read from the database", () => {
  let seed: LeaderboardSeed;
  beforeAll(async () => {
    seed = await seedLeaderboardRun(url);
  }, 300_000);

  it("equals the independent reference fed from plain SQL, on every row, slice and head to head", async () => {
    const thresholds = { [String(seed.versions.rule)]: 0.7 };
    const loaded = await loadLeaderboardInput({ run: seed.runId, threshold: thresholds });
    if (!loaded.ok) throw new Error(loaded.error);
    const sql = await inputBySql(seed.runId, thresholds);
    expect(
      loaded.input.items.map((i) => [i.itemId, i.rolloutId, i.groupId, i.human, [...i.guardrails].sort()]),
    ).toEqual(sql.items.map((i) => [i.itemId, i.rolloutId, i.groupId, i.human, [...i.guardrails].sort()]));
    expect(loaded.input.candidates.map((c) => c.id).sort()).toEqual(sql.candidates.map((c) => c.id).sort());
    const board = buildLeaderboard(loaded.input);
    // the seed exercises what it should: every reason an item is missing, both verdicts, pairwise judgements
    const missing = board.rows.map((r) => r.coverage.missing);
    for (const reason of ["not_run", "error", "timeout", "invalid_output", "unavailable"] as const)
      expect({ reason, seen: missing.some((m) => m[reason] > 0) }).toEqual({ reason, seen: true });
    expect(loaded.input.pairwise.length).toBe(sql.pairwise.length);
    expect(sql.pairwise.length).toBeGreaterThan(10);
    const ledgerRow = board.rows.find((r) => r.isLedger)!;
    expect(ledgerRow.verdict.sensitivity.n).toBeGreaterThan(3);
    expect(ledgerRow.verdict.specificity.n).toBeGreaterThan(3);
    expect(board.rows.find((r) => r.id === String(seed.versions.rule))!.threshold).toBe(0.7);

    const pairs: [string, string][] = [
      ["ledger", String(seed.versions.rule)],
      [String(seed.versions.judge), "ledger"],
    ];
    const ref = leaderboardReference({
      input: sql,
      headToHead: pairs,
      seed: LEADERBOARD_SEED,
      iterations: 1000,
    });
    expectRowsMatch(board, ref);
    expectSlicesMatch(board, ref);
    expect(ref.headToHead[`${seed.versions.judge}|ledger`].spearman).not.toBeNull();
    for (const [a, b] of pairs) expectHeadToHeadMatches(headToHead(loaded.input, a, b), ref.headToHead[`${a}|${b}`]);
  });

  it("reads the components of the two rows compared head to head only", async () => {
    const rule = String(seed.versions.rule);
    const loaded = await loadLeaderboardInput({ run: seed.runId, a: "ledger", b: rule });
    if (!loaded.ok) throw new Error(loaded.error);
    const withComponents = (id: string) =>
      columnsOf(loaded.input.candidates.find((c) => c.id === id)!.results).components.size > 0;
    expect([withComponents("ledger"), withComponents(rule), withComponents(String(seed.versions.judge))]).toEqual([
      true,
      true,
      false,
    ]);
    const h = headToHead(loaded.input, "ledger", rule);
    expect(h.disagreements.length).toBeGreaterThan(0);
    expect(h.disagreements.every((d) => Object.keys(d.b.components ?? {}).length > 0)).toBe(true);
  });

  it("reads the board when a compared id is no version at all, past the int range too (the view names it)", async () => {
    const loaded = await loadLeaderboardInput({ run: seed.runId, a: "ledger", b: "9999999999" });
    expect(loaded.ok).toBe(true);
  });

  it("reads a step window, a batch, and refuses an unknown run and a pairwise batch naming the parameter", async () => {
    const all = await loadLeaderboardInput({ run: seed.runId });
    const late = await loadLeaderboardInput({ run: seed.runId, from: 15 });
    const batch = await loadLeaderboardInput({ batch: seed.ticketBatch });
    if (!all.ok || !late.ok || !batch.ok) throw new Error("not loaded");
    const stepOf = (id: string) => all.places.get(id)!.step;
    expect(late.input.items.length).toBe(all.input.items.filter((i) => stepOf(i.rolloutId) >= 15).length);
    expect(late.input.items.length).toBeGreaterThan(0);
    expect(late.input.items.length).toBeLessThan(all.input.items.length);
    expect(late.input.items.every((i) => stepOf(i.rolloutId) === 20)).toBe(true);
    expect(batch.input.items.map((i) => i.itemId)).toEqual(all.input.items.map((i) => i.itemId));
    expect(await loadLeaderboardInput({ run: "no-such-run" })).toEqual({
      ok: false,
      status: 404,
      error: "run: no run no-such-run",
    });
    const pw = await loadLeaderboardInput({ batch: seed.pairBatch });
    expect(pw).toMatchObject({
      ok: false,
      status: 400,
      error: expect.stringMatching(/^batch: #\d+ is a pairwise batch/),
    });
  });

  it("gives the gate's ledger_rank rule the ledger's standing on the window's audited items", async () => {
    const report = await loadGateReport(seed.runId, { file: { rules: { ledger_rank: { min_items: 5 } } } });
    const loaded = await loadLeaderboardInput({ run: seed.runId });
    if (!report || !loaded.ok) throw new Error("not loaded");
    const standing = ledgerStanding(loaded.input)!;
    const r = report.rules.find((x) => x.rule === "ledger_rank")!;
    expect(report.window).toMatchObject({ from: 0, to: 20 });
    expect(standing.best).not.toBeNull();
    expect(r).toMatchObject({
      value: standing.best!.difference,
      n: standing.best!.n,
      status: standing.significantlyWorse ? "fail" : "pass",
    });
    expect(r.message).toMatch(new RegExp(`^the ledger ranks ${standing.rank} of ${standing.of} by agreement; `));
    // off without a rules file naming it
    const plain = await loadGateReport(seed.runId);
    expect(plain!.rules.find((x) => x.rule === "ledger_rank")!.status).toBe("off");
  });
});
