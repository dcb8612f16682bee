import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyBulkFix, dryRunBulkFix } from "@/lib/clusters/bulk-fix.ts";
import { listClusterTickets } from "@/lib/clusters/detail-data.ts";
import { BLIND_SPOT_KEY } from "@/lib/clusters/keys.ts";
import { computeClusterReport } from "@/lib/clusters/loaders.ts";
import { createClient } from "@/lib/db/client.ts";
import { demoRunValues } from "@/lib/demo/generate.ts";
import { describeRun } from "@/lib/demo/seed.ts";
import { ingestValues } from "@/lib/ingest/ingest.ts";
import { freshDatabase, type TestDatabase } from "@/lib/testing/ingest-db.ts";

// The demo's reward-hacking run (the clusters demo test's small size: 48 tickets × 30 steps × 4): its policy learns
// that a hand-off with nothing done scores the allowed hand-off's outcome 0.45 and triggers no guardrail. The bulk
// fix of the blind-spot cluster forbids the hand-off on its cases; every other ticket but one is fixed, so the
// cluster must shrink to exactly that ticket's members.
const RUN = "grpo-hacking";
const spec = { tickets: 48, steps: 30, k: 4, seed: "7" };
const w = { runId: RUN, threshold: 0.5 };

let t: TestDatabase;
let client: ReturnType<typeof createClient>;
beforeAll(async () => {
  t = await freshDatabase("bulkfix_demo");
  client = createClient(t.url);
  await describeRun(t.pool, RUN, "hacking");
  const s = await ingestValues(demoRunValues({ runId: RUN, variant: "hacking", ...spec }), {
    pool: t.pool,
    batchLines: 4000,
  });
  if (!s.ok || s.rejected) throw new Error(`demo ingest failed: ${s.error}`);
}, 180_000);
afterAll(async () => {
  await client?.$disconnect();
  await t?.drop();
});

// Current hand-offs with no guardrail and no sandbox write, whatever their outcome.
type Entry = { trajectory_id: string; ticket_id: string; outcome: number; reward: number };
const blindEntries = async () =>
  (
    await t.pool.query<Entry>(
      `select l.trajectory_id, l.ticket_id, l.outcome, l.reward from ledger l
        where l.run_id = $1 and l.is_current and l.handoff and l.guardrail_mask = 0
          and exists (select 1 from rollouts r where r.run_id = l.run_id and r.id = l.rollout_id
                      and r.sandbox -> 'writes' = '[]'::jsonb)
        order by l.trajectory_id`,
      [RUN],
    )
  ).rows;

describe("the bulk fix of grpo-hacking's hand-off blind spot", () => {
  it("lowers those hand-offs' outcome from 0.45 to 0 and shrinks the cluster by exactly the fixed rollouts", async () => {
    const before = await computeClusterReport(w, client);
    expect(before.blindSpot.key).toBe(BLIND_SPOT_KEY);
    const tickets = await listClusterTickets(w, { kind: "blind_spot" }, client);
    expect(tickets.length).toBeGreaterThan(1);
    expect(before.blindSpot.size).toBe(tickets.reduce((n, x) => n + x.rollouts, 0));
    const kept = tickets.at(-1)!;
    const fix = tickets.slice(0, -1).map((x) => x.ticketId);
    const fixedRollouts = before.blindSpot.size - kept.rollouts;

    // As the seed describes: a hand-off with nothing done on a case that allows it is credited 0.45 on its outcome;
    // on a case that already forbids it the verifier scores it 0, so it was never a blind spot.
    const handoffs = await blindEntries();
    expect(new Set(handoffs.map((e) => e.outcome))).toEqual(new Set([0, 0.45]));
    const blindBefore = handoffs.filter((e) => e.outcome > 0);
    expect(blindBefore).toHaveLength(before.blindSpot.size);

    const dry = await dryRunBulkFix(t.pool, { tickets: fix, change: { handoff: "not_allowed" }, runId: RUN });
    expect(dry.refused).toEqual([]);
    expect(dry.missing).toEqual([]);
    // Only the hand-offs change: each of the fixed tickets' blind-spot rollouts, by 0.45 × 0.45 of reward.
    expect(dry.totals.rewardChanged).toBe(fixedRollouts);
    expect(dry.meanAfter!).toBeLessThan(dry.meanBefore!);

    const applied = await applyBulkFix(t.pool, client, {
      tickets: fix,
      change: { handoff: "not_allowed" },
      reason: "these cases must not be handed off",
      cluster: BLIND_SPOT_KEY,
      actor: { label: "cli" },
      runId: RUN,
    });
    expect(applied).toMatchObject({ rewardChanged: fixedRollouts, refused: [], missing: [] });
    expect(applied.versions.every((v) => v.status === "created")).toBe(true);

    const fixed = new Set(fix);
    const byId = new Map((await blindEntries()).map((e) => [e.trajectory_id, e]));
    let lowered = 0;
    for (const e of blindBefore) {
      const now = byId.get(e.trajectory_id)!;
      if (fixed.has(e.ticket_id)) {
        expect(now.outcome).toBe(0);
        expect(e.reward - now.reward).toBeCloseTo(0.45 * 0.45, 9);
        lowered++;
      } else expect(now).toEqual(e);
    }
    expect(lowered).toBe(fixedRollouts);

    const after = await computeClusterReport(w, client);
    expect(after.blindSpot.size).toBe(before.blindSpot.size - fixedRollouts);
    const left = await listClusterTickets(w, { kind: "blind_spot" }, client);
    expect(left.map((x) => [x.ticketId, x.rollouts])).toEqual([[kept.ticketId, kept.rollouts]]);
  });
});
