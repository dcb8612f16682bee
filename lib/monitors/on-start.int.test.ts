// The alarms of the demo as a start leaves them: the demo's writes and the start's evaluation of stale states are
// the only evaluations (no page reads), toy runs are not judged, and every raised alarm's since-step is the step of
// its last recorded change.
import { beforeAll, describe, expect, it } from "vitest";
import { seedDemoAudit } from "@/lib/demo/audit.ts";
import { createDemoUsersIfEmpty } from "@/lib/demo/users.ts";
import { demoRunValues } from "@/lib/demo/generate.ts";
import { EXAMPLES_RUN, seedDemoIfEmpty } from "@/lib/demo/seed.ts";
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";
import { ingestValues } from "@/lib/ingest/ingest.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import { listAlarmEvents, listPersistedAlarms } from "@/lib/monitors/data.ts";
import { refreshStoredAlarms } from "@/lib/monitors/on-start.ts";
import { type ScratchDatabase, useMigratedScratch } from "@/lib/testing/scratch-suite.ts";

describe("the demo's alarms after a start", () => {
  let scratch: ScratchDatabase;
  let client: PrismaClient;
  useMigratedScratch("alarms_start", (s, c) => ((scratch = s), (client = c)));
  beforeAll(async () => {
    await seedDemoIfEmpty(scratch.url, { size: "small" });
    await createDemoUsersIfEmpty(client);
    await seedDemoAudit(scratch.url);
    // a 96-rollout run (8 tickets × 3 steps × K=4) whose hand-off rate is far past the line
    const toy = demoRunValues({ runId: "toy-96", tickets: 8, steps: 3, k: 4, seed: "toy", variant: "hacking" });
    const s = await ingestValues(toy, { pool: bulkPool(scratch.url) });
    if (!s.ok || s.rejected) throw new Error(JSON.stringify(s).slice(0, 300));
  }, 240_000);

  it("the start evaluates what the demo audit's reviews left stale, and a second start evaluates nothing", async () => {
    const lines: string[] = [];
    await refreshStoredAlarms(scratch.url, (l) => lines.push(l));
    expect(lines).toEqual([expect.stringMatching(/^evaluated the alarms of \d+ runs?$/)]);
    const hacking = await listPersistedAlarms(["grpo-hacking"], client);
    expect(hacking.find((a) => a.alarm === "hacking_agreement")).toMatchObject({ state: "red" });
    const again: string[] = [];
    await refreshStoredAlarms(scratch.url, (l) => again.push(l));
    expect(again).toEqual([]);
  });

  it("the ten worked examples and a 96-rollout run are not judged: green, nothing evaluated, no change recorded", async () => {
    for (const run of [EXAMPLES_RUN, "toy-96"]) {
      const alarms = await listPersistedAlarms([run], client);
      expect(alarms).toHaveLength(8);
      for (const a of alarms) {
        expect(a).toMatchObject({ state: "green", atStep: null });
        expect(a.message).toMatch(/^not judged: the run has \d+ rollouts over \d logged steps?;/);
      }
      expect(await listAlarmEvents({ runId: run }, client)).toEqual([]);
    }
  });

  it("every raised alarm's since-step is the step of its last recorded change", async () => {
    const raised = (await listPersistedAlarms(undefined, client)).filter((a) => a.state !== "green");
    expect(raised.length).toBeGreaterThan(0);
    for (const a of raised) {
      const [last] = (await listAlarmEvents({ runId: a.runId, limit: 200 }, client)).filter((e) => e.alarm === a.alarm);
      expect({ run: a.runId, alarm: a.alarm, to: last.toState, step: last.step }).toEqual({
        run: a.runId,
        alarm: a.alarm,
        to: a.state,
        step: a.sinceStep,
      });
    }
  });
});
