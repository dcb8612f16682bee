import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyBulkFix, dryRunBulkFix, type BulkFixProgress } from "@/lib/clusters/bulk-fix.ts";
import { listClusterTickets } from "@/lib/clusters/detail-data.ts";
import { createClient } from "@/lib/db/client.ts";
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";
import { ingestValues } from "@/lib/ingest/ingest.ts";
import { freshDatabase, type TestDatabase } from "@/lib/testing/ingest-db.ts";
import { handoffBlindSpotValues } from "@/lib/testing/clusters-data.ts";

// The hand-off blind spot in miniature: three cases that allow a hand-off, each with two rollouts that read, hand
// off and write nothing. An allowed hand-off that resolves nothing scores the config's handoff_outcome (0.45);
// the bulk fix forbids the hand-off on all three cases, so doing nothing scores outcome 0.
const RUN = "bulk-fix-run";
const TICKETS = ["T-H0", "T-H1", "T-H2"];

let t: TestDatabase;
let client: PrismaClient;
beforeAll(async () => {
  t = await freshDatabase("bulkfix");
  client = createClient(t.url);
  const values = handoffBlindSpotValues(RUN, TICKETS);
  const s = await ingestValues(values, { pool: t.pool });
  expect(s).toMatchObject({ ok: true, rejected: 0 });
});
afterAll(async () => {
  await client?.$disconnect();
  await t?.drop();
});

const outcomes = async () =>
  (
    await t.pool.query<{ outcome: number; reward: number }>(
      "select outcome, reward from ledger where run_id = $1 and is_current order by trajectory_id",
      [RUN],
    )
  ).rows;

describe("the bulk fix of a cluster's cases", () => {
  it("dry-runs over every affected rollout writing nothing, then applies: versions saved, outcome 0.45 → 0", async () => {
    const w = { runId: RUN, threshold: 0.5 };
    const blind = await listClusterTickets(w, { kind: "blind_spot" }, client);
    expect(blind.map((b) => [b.ticketId, b.rollouts])).toEqual(TICKETS.map((x) => [x, 2]));
    const before = await outcomes();
    expect(before.map((r) => r.outcome)).toEqual(Array(6).fill(0.45));

    const progress: BulkFixProgress[] = [];
    const dry = await dryRunBulkFix(t.pool, {
      tickets: blind.map((b) => b.ticketId),
      change: { handoff: "not_allowed" },
      runId: RUN,
      examples: 2,
      onProgress: (p) => progress.push(p),
    });
    expect(dry.totals).toMatchObject({ rollouts: 6, rewardChanged: 6 });
    expect(dry.tickets.map((x) => [x.ticketId, x.rollouts, x.rewardChanged])).toEqual(TICKETS.map((x) => [x, 2, 2]));
    expect(dry.meanBefore! - dry.meanAfter!).toBeCloseTo(0.45 * 0.45, 9);
    expect(dry.examples).toHaveLength(2);
    expect(progress.at(-1)).toEqual({ ticketsDone: 3, tickets: 3, rollouts: 6 });
    expect(await outcomes()).toEqual(before);

    const applied = await applyBulkFix(t.pool, client, {
      tickets: blind.map((b) => b.ticketId),
      change: { handoff: "not_allowed" },
      reason: "must not be handed off",
      cluster: "blind_spot:handoff_no_write",
      actor: { label: "cli" },
      runId: RUN,
    });
    expect(applied).toMatchObject({ rollouts: 6, rescored: 6, rewardChanged: 6, refused: [], missing: [] });
    expect(applied.versions.map((v) => [v.ticketId, v.version, v.status])).toEqual(
      TICKETS.map((x) => [x, 2, "created"]),
    );
    const after = await outcomes();
    expect(after.map((r) => r.outcome)).toEqual(Array(6).fill(0));
    after.forEach((r, i) => expect(before[i].reward - r.reward).toBeCloseTo(0.45 * 0.45, 9));
    // The history is kept: each rollout has its old entry, superseded, and the new one.
    const n = await t.pool.query("select count(*)::int as n from ledger where run_id = $1", [RUN]);
    expect(n.rows[0].n).toBe(12);
    // The verifier now scores those hand-offs 0 on their outcome (handoff_instead_of_resolution): it sees them, so
    // they are no longer a blind spot.
    expect(await listClusterTickets(w, { kind: "blind_spot" }, client)).toEqual([]);
    const reasons = await t.pool.query<{ n: number }>(
      `select count(*)::int as n from ledger l join ledger_reasons r on r.run_id = l.run_id and r.ledger_id = l.id
        where l.run_id = $1 and l.is_current and r.code = 'handoff_instead_of_resolution'`,
      [RUN],
    );
    expect(reasons.rows[0].n).toBe(6);
  });
});
