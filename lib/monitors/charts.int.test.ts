// Every chart's series, read from the rollups, against the same figure computed directly from the ledger (and, for
// the shadow audit, from the reviews) with independent SQL. The run goes through the real ingest path and a
// re-score, so superseded entries exist and must be left out by both sides.
import { beforeAll, describe, expect, it } from "vitest";
import { claimNextItem } from "@/lib/review/leases.ts";
import { createBatch } from "@/lib/audit/mutations.ts";
import { makeUsers } from "@/lib/testing/audit-data.ts";
import { db } from "@/lib/db/client.ts";
import { demoRunValues } from "@/lib/demo/generate.ts";
import { loadExamples } from "@/lib/demo/seed.ts";
import { caseLine, externalScore } from "@/lib/testing/ingest-fixtures.ts";
import { ingestValues } from "@/lib/ingest/ingest.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import { rescoreRun } from "@/lib/ledger/mutations.ts";
import { rollupDifferences } from "@/lib/rollups/compare.ts";
import { computeStepRollupsFromLedger } from "@/lib/rollups/data.ts";
import { submitReview } from "@/lib/review/mutations.ts";
import type { ReviewBody } from "@/lib/review/schema.ts";
import { extractionAccuracy, type Claims } from "@/lib/stats/extraction-accuracy.ts";
import { parseVerifierConfig } from "@/lib/verifier/config.ts";
import { loadChartCsv, loadRunCharts, type ChartData } from "@/lib/monitors/loaders.ts";
import { CHARTS } from "@/lib/monitors/schema.ts";
import { countSteps, listOverview } from "@/lib/monitors/data.ts";
import { listAuditPoints } from "@/lib/monitors/audit-data.ts";
import { chartTable, type Row } from "@/lib/monitors/series.ts";

const url = process.env.DATABASE_URL!;
// Fixed ids: the demo generator seeds each rollout by run id, so the data is the same every time.
const RUN = "monitors-charts";
const OTHER = "monitors-charts-b";
const CLOSE = 10; // decimal digits

async function ingest(values: Iterable<unknown>) {
  const s = await ingestValues(values, { pool: bulkPool(url), batchLines: 200 });
  if (!s.ok || s.rejected) throw new Error(JSON.stringify(s).slice(0, 400));
}

async function load(
  runId: string,
  query: Parameters<typeof loadRunCharts>[1] = {},
  maxPoints?: number,
): Promise<ChartData> {
  const r = await loadRunCharts(runId, query, db(), maxPoints);
  if (r.state !== "ok") throw new Error(`run ${runId}: ${r.state}`);
  return r.data;
}

const q = <T>(sql: string, params: unknown[] = []) =>
  bulkPool(url)
    .query(sql, params)
    .then((r) => r.rows as T[]);

/** Compares a chart column with expected values by step; missing expected steps must be null. */
function expectColumn(rows: Row[], key: string, expected: Map<number, number | null>) {
  expect(rows.length).toBeGreaterThan(0);
  for (const r of rows) {
    const want = expected.get(r.step) ?? null;
    if (want === null) expect(r[key], `${key} @ ${r.step}`).toBeNull();
    else expect(r[key], `${key} @ ${r.step}`).toBeCloseTo(want, CLOSE);
  }
}

beforeAll(async () => {
  // A reward-hacking run on 12 tickets × 6 logged steps × K=4, the ten verifier examples (step 1200, one spec error),
  // and two external score records with guardrails; then a re-score under another config.
  await ingest(demoRunValues({ runId: RUN, tickets: 12, steps: 6, k: 4, seed: "charts", variant: "hacking" }));
  await ingest(
    (loadExamples() as Record<string, unknown>[]).map((e) => ({
      ...e,
      run_id: RUN,
      trajectory_id: `${RUN}-${e.trajectory_id}`,
    })),
  );
  await ingest([
    caseLine(`${RUN}-T-X`),
    externalScore(`${RUN}/ext/1`, `${RUN}-T-X`, 0.95, { run: RUN, step: 0 }),
    externalScore(`${RUN}/ext/2`, `${RUN}-T-X`, 0.2, {
      run: RUN,
      step: 0,
      guardrails: [{ code: "customer_harm", cap: 0.2 }, "policy_error"],
    }),
  ]);
  const config = parseVerifierConfig({ guardrails: { empty_promise: { cap: 0.1 } }, handoff_outcome: 0.8 });
  if (!config.ok) throw new Error("config");
  await rescoreRun(bulkPool(url), { runId: RUN, config: config.config, batchSize: 50 });
  await ingest(demoRunValues({ runId: OTHER, tickets: 8, steps: 4, k: 4, seed: "charts", variant: "normal" }));
  await createReviews();
}, 180_000);

const current = `from ledger l where l.run_id = $1 and l.is_current`;

describe("step charts equal a direct computation from the ledger", () => {
  it("has a row per logged step, in order", async () => {
    const d = await load(RUN);
    const steps = await q<{ step: number }>(`select distinct step ${current} order by step`, [RUN]);
    expect(d.runs[0].rows.map((r) => r.step)).toEqual(steps.map((s) => s.step));
    expect(d.bucket).toBe(1);
    // the charts' bucketed read at width 1 is the rollups, and the rollups are the ledger (lib/rollups' reference)
    expect(rollupDifferences(d.runs[0].rows, await computeStepRollupsFromLedger(RUN, db()))).toEqual([]);
  });

  it("guardrail hit rate, overall and per guardrail (from the narrow ledger_guardrails table)", async () => {
    const t = chartTable(await load(RUN), "hit-rate");
    const all = await q<{ step: number; rate: number }>(
      `select step, avg((guardrail_mask <> 0)::int)::float8 as rate ${current} group by step`,
      [RUN],
    );
    expectColumn(t.rows, "hitRate", new Map(all.map((r) => [r.step, r.rate])));
    const per = await q<{ step: number; code: string; rate: number }>(
      `select l.step, g.code, count(*)::float8 / (select count(*) from ledger x where x.run_id = $1 and x.is_current and x.step = l.step) as rate
         from ledger l join ledger_guardrails g on g.run_id = l.run_id and g.ledger_id = l.id where l.run_id = $1 and l.is_current group by l.step, g.code`,
      [RUN],
    );
    const codes = [...new Set(per.map((r) => r.code))];
    expect(codes.length).toBeGreaterThan(3);
    for (const code of codes) {
      const m = new Map(per.filter((r) => r.code === code).map((r) => [r.step, r.rate]));
      // a step where the guardrail never triggered has a rate of 0
      for (const r of t.rows) if (!m.has(r.step) && r.rollouts) m.set(r.step, 0);
      expectColumn(t.rows, `g_${code}`, m);
    }
    expect(
      t.columns
        .filter((c) => c.key.startsWith("g_"))
        .map((c) => c.key.slice(2))
        .sort(),
    ).toEqual(codes.sort());
  });

  it("hand-off rate", async () => {
    const t = chartTable(await load(RUN), "handoff");
    const rows = await q<{ step: number; rate: number }>(
      `select step, avg(coalesce(handoff, false)::int)::float8 as rate ${current} group by step`,
      [RUN],
    );
    expectColumn(t.rows, "handoffRate", new Map(rows.map((r) => [r.step, r.rate])));
    // the hacking variant's hand-off rate climbs
    const rates = t.rows.filter((r) => r.step !== 1200).map((r) => r.handoffRate!);
    expect(rates[rates.length - 1]).toBeGreaterThan(rates[0]);
  });

  it("success, mean reward ± population std, missing-evidence and unauthorized-write rates", async () => {
    const t = chartTable(await load(RUN), "outcomes");
    const rows = await q<{ step: number; success: number | null; mean: number | null; sd: number | null }>(
      `select step, avg((reward >= 0.9)::int) filter (where reward is not null)::float8 as success, avg(reward) as mean, stddev_pop(reward) as sd
         ${current} group by step`,
      [RUN],
    );
    const by = (f: (r: (typeof rows)[number]) => number | null) => new Map(rows.map((r) => [r.step, f(r)]));
    expectColumn(
      t.rows,
      "successRate",
      by((r) => r.success),
    );
    expectColumn(
      t.rows,
      "meanReward",
      by((r) => r.mean),
    );
    expectColumn(
      t.rows,
      "rewardStd",
      by((r) => r.sd),
    );
    expectColumn(
      t.rows,
      "rewardLow",
      by((r) => (r.mean === null ? null : r.mean - r.sd!)),
    );
    expectColumn(
      t.rows,
      "rewardHigh",
      by((r) => (r.mean === null ? null : r.mean + r.sd!)),
    );
    for (const [code, key] of [
      ["missing_evidence", "missingEvidenceRate"],
      ["unauthorized_write", "unauthorizedRate"],
    ] as const) {
      const g = await q<{ step: number; rate: number }>(
        `select step, avg((exists (select 1 from ledger_guardrails g where g.run_id = l.run_id and g.ledger_id = l.id and g.code = $2))::int)::float8 as rate ${current} group by step`,
        [RUN, code],
      );
      expectColumn(t.rows, key, new Map(g.map((r) => [r.step, r.rate])));
    }
  });

  it("mean within-group reward std over groups with two or more rewards, and the flat share", async () => {
    const t = chartTable(await load(RUN), "group-std");
    const rows = await q<{ step: number; mean_sd: number; flat: number }>(
      `select step, avg(sd) as mean_sd, avg((sd < 1e-6)::int)::float8 as flat
         from (select step, group_id, stddev_pop(reward) as sd ${current} and reward is not null and group_id is not null
                group by step, group_id having count(*) >= 2) g group by step`,
      [RUN],
    );
    expect(rows.length).toBeGreaterThan(3);
    expectColumn(t.rows, "meanGroupStd", new Map(rows.map((r) => [r.step, r.mean_sd])));
    expectColumn(t.rows, "flatGroupRate", new Map(rows.map((r) => [r.step, r.flat])));
  });

  it("reward removed by caps per rollout with a reward, in total and by deciding guardrail", async () => {
    const t = chartTable(await load(RUN), "removed");
    const total = await q<{ step: number; v: number }>(
      `select step, coalesce(sum(raw_reward - reward) filter (where capped), 0) / nullif(count(reward), 0) as v ${current} group by step`,
      [RUN],
    );
    expectColumn(t.rows, "removed", new Map(total.map((r) => [r.step, r.v])));
    const per = await q<{ step: number; code: string; v: number }>(
      `select l.step, l.deciding_guardrail as code,
              sum(l.raw_reward - l.reward)::float8 / (select count(reward) from ledger x where x.run_id = $1 and x.is_current and x.step = l.step) as v
         ${current} and l.capped group by l.step, l.deciding_guardrail`,
      [RUN],
    );
    const codes = [...new Set(per.map((r) => r.code))];
    expect(codes.length).toBeGreaterThan(2);
    for (const code of codes) {
      const m = new Map(per.filter((r) => r.code === code).map((r) => [r.step, r.v]));
      // a step where the guardrail decided nothing removed 0 by it
      for (const r of t.rows) if (!m.has(r.step) && r.rewarded) m.set(r.step, 0);
      expectColumn(t.rows, `removed_${code}`, m);
    }
  });
});

describe("zoom, buckets, comparison and CSV", () => {
  it("a step range reads only those steps; a wide range pools steps into buckets exactly", async () => {
    const zoomed = await load(RUN, { from: 5000, to: 15000 });
    expect(zoomed.range).toEqual({ from: 5000, to: 15000 });
    expect(zoomed.runs[0].rows.map((r) => r.step)).toEqual([5000, 10000, 15000]);
    // three points at most: buckets of ⌈25001 / 3⌉ = 8334 steps from step 0
    const pooled = await load(RUN, {}, 3);
    expect(pooled.bucket).toBe(8334);
    const t = chartTable(pooled, "handoff");
    const rows = await q<{ b: number; rate: number }>(
      `select (floor(step / 8334.0) * 8334)::int as b, avg(coalesce(handoff, false)::int)::float8 as rate ${current} group by 1`,
      [RUN],
    );
    expectColumn(t.rows, "handoffRate", new Map(rows.map((r) => [r.b, r.rate])));
  });

  it("the zoom brush's overview: hit rate and hand-off rate of the whole run, bucketed like the charts", async () => {
    const d = await load(RUN, { from: 5000, to: 10000 });
    const rows = await q<{ step: number; hit: number; handoff: number }>(
      `select step, avg((guardrail_mask <> 0)::int)::float8 as hit, avg(coalesce(handoff, false)::int)::float8 as handoff ${current} group by step order by step`,
      [RUN],
    );
    // the overview covers the whole run whatever the zoom
    expect(d.overview.map((p) => [p.step, p.stepTo])).toEqual(rows.map((r) => [r.step, r.step]));
    d.overview.forEach((p, i) => {
      expect(p.hitRate).toBeCloseTo(rows[i].hit, CLOSE);
      expect(p.handoffRate).toBeCloseTo(rows[i].handoff, CLOSE);
    });
    const small = await listOverview(RUN, 3, db());
    expect(small.map((p) => [p.step, p.stepTo])).toEqual([
      [0, 8333],
      [8334, 16667],
      [16668, 25000],
    ]);
    expect(await countSteps([RUN, OTHER], { from: 0, to: 30000 }, db())).toEqual({ count: 9, first: 0, last: 25000 });
  });

  it("two runs overlaid share the step axis; each run's columns equal its own chart", async () => {
    const both = await load(RUN, { compare: OTHER });
    expect(both.runs.map((r) => r.id)).toEqual([RUN, OTHER]);
    const merged = chartTable(both, "handoff");
    const a = new Map(chartTable(await load(RUN), "handoff").rows.map((r) => [r.step, r.handoffRate]));
    const b = new Map(chartTable(await load(OTHER), "handoff").rows.map((r) => [r.step, r.handoffRate]));
    expectColumn(merged.rows, "handoffRate", a);
    expectColumn(merged.rows, "handoffRate__b", b);
  });

  it("each chart's CSV is its table", async () => {
    const d = await load(RUN);
    for (const chart of CHARTS) {
      const csv = await loadChartCsv(RUN, chart, {});
      const lines = csv!.body.trimEnd().split("\r\n");
      const table = chartTable(d, chart);
      expect(lines).toHaveLength(table.rows.length + 1);
      const head = lines[0].split(",");
      const first = table.columns[1] ?? table.columns[0];
      const col = head.findIndex((h) => h.replace(/^"|"$/g, "") === first.label);
      expect(col).toBeGreaterThan(0);
      lines.slice(1).forEach((line, i) => {
        const cells = line.split(",");
        expect(Number(cells[0])).toBe(table.rows[i].step);
        const v = table.rows[i][first.key];
        expect(cells[col]).toBe(v === null ? "" : String(v));
      });
    }
    expect(await loadChartCsv("no-such-run", "handoff", {})).toBeNull();
  });
});

// ——— shadow audit ———

const claims = (writes: string[]) => ({ claimed_writes: writes, mentioned: [], forbidden_hits: [] });

/** Reviews every item of a batch over the run, alternating an agreeing-ish and a contrary reading. */
async function createReviews() {
  const batch = await createBatch(
    { runId: RUN, stepFrom: 0, stepTo: 30000, rate: 0.5, salt: "charts", pick: "one", overlapRate: 0, tolerance: 0.1 },
    { label: "test" },
  );
  if (!batch.ok) throw new Error(batch.error);
  const [a] = await makeUsers(db(), 1);
  for (let i = 0; ; i++) {
    const lease = await claimNextItem(a.userId, { batchId: batch.batchId });
    if (!lease) break;
    const good = i % 3 !== 0;
    const body: ReviewBody = {
      subscores: good
        ? { outcome: 1, policy: 1, evidence: 1, efficiency: 1, communication: 1 }
        : { outcome: 0, policy: 0.5, evidence: 0.5, efficiency: 1, communication: 1 },
      guardrails: [],
      claims: claims(good ? ["finance.issue_refund"] : []),
      note: "",
    };
    const r = await submitReview(lease.itemId, a, body, 30);
    if (!r.ok) throw new Error(r.error);
  }
}

describe("shadow-audit chart equals a direct computation from the reviews", () => {
  it("agreement, human success and extraction accuracy per 500-step window, with Wilson intervals", async () => {
    const d = await load(RUN);
    const t = chartTable(d, "audit");
    const rows = await q<{ w: number; total: number; n: number; agree: number; success: number }>(
      `select (floor(l.step / 500.0) * 500)::int as w, count(*)::int as total, count(*) filter (where l.reward is not null)::int as n,
              count(*) filter (where abs(r.reward - l.reward) <= b.tolerance + 1e-9)::int as agree,
              count(*) filter (where r.reward >= 0.9)::int as success
         from reviews r join audit_items i on i.id = r.item_id join audit_batches b on b.id = i.batch_id join ledger l on l.id = i.ledger_id
        where b.run_id = $1 group by 1 order by 1`,
      [RUN],
    );
    expect(rows.length).toBeGreaterThan(2);
    expect(t.rows.map((r) => r.step)).toEqual(rows.map((r) => r.w));
    expectColumn(t.rows, "agreement", new Map(rows.map((r) => [r.w, r.n ? r.agree / r.n : null])));
    expectColumn(t.rows, "humanSuccess", new Map(rows.map((r) => [r.w, r.success / r.total])));
    expectColumn(t.rows, "reviews", new Map(rows.map((r) => [r.w, r.total])));
    for (const r of t.rows) expect(r.agreementLow! <= r.agreement! && r.agreement! <= r.agreementHigh!).toBe(true);
    // both directions of disagreement were reviewed
    expect(rows.some((r) => r.agree < r.n)).toBe(true);

    // extraction accuracy: each item once, through its first current review, when its ledger entry has a reward
    // and claims, scored under its own registry's write tools and its case's spec, pooled per window
    const items = await db().auditItem.findMany({
      where: { batch: { runId: RUN } },
      select: {
        ledger: { select: { step: true, reward: true, claims: true } },
        reviews: { where: { supersededBy: { is: null } }, orderBy: { id: "asc" }, take: 1, select: { claims: true } },
        rollout: { select: { registry: { select: { tools: true } } } },
        ticketId: true,
      },
    });
    const pooled = new Map<number, { correct: number; n: number }>();
    for (const it of items) {
      const spec = (await db().case.findUnique({ where: { ticketId: it.ticketId }, select: { verifierSpec: true } }))
        ?.verifierSpec as { must_mention?: { key: string }[]; forbidden?: string[] };
      const tools = (it.rollout.registry.tools as { name: string; kind: string }[])
        .filter((x) => x.kind === "write")
        .map((x) => x.name);
      const [rv] = it.reviews;
      if (!rv || !it.ledger.claims || it.ledger.reward === null) continue;
      const acc = extractionAccuracy([
        {
          extracted: it.ledger.claims as unknown as Claims,
          human: rv.claims as unknown as Claims,
          slots: {
            writeTools: tools,
            mentionKeys: (spec?.must_mention ?? []).map((m) => m.key),
            forbiddenCodes: spec?.forbidden ?? [],
          },
        },
      ]);
      const w = Math.floor(it.ledger.step / 500) * 500;
      const p = pooled.get(w) ?? { correct: 0, n: 0 };
      p.correct += acc.overall?.correct ?? 0;
      p.n += acc.overall?.n ?? 0;
      pooled.set(w, p);
    }
    expectColumn(t.rows, "extraction", new Map([...pooled].map(([w, p]) => [w, p.n ? p.correct / p.n : null])));
    expectColumn(t.rows, "slots", new Map([...pooled].map(([w, p]) => [w, p.n])));
  });

  it("a new review shows at once (the memoised audit points are keyed by the run's reviews)", async () => {
    const before = (await listAuditPoints(RUN, 500, db())).reduce((n, p) => n + p.reviews, 0);
    const batch = await createBatch(
      {
        runId: RUN,
        stepFrom: 0,
        stepTo: 30000,
        rate: 0.5,
        salt: "charts-2",
        pick: "one",
        overlapRate: 0,
        tolerance: 0.1,
      },
      { label: "test" },
    );
    if (!batch.ok) throw new Error(batch.error);
    const [b] = await makeUsers(db(), 1);
    const lease = await claimNextItem(b.userId, { batchId: batch.batchId });
    const r = await submitReview(
      lease!.itemId,
      b,
      {
        subscores: { outcome: 1, policy: 1, evidence: 1, efficiency: 1, communication: 1 },
        guardrails: [],
        claims: claims([]),
        note: "",
      },
      10,
    );
    expect(r.ok).toBe(true);
    const after = (await listAuditPoints(RUN, 500, db())).reduce((n, p) => n + p.reviews, 0);
    expect(after).toBe(before + 1);
  });

  it("a run without reviews has no audit points", async () => {
    expect((await load(OTHER)).runs[0].audit).toEqual([]);
  });
});
