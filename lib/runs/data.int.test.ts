// The runs list reads the rollups; its totals and latest-step figures must equal the ledger's.
import { beforeAll, describe, expect, it } from "vitest";
import { demoRunValues } from "@/lib/demo/generate.ts";
import { ingestValues } from "@/lib/ingest/ingest.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import { getRun, getRunSummary, listRunIds, listRunSummaries } from "@/lib/runs/data.ts";

const url = process.env.DATABASE_URL!;
const RUN = "runs-list-a";

beforeAll(async () => {
  const s = await ingestValues(
    demoRunValues({ runId: RUN, tickets: 10, steps: 5, k: 4, seed: "runs", variant: "hacking" }),
    { pool: bulkPool(url) },
  );
  if (!s.ok || s.rejected) throw new Error(JSON.stringify(s).slice(0, 300));
  await bulkPool(url).query(
    "insert into runs (id, description) values ('runs-list-empty', 'nothing yet') on conflict do nothing",
  );
});

describe("listRunSummaries", () => {
  it("totals and the latest step's health equal a direct computation from the ledger", async () => {
    const [t] = (
      await bulkPool(url).query(
        `select count(*)::int as n, count(reward)::int as rewarded, avg(reward) as mean,
                avg((reward >= 0.9)::int) filter (where reward is not null)::float8 as success,
                avg((guardrail_mask <> 0)::int)::float8 as hit, avg(coalesce(handoff, false)::int)::float8 as handoff,
                min(step) as first, max(step) as last
           from ledger where run_id = $1 and is_current`,
        [RUN],
      )
    ).rows;
    const [l] = (
      await bulkPool(url).query(
        `select step, count(*)::int as n, avg(reward) as mean, avg((reward >= 0.9)::int) filter (where reward is not null)::float8 as success,
                avg((guardrail_mask <> 0)::int)::float8 as hit, avg(coalesce(handoff, false)::int)::float8 as handoff
           from ledger where run_id = $1 and is_current and step = (select max(step) from ledger where run_id = $1) group by step`,
        [RUN],
      )
    ).rows;
    const s = (await listRunSummaries()).find((r) => r.id === RUN)!;
    expect(s).toMatchObject({ rollouts: t.n, scored: t.rewarded, firstStep: t.first, lastStep: t.last });
    expect(s.meanReward).toBeCloseTo(t.mean, 10);
    expect(s.successRate).toBeCloseTo(t.success, 10);
    expect(s.guardrailHitRate).toBeCloseTo(t.hit, 10);
    expect(s.handoffRate).toBeCloseTo(t.handoff, 10);
    expect(s.latest).toMatchObject({ step: l.step, rollouts: l.n });
    expect(s.latest!.meanReward).toBeCloseTo(l.mean, 10);
    expect(s.latest!.successRate).toBeCloseTo(l.success, 10);
    expect(s.latest!.guardrailHitRate).toBeCloseTo(l.hit, 10);
    expect(s.latest!.handoffRate).toBeCloseTo(l.handoff, 10);
    expect(await getRunSummary(RUN)).toEqual(s);
  });

  it("a run without score records is listed with no figures", async () => {
    expect(await getRunSummary("runs-list-empty")).toMatchObject({
      rollouts: 0,
      firstStep: null,
      latest: null,
      meanReward: null,
      handoffRate: null,
    });
    expect(await getRunSummary("no-such-run")).toBeNull();
    expect(await listRunIds()).toEqual(expect.arrayContaining([RUN, "runs-list-empty"]));
    expect((await getRun(RUN))?.id).toBe(RUN);
  });
});
