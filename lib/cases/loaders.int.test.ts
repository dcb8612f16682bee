import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadWorkbench } from "@/lib/cases/loaders.ts";
import { ingestValues } from "@/lib/ingest/ingest.ts";
import { uniqueName } from "@/lib/testing/audit-data.ts";
import { caseLine, rolloutLine } from "@/lib/testing/ingest-fixtures.ts";

let pool: pg.Pool;
const T = uniqueName("T-WB");
const RUN = uniqueName("wb");

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 2 });
  const s = await ingestValues(
    [caseLine(T), rolloutLine(`${RUN}/1`, T, { run: RUN, step: 1 }), rolloutLine(`${RUN}/2`, T, { run: RUN, step: 2 })],
    { pool },
  );
  expect(s).toMatchObject({ ok: true, rejected: 0, scored: 2 });
});
afterAll(async () => pool?.end());

describe("loadWorkbench", () => {
  it("loads the current case, its versions, the runs of its rollouts and the selected rollout", async () => {
    const [r] = (await pool.query("select id::text from rollouts where trajectory_id = $1", [`${RUN}/2`])).rows;
    const w = await loadWorkbench(T, { rollout: r.id });
    expect(w).toMatchObject({
      stored: { ticketId: T, version: 1 },
      versions: [{ version: 1, reason: "" }],
      runs: [{ runId: RUN, rollouts: 2 }],
      selected: { rolloutId: r.id, runId: RUN, trajectoryId: `${RUN}/2`, reward: 1 },
    });
  });

  it("ignores a rollout that is not the ticket's or not an id, and knows no unknown ticket", async () => {
    expect((await loadWorkbench(T, { rollout: "1; drop" }))?.selected).toBeNull();
    expect((await loadWorkbench(T, { rollout: "999999999999" }))?.selected).toBeNull();
    expect(await loadWorkbench(`${T}-none`, {})).toBeNull();
  });
});
