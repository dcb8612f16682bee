// The rollout detail's reads against a real ledger: the current entry with its rollout and tool registry, the case,
// the history, and an entry written before its rollout arrived (it shows no rollout, as its rollout_id says).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bindDatabase } from "@/lib/db/client.ts";
import { loadTrajectoryDetail } from "@/lib/ledger/detail.ts";
import { caseLine, externalScore, rolloutLine } from "@/lib/testing/ingest-fixtures.ts";
import { freshDatabase, ingestText, ndjson, type TestDatabase } from "@/lib/testing/ingest-db.ts";

let t: TestDatabase;

beforeAll(async () => {
  t = await freshDatabase("detail");
  await bindDatabase(t.url);
  const first = await ingestText(
    t.pool,
    ndjson([
      caseLine("D-1"),
      rolloutLine("det/scored", "D-1", { run: "det-run", step: 3 }),
      externalScore("det/late", "D-1", 0.25, { run: "det-run", step: 4 }),
    ]),
  );
  expect(first.rejected).toBe(0);
  // The rollout of det/late arrives after its entry: the entry keeps rollout_id null.
  const late = await ingestText(t.pool, ndjson([rolloutLine("det/late", "D-1", { run: "det-run", step: 4 })]));
  expect(late.rejected).toBe(0);
});

afterAll(async () => {
  await t?.drop();
});

describe("loadTrajectoryDetail", () => {
  it("loads the current entry with its rollout, registry, case and history", async () => {
    const d = await loadTrajectoryDetail("det/scored");
    expect(d).not.toBeNull();
    expect(d!.entry).toMatchObject({ trajectoryId: "det/scored", runId: "det-run", step: 3, isCurrent: true });
    expect(d!.entry.rollout?.id).toBe(d!.entry.rolloutId);
    expect(d!.entry.rollout?.trajectoryId).toBe("det/scored");
    expect(Array.isArray(d!.entry.rollout?.registry.tools)).toBe(true);
    expect(d!.caseDoc?.ticketId).toBe("D-1");
    expect(d!.weights.known).toBe(true);
    expect(d!.history).toHaveLength(1);
    expect(d!.history[0]).toMatchObject({ id: d!.entry.id, isCurrent: true, reward: d!.entry.reward });
  });

  it("shows no rollout for an entry written before its rollout, and null for an unknown trajectory", async () => {
    const d = await loadTrajectoryDetail("det/late");
    expect(d?.entry).toMatchObject({ source: "external", reward: 0.25, rolloutId: null, rollout: null });
    expect(d?.caseDoc?.ticketId).toBe("D-1");
    expect(await loadTrajectoryDetail("det/none")).toBeNull();
  });
});
