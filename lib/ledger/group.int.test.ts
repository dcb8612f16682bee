// The group page reads one run's group: a group id is the trainer's and repeats across runs (verl's uid per prompt,
// a restarted trainer's counter), so two runs with the same group id must not mix on one page.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ingestValues } from "@/lib/ingest/ingest.ts";
import { loadGroup } from "@/lib/ledger/detail.ts";
import { loadGroupPage } from "@/lib/ledger/loaders.ts";
import { uniqueName } from "@/lib/testing/audit-data.ts";
import { caseLine, rolloutLine } from "@/lib/testing/ingest-fixtures.ts";

let pool: pg.Pool;
const T = uniqueName("T-GRP");
const A = uniqueName("grp-a");
const B = uniqueName("grp-b");
const G = "uid-7";

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 2 });
  const s = await ingestValues(
    [
      caseLine(T),
      rolloutLine(`${A}/k0`, T, { run: A, step: 3, group: G }),
      rolloutLine(`${A}/k1`, T, { run: A, step: 3, group: G, example: "02" }),
      rolloutLine(`${B}/k0`, T, { run: B, step: 3, group: G }),
      rolloutLine(`${B}/other`, T, { run: B, step: 4, group: G }),
    ],
    { pool },
  );
  expect(s).toMatchObject({ ok: true, rejected: 0, scored: 4 });
});
afterAll(async () => pool?.end());

describe("loadGroup", () => {
  it("returns the group of the run asked for, never another run's group of the same id", async () => {
    const a = await loadGroup({ runId: A, groupId: G });
    expect(a.map((m) => m.trajectoryId).sort()).toEqual([`${A}/k0`, `${A}/k1`]);
    expect(new Set(a.map((m) => m.runId))).toEqual(new Set([A]));
    const b = await loadGroup({ runId: B, groupId: G });
    expect(b.map((m) => m.trajectoryId).sort()).toEqual([`${B}/k0`, `${B}/other`]);
  });

  it("narrows to the step when the address gives it", async () => {
    expect((await loadGroup({ runId: B, groupId: G, step: 3 })).map((m) => m.trajectoryId)).toEqual([`${B}/k0`]);
    expect(await loadGroup({ runId: B, groupId: G, step: 5 })).toEqual([]);
  });
});

describe("loadGroupPage", () => {
  it("carries every member's full reply and the one case they answer, with its spec's pointers", async () => {
    const page = await loadGroupPage({ runId: A, groupId: G });
    expect(page!.tickets).toEqual([T]);
    expect(page!.caseDoc?.ticketId).toBe(T);
    expect(page!.members).toHaveLength(2);
    for (const m of page!.members) expect(m.rollout?.finalReply?.length).toBeGreaterThan(0);
    expect(page!.pointers.length).toBeGreaterThan(0);
    const rewards = page!.members.map((m) => m.reward!);
    expect(page!.advantage.mean).toBeCloseTo((rewards[0] + rewards[1]) / 2, 12);
    expect(page!.advantage.advantages).toHaveLength(2);
  });

  it("is null for a group with no rollouts", async () => {
    expect(await loadGroupPage({ runId: A, groupId: "no-such-group" })).toBeNull();
  });
});
