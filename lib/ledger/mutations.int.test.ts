import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "@/lib/db/client.ts";
import { demoRunValues } from "@/lib/demo/generate.ts";
import { ingestValues } from "@/lib/ingest/ingest.ts";
import { caseLine, externalScore, rolloutLine } from "@/lib/testing/ingest-fixtures.ts";
import { count, freshDatabase, ingestText, ndjson, type TestDatabase } from "@/lib/testing/ingest-db.ts";
import { rescoreRun } from "@/lib/ledger/mutations.ts";
import { rollupDifferences } from "@/lib/rollups/compare.ts";
import { computeStepRollupsFromLedger, listStepRollups } from "@/lib/rollups/data.ts";
import { DEFAULT_CONFIG, parseVerifierConfig, type VerifierConfig } from "@/lib/verifier/config.ts";

const RUN = "rescore-run";
let t: TestDatabase;
let lenient: VerifierConfig;

beforeAll(async () => {
  t = await freshDatabase("rescore");
  const s = await ingestValues(
    demoRunValues({ runId: RUN, tickets: 12, steps: 6, k: 4, seed: "rs", variant: "normal" }),
    { pool: t.pool },
  );
  expect(s).toMatchObject({ ok: true, rejected: 0, scored: 288 });
  // One rollout whose case comes later, one whose only entry is external.
  await ingestText(t.pool, ndjson([rolloutLine("late/1", "T-LATE", { run: RUN, step: 0 }), caseLine("T-LATE")]));
  await ingestText(
    t.pool,
    ndjson([
      caseLine("T-EXT"),
      externalScore("ext/1", "T-EXT", 0.5, { run: RUN, step: 0 }),
      rolloutLine("ext/1", "T-EXT", { run: RUN, step: 0 }),
    ]),
  );
  const c = parseVerifierConfig({ guardrails: { missing_evidence: { on: false }, unauthorized_write: { cap: 0.5 } } });
  if (!c.ok) throw new Error("bad config");
  lenient = c.config;
});
afterAll(async () => t?.drop());

async function expectRollupsCurrent() {
  const client = createClient(t.url);
  expect(
    rollupDifferences(await listStepRollups(RUN, {}, client), await computeStepRollupsFromLedger(RUN, client)),
  ).toEqual([]);
}

/** What changed between each superseded entry and the entry that replaced it, straight from the ledger. */
async function supersedeMoves(configHash: string) {
  const { rows } = await t.pool.query(
    `select count(*)::int as n,
            count(*) filter (where coalesce(o.reward, 0) < 0.9 and n.reward >= 0.9)::int as up,
            count(*) filter (where o.reward >= 0.9 and coalesce(n.reward, 0) < 0.9)::int as down
       from ledger n join ledger o on o.run_id = n.run_id and o.id = n.supersedes_id
      where n.run_id = $1 and n.config_hash = $2`,
    [RUN, configHash],
  );
  return rows[0];
}

describe("rescoreRun", () => {
  it("appends an entry under the new config for every rollout, superseding the old, and reports what crossed 0.9", async () => {
    const before = await count(t.pool, "select 1 from ledger where run_id = $1", [RUN]);
    const s = await rescoreRun(t.pool, { runId: RUN, config: lenient, batchSize: 50 });
    expect(s.rollouts).toBe(290);
    expect(s.skipped_external).toBe(1);
    expect(s.added).toBe(1); // late/1, whose case arrived after it
    // The config hash is part of every record: under a new config every verifier entry is re-issued.
    expect(s.rescored).toBe(288);
    expect(s.rescored + s.unchanged + s.added + s.skipped_external + s.skipped_no_case).toBe(290);

    const moves = await supersedeMoves(s.config_hash);
    expect(moves).toEqual({ n: s.rescored, up: s.crossed_up, down: s.crossed_down });
    expect(s.crossed_up).toBeGreaterThan(0);
    // Turning a guardrail off can only raise rewards.
    expect(s.crossed_down).toBe(0);
    expect(s.transitions.find((m) => m.from === "missing_evidence")?.n).toBeGreaterThan(0);
    expect(s.transitions.every((m) => m.to !== "missing_evidence")).toBe(true);

    expect(await count(t.pool, "select 1 from ledger where run_id = $1", [RUN])).toBe(before + s.rescored + s.added);
    // Exactly one current entry per trajectory, every superseded entry flipped, chains point backwards.
    expect(
      await count(
        t.pool,
        "select trajectory_id from ledger where run_id = $1 and is_current group by 1 having count(*) > 1",
        [RUN],
      ),
    ).toBe(0);
    expect(
      await count(
        t.pool,
        "select 1 from ledger o join ledger n on n.run_id = o.run_id and n.supersedes_id = o.id where o.is_current or not n.is_current or n.id < o.id",
      ),
    ).toBe(0);
    expect(
      await count(t.pool, "select 1 from ledger where trajectory_id = 'ext/1' and is_current and source = 'external'"),
    ).toBe(1);
    await expectRollupsCurrent();
  });

  it("writes nothing when the config gives the same scores", async () => {
    const before = await count(t.pool, "select 1 from ledger");
    const s = await rescoreRun(t.pool, { runId: RUN, config: lenient });
    expect(s).toMatchObject({ rescored: 0, added: 0, crossed_up: 0, crossed_down: 0, transitions: [] });
    expect(s.unchanged).toBe(289);
    expect(await count(t.pool, "select 1 from ledger")).toBe(before);
  });

  it("goes back to the original scores under the default config, a third link in each chain", async () => {
    const first = await rescoreRun(t.pool, { runId: RUN, config: lenient }); // no-op, for the count below
    const back = await rescoreRun(t.pool, { runId: RUN, config: DEFAULT_CONFIG });
    const moved = await supersedeMoves(back.config_hash);
    expect(first.rescored).toBe(0);
    expect(back.crossed_down).toBe(moved.down);
    expect(back.crossed_down).toBeGreaterThan(0);
    // The current entry of every re-scored trajectory equals its very first one, byte for byte (same hash).
    const { rows } = await t.pool.query(
      `select count(*)::int as n, count(*) filter (where first.content_hash = cur.content_hash)::int as same
         from ledger cur join ledger mid on mid.run_id = cur.run_id and mid.id = cur.supersedes_id join ledger first on first.run_id = mid.run_id and first.id = mid.supersedes_id
        where cur.run_id = $1 and cur.is_current`,
      [RUN],
    );
    expect(rows[0].n).toBe(back.rescored - 1); // late/1 has a chain of two
    expect(rows[0].same).toBe(rows[0].n);
    await expectRollupsCurrent();
  });

  it("is refused by the database if it tried to change an old entry (append-only)", async () => {
    await expect(t.pool.query("update ledger set reward = 1 where run_id = $1", [RUN])).rejects.toThrow(/append-only/);
  });
});
