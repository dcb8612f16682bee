// The pairwise report against the database and against an independent computation: a pairwise batch judged by
// three annotators (and a lead, whose judgements do not count) through the product's own queue and submit, read by
// loadPairReportItems and built by buildPairReport, compared with lib/testing/ordering_reference.py fed with the
// rewards and judgements read back with plain SQL. Also: the annotator progress counts pair judgements.
import { spawnSync } from "node:child_process";
import { rawClient } from "@/lib/db/raw-client.ts";
import { beforeAll, describe, expect, it } from "vitest";
import { recordAdjudication } from "@/lib/audit/adjudication-mutations.ts";
import { listAnnotatorProgress } from "@/lib/audit/data.ts";
import { claimNextItem } from "@/lib/review/leases.ts";
import { createBatch } from "@/lib/audit/mutations.ts";
import { createPairBatch } from "@/lib/audit/pair-mutations.ts";
import { db } from "@/lib/db/client.ts";
import { submitPairReview } from "@/lib/pairwise/mutations.ts";
import { loadPairReportItems, loadPrimaryJudgements } from "@/lib/pairwise/report-data.ts";
import { loadPairCase } from "@/lib/pairwise/report-loaders.ts";
import { buildPairReport } from "@/lib/pairwise/report.ts";
import { pairReportResponse } from "@/lib/pairwise/report-respond.ts";
import { makeUsers, seedRun, uniqueName } from "@/lib/testing/audit-data.ts";

const url = process.env.DATABASE_URL!;
const ACTOR = { label: "test" };

type Reference = {
  agree: number;
  inversions: number;
  ties: number;
  unordered: number;
  agreement: number | null;
  interval: [number, number] | null;
  tie_share: number | null;
  left_share: number | null;
  left_interval: [number, number] | null;
  weighted: { estimate: number; n_effective: number; interval: [number, number] } | null;
  by_gap: Record<string, { agree: number; inversions: number; ties: number; agreement: number | null }>;
  between: { n: number; kappa: number | null; ac1: number; ac1_interval: [number, number] | null } | null;
  table: number[][];
};

function reference(input: unknown): Reference {
  const r = spawnSync("python3", ["lib/testing/ordering_reference.py"], { input: JSON.stringify(input) });
  if (r.status !== 0) throw new Error(`the reference failed: ${r.stderr}`);
  return JSON.parse(r.stdout.toString());
}

/**
 * A deterministic choice per annotator's judgement: mostly the honest rollout, some inversions, some ties. A pair the
 * ledger scores equal (two honest rollouts) is called a tie, except by the last annotator, who picks a side on every
 * other one: both kinds of unordered judgement occur, and a tie is a first judgement of such a pair whoever the queue
 * hands them to (one run on the cluster had none: the last annotator, who then always picked a side, had judged each
 * such pair first).
 */
const judged = new Map<number, number>();
const tiesJudged = new Map<number, number>();
function choose(userIndex: number, honestSide: "left" | "right", ledgerTie: boolean) {
  if (ledgerTie) {
    const n = tiesJudged.get(userIndex) ?? 0;
    tiesJudged.set(userIndex, n + 1);
    return userIndex === 3 && n % 2 === 0 ? honestSide : "tie";
  }
  // each annotator's n-th judgement of an ordered pair, spread over 20 (11 is prime to 20): exactly 3 ties and 5
  // inversions in every 20. A hash of the item's id and the annotator drew them by how the ids fell, and one run drew
  // 5 inversions, one short of what the test asks; with 4 in 20, the pairs a run's id samples gave 8–12 inversions in
  // the report (first judgements of ordered pairs), and 5 in one cluster run
  const n = judged.get(userIndex) ?? 0;
  judged.set(userIndex, n + 1);
  const h = (n * 11 + userIndex * 5) % 20;
  if (h < 3) return "tie";
  if (h < 8) return honestSide === "left" ? "right" : "left";
  return honestSide;
}

describe("the pairwise report", () => {
  let runId: string;
  let batchId: number;
  let annotators: { userId: number; email: string }[];
  let lead: { userId: number; email: string };

  beforeAll(async () => {
    runId = uniqueName("pair-report");
    // groups of three: honest (1), an empty promise (capped), and a third that is honest in every third group (a
    // ledger tie with the first) and refunds before reading otherwise
    await seedRun(url, {
      runId,
      tickets: 60,
      perTicket: 3,
      variant: (t, k) => (k === 0 ? "honest" : k === 1 ? "empty_promise" : t % 3 === 0 ? "honest" : "missing_evidence"),
    });
    const r = await createPairBatch(
      {
        runId,
        stepFrom: 0,
        stepTo: 100,
        rate: 1,
        salt: "report",
        pick: "one",
        overlapRate: 0.4,
        tolerance: 0.1,
        kind: "pairwise",
        delta: 0.1,
        nearTieRate: 0.3,
      },
      ACTOR,
    );
    if (!r.ok) throw new Error(r.error);
    batchId = r.batchId;
    annotators = await makeUsers(db(), 3);
    [lead] = await makeUsers(db(), 1, "lead");
    // the lead judges two pairs first (recorded, not counted), then the annotators work the queue in turns
    const workers = [lead, ...annotators];
    let leadLeft = 2;
    for (let progress = true; progress;) {
      progress = false;
      for (const [u, w] of workers.entries()) {
        if (w === lead && leadLeft-- <= 0) continue;
        const lease = await claimNextItem(w.userId, { batchId });
        if (!lease) continue;
        const item = await db().auditItem.findUniqueOrThrow({
          where: { id: lease.itemId },
          select: { bOnLeft: true, ledger: { select: { reward: true } }, ledgerB: { select: { reward: true } } },
        });
        const aHigher = item.ledger.reward! >= item.ledgerB!.reward!;
        const honestSide = aHigher !== item.bOnLeft ? "left" : "right";
        const choice = choose(u, honestSide, item.ledger.reward === item.ledgerB!.reward);
        const s = await submitPairReview(lease.itemId, w, { choice, reason: null, note: "" }, 5 + u);
        if (!s.ok) throw new Error(s.error);
        progress = true;
      }
    }
  }, 240_000);

  it("computes every figure as an independent computation does", async () => {
    const data = await loadPairReportItems({ batch: batchId, window: 500 });
    if (!data.ok) throw new Error(data.error);
    expect(data.scope).toMatchObject({ runId, batch: { id: batchId }, delta: 0.1 });
    const report = buildPairReport(data.items, { basis: "reviewed", delta: 0.1, window: 500 });

    const c = rawClient({ connectionString: url });
    await c.connect();
    const pairs = await c.query<{
      id: string;
      reward_a: number | null;
      reward_b: number | null;
      a: string;
      b: string;
      pi: number;
      judgements: { preferred: string | null; choice: string; counted: boolean }[];
    }>(
      // the judged items first, then their entries (on Citus the ledger is distributed, the audit tables are not)
      `with i as materialized (
         select i.id, i.run_id, i.ledger_id, i.ledger_b_id, i.trajectory_id, i.trajectory_b_id, i.inclusion_prob,
                (select json_agg(json_build_object('preferred', p.preferred_trajectory_id, 'choice', p.choice,
                                                   'counted', p.excluded_reason is null) order by p.id)
                   from pair_reviews p where p.item_id = i.id) as judgements
           from audit_items i
          where i.batch_id = $1 and exists (select 1 from pair_reviews p where p.item_id = i.id))
       select i.id::text, la.reward as reward_a, lb.reward as reward_b, i.trajectory_id as a, i.trajectory_b_id as b,
              i.inclusion_prob as pi, i.judgements
         from i
         join ledger la on la.run_id = i.run_id and la.id = i.ledger_id
         join ledger lb on lb.run_id = la.run_id and lb.id = i.ledger_b_id
        order by i.id`,
      [batchId],
    );
    await c.end();
    const ref = reference({ delta: 0.1, pairs: pairs.rows });

    // the fixture exercises what it should: inversions, ties, ledger ties, overlap, unequal π, excluded judgements
    expect(report.pairs).toBe(60);
    expect(report.excluded).toBe(2);
    expect(report.overall.inversions).toBeGreaterThan(5);
    expect(report.overall.ties).toBeGreaterThan(3);
    expect(report.overall.unordered).toBeGreaterThan(0);
    // a human tie on a pair the ledger scores equal: unordered by the documented definition, a tie if the human's tie
    // were read first — the fixture must hold one for the comparison to tell the two apart
    const firstCounted = (p: (typeof pairs.rows)[number]) => p.judgements.find((j) => j.counted);
    const tiedBoth = pairs.rows.filter((p) => p.reward_a === p.reward_b && firstCounted(p)?.preferred === null);
    expect(tiedBoth.length).toBeGreaterThan(0);
    expect(report.stratified).toBe(true);
    expect(report.betweenAnnotators.pairs).toBeGreaterThan(10);

    const o = report.overall;
    expect([o.agree, o.inversions, o.ties, o.unordered]).toEqual([ref.agree, ref.inversions, ref.ties, ref.unordered]);
    expect(o.agreement.value).toBeCloseTo(ref.agreement!, 12);
    expect(o.agreement.interval!.lower).toBeCloseTo(ref.interval![0], 10);
    expect(o.agreement.interval!.upper).toBeCloseTo(ref.interval![1], 10);
    expect(o.tieShare.value).toBeCloseTo(ref.tie_share!, 12);
    expect(report.position.leftShare.value).toBeCloseTo(ref.left_share!, 12);
    expect(report.position.leftShare.interval!.lower).toBeCloseTo(ref.left_interval![0], 10);
    expect(report.position.leftShare.interval!.upper).toBeCloseTo(ref.left_interval![1], 10);
    expect(o.weighted!.value).toBeCloseTo(ref.weighted!.estimate, 12);
    expect(o.weighted!.n).toBeCloseTo(ref.weighted!.n_effective, 10);
    expect(o.weighted!.interval!.lower).toBeCloseTo(ref.weighted!.interval[0], 10);
    expect(o.weighted!.interval!.upper).toBeCloseTo(ref.weighted!.interval[1], 10);

    const bins: Record<string, string> = {
      "≤ 0.1": "<= delta",
      "0.1–0.25": "delta-0.25",
      "0.25–0.5": "0.25-0.5",
      "> 0.5": "> 0.5",
    };
    expect(report.byGap.map((g) => bins[g.key]).sort()).toEqual(Object.keys(ref.by_gap).sort());
    for (const g of report.byGap) {
      const x = ref.by_gap[bins[g.key]];
      expect([g.agree, g.inversions, g.ties]).toEqual([x.agree, x.inversions, x.ties]);
      if (x.agreement === null) expect(g.agreement.value).toBeNull();
      else expect(g.agreement.value).toBeCloseTo(x.agreement, 12);
    }

    const b = report.betweenAnnotators;
    expect(b.table).toEqual(ref.table);
    expect(b.pairs).toBe(ref.between!.n);
    if (ref.between!.kappa === null) expect(b.kappa.value).toBeNull();
    else expect(b.kappa.value).toBeCloseTo(ref.between!.kappa, 10);
    expect(b.ac1.value).toBeCloseTo(ref.between!.ac1, 10);
    expect(b.ac1.interval!.lower).toBeCloseTo(ref.between!.ac1_interval![0], 6);
    expect(b.ac1.interval!.upper).toBeCloseTo(ref.between!.ac1_interval![1], 6);
  });

  it("reads the same pairs without the rollouts' current entries when asked not to look them up", async () => {
    const full = await loadPairReportItems({ batch: batchId, window: 500 });
    const recorded = await loadPairReportItems({ batch: batchId, window: 500 }, undefined, { current: false });
    if (!full.ok || !recorded.ok) throw new Error("no report");
    expect(full.items.length).toBeGreaterThan(0);
    expect(full.items.every((i) => i.a.now !== null && i.b.now !== null)).toBe(true);
    expect(recorded).toEqual({
      ...full,
      items: full.items.map((i) => ({ ...i, a: { ...i.a, now: null }, b: { ...i.b, now: null } })),
    });
  });

  it("gives each judged pair's first counted judgement with its rollouts, the report's pairs and first judgements", async () => {
    const report = await loadPairReportItems({ run: runId, window: 500 }, undefined, { current: false });
    if (!report.ok) throw new Error("no report");
    const rows = await db().auditItem.findMany({
      where: { runId, rolloutBId: { not: null } },
      select: { id: true, rolloutId: true, rolloutBId: true, rollout: { select: { groupId: true } } },
    });
    const byId = new Map(rows.map((r) => [r.id, r]));
    const expected = report.items.flatMap((p) => {
      const j = p.judgements.find((x) => x.excludedReason === null);
      const r = byId.get(p.itemId)!;
      if (!j) return [];
      return [
        {
          itemId: p.itemId,
          step: p.step,
          rolloutA: String(r.rolloutId),
          rolloutB: String(r.rolloutBId),
          groupId: r.rollout.groupId,
          trajectoryA: p.a.trajectoryId,
          inclusionProb: p.inclusionProb,
          preferredTrajectoryId: j.preferredTrajectoryId,
        },
      ];
    });
    // the lead's judgements come first on their pairs and do not count: the first counted one is a later one
    expect(report.items.some((p) => p.judgements[0].excludedReason !== null)).toBe(true);
    expect(expected.some((j) => j.preferredTrajectoryId === null)).toBe(true);
    expect(await loadPrimaryJudgements(runId)).toEqual(expected);
  });

  it("lists inversions by gap, tallies a lead's verdict on one, opens its defect, and counts pair judgements as progress", async () => {
    const before = await loadPairReportItems({ batch: batchId, window: 500 });
    if (!before.ok) throw new Error(before.error);
    const r0 = buildPairReport(before.items, { basis: "reviewed", delta: 0.1, window: 500 });
    const gaps = r0.inversions.map((i) => i.gap);
    expect(gaps).toEqual([...gaps].sort((x, y) => y - x));
    expect(r0.tally).toMatchObject({ total: 0, pending: r0.inversions.length });
    const top = r0.inversions[0];
    const v = await recordAdjudication(
      { itemId: BigInt(top.itemId), cause: "spec_wrong", note: "the spec asks for the refund the honest one made" },
      lead,
    );
    expect(v).toMatchObject({ ok: true });
    const after = await loadPairReportItems({ run: runId, window: 500 });
    if (!after.ok) throw new Error(after.error);
    const r1 = buildPairReport(after.items, { basis: "reviewed", delta: 0.1, window: 500 });
    expect(r1.tally).toMatchObject({ total: 1, pending: r0.inversions.length - 1, byCause: { spec_wrong: 1 } });
    expect(r1.inversions[0]).toMatchObject({ itemId: top.itemId, cause: "spec_wrong" });
    // the side-by-side view shows the verdict and the spec defect it opened on the pair's ticket
    const view = (await loadPairCase(BigInt(top.itemId)))!;
    expect(view.adjudications[0]).toMatchObject({ cause: "spec_wrong", current: true });
    expect(view.defects).toEqual([expect.objectContaining({ cause: "spec_wrong", ticketId: view.ticketId })]);
    expect(view.judgements.some((j) => j.order.verdict === "inversion")).toBe(true);

    const progress = (await listAnnotatorProgress()).filter((p) => p.batchId === batchId);
    const judged = await db().pairReview.groupBy({ by: ["reviewerId"], where: { item: { batchId } }, _count: true });
    expect(progress.map((p) => [p.userId, p.reviews]).sort()).toEqual(
      judged.map((j) => [j.reviewerId, j._count]).sort(),
    );
    expect(progress.find((p) => p.userId === lead.userId)).toMatchObject({ reviews: 2, medianSeconds: 5 });
  });

  it("answers JSON, and refuses a bad or wrong scope with the field and why", async () => {
    const ok = await pairReportResponse(`http://x/api/v1/agreement/pairwise?batch=${batchId}&basis=now`);
    expect(ok.status).toBe(200);
    const body = await ok.json();
    expect(body).toMatchObject({ run: runId, batch: batchId, basis: "now", pairs: 60, excluded_judgements: 2 });
    expect(body.inversions[0]).toMatchObject({
      higher: { reward: expect.any(Number) },
      lower: { reward: expect.any(Number) },
    });
    expect(body.inversions[0]).toHaveProperty("cause");
    const bad = async (q: string) => {
      const res = await pairReportResponse(`http://x/api/v1/agreement/pairwise?${q}`);
      return [res.status, (await res.json()).error.message];
    };
    expect(await bad("")).toEqual([400, "batch: name a pairwise batch (batch=N) or a run (run=R)"]);
    expect(await bad("batch=x")).toEqual([400, "batch: must be a batch id"]);
    expect(await bad(`batch=${batchId}&basis=then`)).toEqual([400, "basis: must be reviewed or now"]);
    expect(await bad(`batch=${batchId}&window=0`)).toEqual([400, "window: must be at least 1 step"]);
    expect(await bad(`batch=${batchId}&window=ten`)).toEqual([400, "window: must be a whole number of steps"]);
    expect(await bad(`batch=${batchId}&sort=gap`)).toEqual([400, 'unknown parameter "sort"']);
    expect(await bad(`batch=${batchId}&batch=${batchId}`)).toEqual([400, "batch: given more than once"]);
    expect(await bad(`batch=${batchId}&run=other`)).toEqual([
      400,
      `run: batch #${batchId} is of run ${runId}, not other`,
    ]);
    expect(await bad("batch=999999999")).toEqual([404, "batch: no audit batch #999999999"]);
    expect(await bad("run=no-such-run")).toEqual([404, "run: no run no-such-run"]);
    const tickets = await createBatch(
      { runId, stepFrom: 0, stepTo: 100, rate: 1, salt: "t", pick: "one", overlapRate: 0, tolerance: 0.1 },
      ACTOR,
    );
    if (!tickets.ok) throw new Error(tickets.error);
    expect(await bad(`batch=${tickets.batchId}`)).toEqual([
      400,
      `batch: #${tickets.batchId} is a tickets batch; its report is /agreement`,
    ]);
  });
});
