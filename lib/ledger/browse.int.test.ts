// The trajectory browser's reads against a real ledger: every filter against a direct computation from the narrow
// tables (not from the browser's own SQL), key paging without duplicates or gaps, neighbours, counts, the export's
// CSV cells, and the clusters' "open in browser" links, which must show exactly each cluster's members.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBatch } from "@/lib/audit/mutations.ts";
import { listClusterTickets } from "@/lib/clusters/detail-data.ts";
import {
  BLIND_SPOT_KEY,
  browserHref,
  levelOneKey,
  parseKey,
  type ClusterKey,
  type LinkWindow,
} from "@/lib/clusters/keys.ts";
import { computeClusterReport } from "@/lib/clusters/loaders.ts";
import { memberWhere } from "@/lib/clusters/sql.ts";
import { ingestKnownLedger, RUN as CLU } from "@/lib/testing/clusters-data.ts";
import { bindDatabase, db } from "@/lib/db/client.ts";
import { demoRunValues, demoTickets } from "@/lib/demo/generate.ts";
import { loadExamples } from "@/lib/demo/seed.ts";
import { caseLine, externalScore } from "@/lib/testing/ingest-fixtures.ts";
import { ingestValues } from "@/lib/ingest/ingest.ts";
import { freshDatabase, ingestText, ndjson, type TestDatabase } from "@/lib/testing/ingest-db.ts";
import { ON_CITUS } from "@/lib/testing/scratch-db.ts";
import { capture, installStatementCapture } from "@/lib/testing/capture-statements.ts";
import {
  BrowseCursorError,
  browseLedger,
  countLedger,
  iterateLedger,
  neighbours,
  sampleBase,
  sortValueOf,
  type BrowseRow,
} from "@/lib/ledger/browse.ts";
import { parseBrowseParams, SORT_KEYS, type BrowseParams } from "@/lib/ledger/browse-schema.ts";
import { csvCell, csvLine } from "@/lib/ledger/export-rows.ts";
import { DIMENSIONS, GUARDRAIL_CODES } from "@/lib/verifier/codes.ts";

const DEMO = "brw-demo"; // 30 tickets × 10 steps × 4 = 1,200 entries: above the exact-count cap
const EX = "brw-ex"; // the ten spec examples: ties, an error record without reward
const EDGE = "brw-edge";
// A formula a spreadsheet would run (ids may not hold quotes, so its arguments are cells).
const FORMULA_ID = "=HYPERLINK(A1,B2)";
const ODD_TOOL = "crm.look@up|v2#%";
const DEMO_TICKET = demoTickets({ tickets: 30, seed: "brw" })[7].ticketId;

let t: TestDatabase;

beforeAll(async () => {
  t = await freshDatabase("browse");
  await bindDatabase(t.url);
  await ingestKnownLedger(t.pool);
  const demo = await ingestValues(
    demoRunValues({ runId: DEMO, tickets: 30, steps: 10, k: 4, seed: "brw", variant: "hacking" }),
    { pool: t.pool },
  );
  if (!demo.ok || demo.rejected) throw new Error(JSON.stringify(demo).slice(0, 300));
  const examples = (loadExamples() as Record<string, unknown>[]).map((e, i) => ({
    ...e,
    run_id: EX,
    step: 10 * (i % 3),
    trajectory_id: `${EX}/${String(e.trajectory_id)}`,
  }));
  const ex = await ingestValues(examples, { pool: t.pool });
  if (!ex.ok || ex.rejected) throw new Error(JSON.stringify(ex).slice(0, 300));
  const odd = { dimension: "policy", code: "policy_rule_violated", tool: ODD_TOOL, message: "odd tool" };
  const edge = await ingestText(
    t.pool,
    ndjson([
      caseLine("E-1"),
      caseLine("+E-2"),
      // just below 0.5 (external rewards are not rounded): inside a 0.5 threshold, outside "reward ≤ 0.499999"
      {
        ...externalScore(`${EDGE}/below`, "E-1", 0.4999999, { run: EDGE, step: 5 }),
        subscores: { outcome: 1, policy: 0.2 },
        reasons: [odd],
      },
      {
        ...externalScore(`${EDGE}/at`, "E-1", 0.5, { run: EDGE, step: 5 }),
        subscores: { outcome: 1, policy: 0.2 },
        reasons: [odd],
      },
      {
        ...externalScore(`${EDGE}/tool-only`, "E-1", 0.3, { run: EDGE, step: 6 }),
        subscores: { outcome: 1, policy: 0.2 },
        reasons: [{ ...odd, field: "" }],
      },
      externalScore(FORMULA_ID, "+E-2", 0.9, { run: EDGE, step: 7 }),
      // a trajectory whose id is another ticket's: a search for "E-1" finds both it and that ticket's entries
      externalScore("E-1", "+E-2", 0.7, { run: EDGE, step: 9 }),
      // the same reason code without tool or field: a different signature from the two above
      {
        ...externalScore(`${EDGE}/plain`, "E-1", 0.95, { run: EDGE, step: 8 }),
        reasons: [{ code: "policy_rule_violated", message: "plain" }],
      },
    ]),
  );
  if (!edge.ok || edge.rejected) throw new Error(JSON.stringify(edge).slice(0, 500));
  const batch = await createBatch(
    {
      runId: DEMO,
      stepFrom: 0,
      stepTo: 1_000_000,
      rate: 0.05,
      salt: "brw",
      pick: "one",
      overlapRate: 0,
      tolerance: 0.1,
    },
    { label: "test" },
    db(),
  );
  if (!batch.ok) throw new Error(batch.error);
  // Reviews are not what is under test here: two items counted as reviewed is all the "reviewed" filter reads.
  await t.pool.query(
    "update audit_items set reviews_done = 1 where id in (select id from audit_items order by id limit 2)",
  );
}, 240_000);

afterAll(async () => {
  await db().$disconnect();
  await t?.drop();
});

function params(q: Record<string, string>): BrowseParams {
  const r = parseBrowseParams(q);
  if (!r.ok) throw new Error(r.errors.join("; "));
  return r.params;
}

async function collect(p: BrowseParams, batch = 53): Promise<BrowseRow[]> {
  const out: BrowseRow[] = [];
  for await (const rows of iterateLedger(p, batch)) out.push(...rows);
  return out;
}

const ids = (rows: { trajectoryId: string }[]) => rows.map((r) => r.trajectoryId).sort();

describe("the URL schema", () => {
  it("names each bad value of the new filters precisely", () => {
    const errors = (q: Record<string, string>) => {
      const r = parseBrowseParams(q);
      return r.ok ? [] : r.errors;
    };
    expect(errors({ sig: "Not A Code" })).toEqual([
      'sig: must be a reason signature: a reason code, then "@tool" and "#field" when the reason has them',
    ]);
    expect(errors({ sig: "code@a@b" })).toHaveLength(1);
    expect(errors({ weakest: "outcome,vibes" })[0]).toMatch(
      /^weakest(\.1)?: must be outcome, policy, evidence, efficiency, communication or unknown$/,
    );
    expect(errors({ all: "empty_promise,policy_error", none: "policy_error,customer_harm" })).toEqual([
      "all: policy_error cannot be in both all and none",
    ]);
    expect(errors({ reward_min: "0.5", reward_below: "0.5" })).toEqual(["reward_min: must be below reward_below"]);
    expect(errors({ reward_below: "1.5" })).toEqual(["reward_below: must be between 0 and 1"]);
    expect(errors({ sandbox_write: "maybe" })).toEqual(['sandbox_write: must be "yes" or "no"']);
    expect(errors({ writes: "no" })).toEqual(['unknown filter "writes"']);
    expect(params({ sig: "x@a%40b#", weakest: "unknown" })).toMatchObject({ sig: "x@a%40b#", weakest: ["unknown"] });
  });
});

type Fact = {
  id: string;
  trajectory_id: string;
  run_id: string;
  step: number;
  ticket_id: string;
  category: string | null;
  status: string;
  reward: number | null;
  outcome: number | null;
  policy: number | null;
  evidence: number | null;
  efficiency: number | null;
  communication: number | null;
  deciding_guardrail: string | null;
  capped: boolean;
  handoff: boolean | null;
  guardrails: string[];
  reasons: { code: string; tool: string | null; field: string | null }[];
  writes: number | null;
  sampled: boolean;
  reviewed: boolean;
};

describe("every filter selects what a direct computation from the narrow tables selects", () => {
  let facts: Fact[];
  beforeAll(async () => {
    // Joined by run and id (on Citus a join of the distributed tables must name run_id), the audit's flags read
    // apart: Citus joins no table on the coordinator (audit_items) with a distributed one.
    const { rows } = await t.pool.query<Fact>(`
      select l.id::text, l.trajectory_id, l.run_id, l.step, l.ticket_id, l.category, l.status::text, l.reward, l.outcome,
             l.policy, l.evidence, l.efficiency, l.communication, l.deciding_guardrail, l.capped, l.handoff,
             coalesce(g.codes, '{}') as guardrails, coalesce(r.reasons, '[]') as reasons,
             jsonb_array_length(ro.sandbox -> 'writes') as writes
        from ledger l
        left join (select run_id, ledger_id, array_agg(code) as codes from ledger_guardrails group by 1, 2) g
          on g.run_id = l.run_id and g.ledger_id = l.id
        left join (select run_id, ledger_id, json_agg(json_build_object('code', code, 'tool', tool, 'field', field)) as reasons
                     from ledger_reasons group by 1, 2) r
          on r.run_id = l.run_id and r.ledger_id = l.id
        left join rollouts ro on ro.run_id = l.run_id and ro.id = l.rollout_id
       where l.is_current`);
    const { rows: audited } = await t.pool.query<{ trajectory_id: string; reviewed: boolean }>(
      `select trajectory_id, bool_or(reviews_done > 0) as reviewed from audit_items group by 1`,
    );
    const reviewed = new Map(audited.map((a) => [a.trajectory_id, a.reviewed]));
    for (const f of rows) {
      f.sampled = reviewed.has(f.trajectory_id);
      f.reviewed = reviewed.get(f.trajectory_id) === true;
    }
    facts = rows;
  });

  const weakest = (f: Fact) => levelOneKey(null, f).slice("weakest:".length);
  const hasSig = (f: Fact, code: string, tool: string | null, field: string | null) =>
    f.reasons.some((r) => r.code === code && r.tool === tool && r.field === field);
  const cases: [Record<string, string>, (f: Fact) => boolean][] = [
    [{ run: DEMO }, (f) => f.run_id === DEMO],
    [{ run: DEMO, step_from: "3000", step_to: "12000" }, (f) => f.run_id === DEMO && f.step >= 3000 && f.step <= 12000],
    [{ category: "refund_damaged" }, (f) => f.category === "refund_damaged"],
    [{ reward_min: "0.3", reward_max: "0.6" }, (f) => f.reward !== null && f.reward >= 0.3 && f.reward <= 0.6],
    [{ reward_below: "0.5" }, (f) => f.reward !== null && f.reward < 0.5],
    [{ reward_max: "0.499999" }, (f) => f.reward !== null && f.reward <= 0.499999],
    [
      { evidence_max: "0.5", outcome_min: "0.5" },
      (f) => f.evidence !== null && f.evidence <= 0.5 && f.outcome !== null && f.outcome >= 0.5,
    ],
    [{ weakest: "outcome,unknown" }, (f) => ["outcome", "unknown"].includes(weakest(f))],
    [{ weakest: "policy", deciding: "none" }, (f) => weakest(f) === "policy" && f.deciding_guardrail === null],
    [
      { any: "empty_promise,missing_evidence" },
      (f) => f.guardrails.some((g) => g === "empty_promise" || g === "missing_evidence"),
    ],
    [
      { all: "unauthorized_write,missing_evidence" },
      (f) => f.guardrails.includes("unauthorized_write") && f.guardrails.includes("missing_evidence"),
    ],
    [{ none: "empty_promise" }, (f) => !f.guardrails.includes("empty_promise")],
    [{ none: GUARDRAIL_CODES.join(",") }, (f) => f.guardrails.length === 0],
    [
      { deciding: "empty_promise,none" },
      (f) => f.deciding_guardrail === "empty_promise" || f.deciding_guardrail === null,
    ],
    [{ capped: "yes" }, (f) => f.capped],
    [{ capped: "no" }, (f) => !f.capped],
    [{ handoff: "yes" }, (f) => f.handoff === true],
    [{ handoff: "no" }, (f) => f.handoff !== true],
    // the clusters' blind spot: a hand-off the verifier still credits on its outcome
    [{ handoff: "credited" }, (f) => f.handoff === true && f.outcome !== null && f.outcome > 0],
    [{ sandbox_write: "no" }, (f) => f.writes === 0],
    [{ sandbox_write: "yes" }, (f) => f.writes !== null && f.writes > 0],
    [{ run: DEMO, sandbox_write: "no" }, (f) => f.run_id === DEMO && f.writes === 0],
    [{ status: "spec_error,input_error" }, (f) => f.status === "spec_error" || f.status === "input_error"],
    [{ reason: "required_read_missing" }, (f) => f.reasons.some((r) => r.code === "required_read_missing")],
    [
      { run: DEMO, step_from: "6000", reason: "required_read_missing" },
      (f) => f.run_id === DEMO && f.step >= 6000 && f.reasons.some((r) => r.code === "required_read_missing"),
    ],
    [
      { sig: "required_read_missing@order.get#required_reads.0" },
      (f) => hasSig(f, "required_read_missing", "order.get", "required_reads.0"),
    ],
    [{ sig: "policy_rule_violated" }, (f) => hasSig(f, "policy_rule_violated", null, null)],
    [
      { sig: "policy_rule_violated@crm.look%40up%7Cv2%23%25" },
      (f) => hasSig(f, "policy_rule_violated", ODD_TOOL, null),
    ],
    [{ sig: "policy_rule_violated@crm.look%40up%7Cv2%23%25#" }, (f) => hasSig(f, "policy_rule_violated", ODD_TOOL, "")],
    [{ q: "E-1" }, (f) => f.ticket_id === "E-1" || f.trajectory_id === "E-1"],
    [{ run: EDGE, q: "E-1" }, (f) => f.run_id === EDGE && (f.ticket_id === "E-1" || f.trajectory_id === "E-1")],
    [{ run: EDGE, q: "+E-2" }, (f) => f.run_id === EDGE && f.ticket_id === "+E-2"],
    [{ run: DEMO, q: DEMO_TICKET }, (f) => f.run_id === DEMO && f.ticket_id === DEMO_TICKET],
    [{ q: `${EX}/ex/03` }, (f) => f.trajectory_id === `${EX}/ex/03`],
    [{ sampled: "yes" }, (f) => f.sampled],
    [{ sampled: "no" }, (f) => !f.sampled],
    [{ reviewed: "yes" }, (f) => f.reviewed],
    [
      { run: DEMO, any: "empty_promise", handoff: "no", reward_below: "0.5", sort: "reward", dir: "asc" },
      (f) =>
        f.run_id === DEMO &&
        f.guardrails.includes("empty_promise") &&
        f.handoff !== true &&
        f.reward !== null &&
        f.reward < 0.5,
    ],
  ];

  it.each(cases.map(([q, pred]) => [new URLSearchParams(q).toString(), q, pred] as const))("%s", async (_, q, pred) => {
    const expected = facts
      .filter(pred)
      .map((f) => f.trajectory_id)
      .sort();
    // a filter that keeps everything or nothing would prove nothing
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(facts.length);
    const p = params(q);
    expect(ids(await collect(p))).toEqual(expected);
    // every scope of this ledger is small enough to count exactly
    expect(await countLedger(p)).toEqual({ count: expected.length, exact: true });
  });
});

describe("key paging", () => {
  it("pages through every sort both ways with no duplicate, gap or misorder, ties and missing values included", async () => {
    const { rows: nulls } = await t.pool.query(
      "select count(*)::int as n from ledger where is_current and reward is null",
    );
    expect(nulls[0].n).toBeGreaterThan(0); // error records sort as -1
    for (const sort of SORT_KEYS) {
      for (const dir of ["asc", "desc"] as const) {
        const col = sort === "id" ? "l.id" : `coalesce(l.${sort}, -1)`;
        const { rows } = await t.pool.query<{ trajectory_id: string }>(
          `select trajectory_id from ledger l where is_current order by ${col} ${dir}, l.id ${dir}`,
        );
        const got = await collect(params({ sort, dir }), 97);
        expect(
          got.map((r) => r.trajectoryId),
          `${sort} ${dir}`,
        ).toEqual(rows.map((r) => r.trajectory_id));
      }
    }
    // rewards tie often (capped entries share their cap), so the id tie-break is what keeps the pages apart
    const { rows: ties } = await t.pool.query(
      "select count(*)::int as n from ledger where is_current group by coalesce(reward, -1) having count(*) > 97 limit 1",
    );
    expect(ties).toHaveLength(1);
  });

  it("pages a filtered view in a run, and refuses a cursor it did not write", async () => {
    const p = params({ run: DEMO, any: "empty_promise,missing_evidence", sort: "reward", dir: "asc" });
    const first = await browseLedger(p, 10);
    expect(first.rows).toHaveLength(10);
    const all = await collect(p, 10);
    expect(all.slice(0, 10)).toEqual(first.rows);
    expect(new Set(all.map((r) => r.id)).size).toBe(all.length);
    const rewards = all.map((r) => r.reward ?? -1);
    expect(rewards).toEqual([...rewards].sort((a, b) => a - b));
    await expect(browseLedger({ ...p, after: "not-a-cursor" }, 10)).rejects.toBeInstanceOf(BrowseCursorError);
  });
});

describe("neighbours", () => {
  it("are the rows before and after an entry in the view's order, null at the ends", async () => {
    const views: Record<string, string>[] = [
      { run: EX, sort: "reward", dir: "desc" },
      { run: EX, sort: "step", dir: "asc" },
      { run: EX },
      { run: EX, sort: "tool_steps", dir: "asc" },
    ];
    for (const q of views) {
      const p = params(q);
      const list = await collect(p);
      expect(list).toHaveLength(10);
      for (let i = 0; i < list.length; i++) {
        const n = await neighbours(p, { id: BigInt(list[i].id), sortValue: sortValueOf(p, list[i]) });
        expect(n, `${JSON.stringify(q)} #${i}`).toEqual({
          prev: list[i - 1]?.trajectoryId ?? null,
          next: list[i + 1]?.trajectoryId ?? null,
        });
      }
    }
  });

  it("across every run are the cross-run list's", async () => {
    const views: Record<string, string>[] = [{}, { sort: "reward", dir: "asc" }, { any: "empty_promise" }];
    for (const q of views) {
      const p = params(q);
      const list = await collect(p);
      expect(new Set(list.map((r) => r.runId)).size).toBeGreaterThan(2);
      for (const i of [0, 1, Math.floor(list.length / 2), list.length - 2, list.length - 1]) {
        const n = await neighbours(p, { id: BigInt(list[i].id), sortValue: sortValueOf(p, list[i]) });
        expect(n, `${JSON.stringify(q)} #${i}`).toEqual({
          prev: list[i - 1]?.trajectoryId ?? null,
          next: list[i + 1]?.trajectoryId ?? null,
        });
      }
    }
  });

  it("are read at once: the row after is asked for before the row before is answered", async () => {
    const captured = installStatementCapture();
    try {
      const p = params({ run: EX, sort: "reward", dir: "desc" });
      const mid = (await collect(p))[4];
      const entry = { id: BigInt(mid.id), sortValue: sortValueOf(p, mid) };
      await neighbours(p, entry); // the pool's connections opened first
      const { result, statements } = await capture(() => neighbours(p, entry));
      expect(result.prev && result.next).toBeTruthy();
      const reads = statements.filter((s) => /\bfrom ledger l\b/.test(s.text));
      expect(reads).toHaveLength(2);
      expect(reads[1].sent).toBeLessThan(reads[0].answered!);
    } finally {
      captured.restore();
    }
  });

  // Counted by this node's statistics of the run's partitions: on Citus the rows are read on the workers, and the
  // plans are asserted there by lib/db/single-shard.citus.test.ts instead.
  it.skipIf(ON_CITUS)("opened on their own read a few rows per run, through each partition's keys", async () => {
    // A detail page opened on its own (no browser query): its neighbours in the default view, newest first over every
    // run. Rows fetched from the ledger, counted by the transaction's own statistics with sequential scans off (a
    // query no index orders reads every entry of every run, here more than 1,200).
    const p = params({});
    const [mid] = (await collect(p)).slice(600, 601);
    const read = await db().$transaction(async (tx) => {
      await tx.$executeRawUnsafe("set local enable_seqscan = off");
      const rowsRead = async () =>
        Number(
          (
            await tx.$queryRaw<{ n: bigint }[]>`
              select coalesce(sum(coalesce(s.seq_tup_read, 0) + coalesce(s.idx_tup_fetch, 0)), 0)::bigint as n
                from pg_inherits i join pg_stat_xact_user_tables s on s.relid = i.inhrelid
               where i.inhparent = 'ledger'::regclass`
          )[0].n,
        );
      const before = await rowsRead();
      await neighbours(p, { id: BigInt(mid.id), sortValue: sortValueOf(p, mid) }, tx);
      return (await rowsRead()) - before;
    });
    const runs = await db().run.count();
    expect(read).toBeLessThanOrEqual(4 * runs);
  });
});

describe("countLedger", () => {
  it("is exact in a scope small enough to count (here every one), whatever the number of matches", async () => {
    await db().$executeRawUnsafe("analyze ledger");
    const [{ n }] = await db().$queryRaw<{ n: number }[]>`select count(*)::int as n from ledger where run_id = ${DEMO}`;
    expect(n).toBeGreaterThan(1000);
    expect(await countLedger(params({ run: DEMO }))).toEqual({ count: n, exact: true });
  });

  it("is exact up to 1,000 and, in a scope too large to count, an estimate, labelled so, above", async () => {
    expect(await countLedger(params({ run: EX }), { exactScopeRows: 0 })).toEqual({ count: 10, exact: true });
    const big = await countLedger(params({ run: DEMO }), { exactScopeRows: 0 });
    expect(big.exact).toBe(false);
    // the table is smaller than the ~10,000-row block sample, so the sample is the whole table
    expect(big.count).toBe(1200);
    expect(await countLedger(params({ run: "no-such-run" }))).toEqual({ count: 0, exact: true });
  });

  it('says only "more than 1,000" when the sample is too thin to estimate above the bound', async () => {
    // statistics give the sample its size (never analyzed, the table counts as one row and is sampled whole);
    // the thinnest sample (0.0001% of the blocks) then finds nothing, so all that is known is the exact bound
    await db().$executeRawUnsafe("analyze ledger");
    const thin = await countLedger(params({ run: DEMO }), { sampleRows: 0, exactScopeRows: 0 });
    expect(thin).toEqual({ count: 1000, exact: false, atLeast: true });
  });

  it("sizes its block sample by the run's own rows, not by the partitioned parent's statistics", async () => {
    // Autovacuum analyzes partitions, never their parent: after an ingest only the run's partition knows its size.
    // On Citus (no partitions) the run's rows are its rollups' and counters', exact before any ANALYZE.
    if (!ON_CITUS) {
      const [{ part }] = await db().$queryRaw<
        { part: string }[]
      >`select verity_run_partition_name('ledger', ${DEMO}) as part`;
      await db().$executeRawUnsafe(`analyze "${part}"`);
    }
    const [{ n }] = await db().$queryRaw<{ n: number }[]>`select count(*)::int as n from ledger where run_id = ${DEMO}`;
    const [{ total }] = await db().$queryRaw<{ total: number }[]>`select count(*)::int as total from ledger`;
    expect(n).toBeLessThan(total);
    expect(await sampleBase(DEMO)).toBe(n);
    await db().$executeRawUnsafe("analyze ledger");
    expect(await sampleBase(DEMO)).toBe(n);
    expect(await sampleBase()).toBe(total);
    expect(await sampleBase("no-such-run")).toBe(1);
  });
});

describe("CSV export cells", () => {
  it("quote a formula-like id so a spreadsheet shows it as text", async () => {
    const rows = await collect(params({ q: FORMULA_ID }));
    expect(rows).toHaveLength(1);
    const line = csvLine(rows[0]);
    expect(line.startsWith(`"'=HYPERLINK(A1,B2)",${EDGE},7,'+E-2,`)).toBe(true);
    expect(csvCell('=HYPERLINK("http://evil.example","click")')).toBe(
      `"'=HYPERLINK(""http://evil.example"",""click"")"`,
    );
    expect(csvCell("@SUM(A1)")).toBe("'@SUM(A1)");
    expect(csvCell("-2+3")).toBe("'-2+3");
    expect(csvCell("\tx")).toBe("'\tx");
    expect(csvCell("a\nb")).toBe('"a\nb"');
    expect(csvCell(-1)).toBe("-1");
    expect(csvCell(null)).toBe("");
  });
});

describe("the clusters' links into the browser", () => {
  async function members(w: LinkWindow, k: ClusterKey): Promise<string[]> {
    const rows = await db().$queryRaw<
      { trajectory_id: string }[]
    >`select l.trajectory_id from ledger l where ${memberWhere(w, k)}`;
    return rows.map((r) => r.trajectory_id).sort();
  }

  async function checkLinks(w: LinkWindow): Promise<Set<string>> {
    const report = await computeClusterReport(w, db());
    const keys: { key: string; size: number | null }[] = [{ key: BLIND_SPOT_KEY, size: report.blindSpot.size }];
    for (const c of report.clusters) {
      keys.push({ key: c.key, size: c.estimated ? null : c.size });
      for (const s of c.signatures) {
        keys.push({ key: s.key, size: null });
        for (const cat of s.categories) if (cat.key) keys.push({ key: cat.key, size: null });
      }
    }
    for (const c of report.cofired) keys.push({ key: c.key, size: c.size });
    const kinds = new Set<string>();
    for (const { key, size } of keys) {
      const k = parseKey(key)!;
      kinds.add(k.kind === "level1" && k.l1.startsWith("weakest:") ? "weakest" : k.kind);
      // the exact size: the report's where it is exact, else the listing the backlog export reads
      const exact = size ?? (await listClusterTickets(w, k, db())).reduce((s, x) => s + x.rollouts, 0);
      const href = browserHref(w, k);
      const parsed = parseBrowseParams(new URLSearchParams(href.slice(href.indexOf("?") + 1)));
      expect(parsed.ok, href).toBe(true);
      if (!parsed.ok) continue;
      expect(await countLedger(parsed.params), `${key}: ${href}`).toEqual({ count: exact, exact: true });
      const shown = ids(await collect(parsed.params, exact > 40 ? 50 : 4)); // small pages where a cluster is small: many page edges
      expect(shown, `${key}: ${href}`).toEqual(await members(w, k));
      expect(shown).toHaveLength(exact);
    }
    return kinds;
  }

  it("show exactly each cluster's members on the known ledger, at every level", async () => {
    const kinds = await checkLinks({ runId: CLU, threshold: 0.5 });
    expect([...kinds].sort()).toEqual(["blind_spot", "cofired", "level1", "level2", "level3", "weakest"]);
  });

  it("stay exact in a step window, at a low and a high threshold", async () => {
    await checkLinks({ runId: CLU, from: 1000, to: 2000, threshold: 0.25 });
    const high = await checkLinks({ runId: CLU, threshold: 0.95 });
    expect(high.has("weakest")).toBe(true);
  });

  it("stay exact on a generated run, and for a reward just under the threshold and a tool with separators in it", async () => {
    await checkLinks({ runId: DEMO, from: 3000, threshold: 0.5 });
    const w = { runId: EDGE, threshold: 0.5 };
    await checkLinks(w);
    const k = parseKey(`weakest:policy|policy_rule_violated@crm.look%40up%7Cv2%23%25`)!;
    expect(await members(w, k)).toEqual([`${EDGE}/below`]);
    const href = browserHref(w, k);
    const parsed = parseBrowseParams(new URLSearchParams(href.slice(href.indexOf("?") + 1)));
    expect(parsed.ok && ids(await collect(parsed.params))).toEqual([`${EDGE}/below`]);
  });

  it("keep every sub-score's weakest cluster apart", async () => {
    const w = { runId: DEMO, threshold: 0.95 };
    const all = (await collect(params({ run: DEMO, reward_below: "0.95", deciding: "none" }))).length;
    let sum = 0;
    for (const d of [...DIMENSIONS, "unknown"]) {
      const k = parseKey(`weakest:${d}`)!;
      const href = browserHref(w, k);
      const parsed = parseBrowseParams(new URLSearchParams(href.slice(href.indexOf("?") + 1)));
      if (!parsed.ok) throw new Error(parsed.errors.join());
      const shown = ids(await collect(parsed.params));
      expect(shown).toEqual(await members(w, k));
      sum += shown.length;
    }
    expect(sum).toBe(all);
  });
});
