// The browser's search end to end against a real ledger: a demo run (with its Chinese-speaking customers) searched
// under a guardrail filter and a step range, checked against the rollouts' own texts read apart from the index;
// snippets; counts; ids still found as ids; bad searches refused with their position; the statement timeout; and a
// search that holds its transaction open while an ingest commits.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bindDatabase, db } from "@/lib/db/client.ts";
import { readDb } from "@/lib/db/read-client.ts";
import { demoRunValues } from "@/lib/demo/generate.ts";
import { ingestValues } from "@/lib/ingest/ingest.ts";
import {
  browseLedger,
  countLedger,
  iterateLedger,
  stepRangeIdBounds,
  walkedPage,
  type BrowseRow,
  type SearchPlan,
} from "@/lib/ledger/browse.ts";
import { parseBrowseParams, type BrowseParams } from "@/lib/ledger/browse-schema.ts";
import { SearchInputError, SearchTimeoutError, withSearchTimeout } from "@/lib/search/data.ts";
import { freshDatabase, ingestText, ndjson, type TestDatabase } from "@/lib/testing/ingest-db.ts";
import { RUN as TEXTS, SEARCH_LINES } from "@/lib/testing/search-data.ts";
import { rolloutLine } from "@/lib/testing/ingest-fixtures.ts";
import { capture, installStatementCapture, planned, type Sent } from "@/lib/testing/capture-statements.ts";

const DEMO = "srch-demo";
let t: TestDatabase;

beforeAll(async () => {
  t = await freshDatabase("browse_search");
  await bindDatabase(t.url);
  const demo = await ingestValues(
    demoRunValues({ runId: DEMO, tickets: 20, steps: 6, k: 4, seed: "srch", variant: "hacking" }),
    { pool: t.pool },
  );
  if (!demo.ok || demo.rejected) throw new Error(JSON.stringify(demo).slice(0, 300));
  const s = await ingestText(t.pool, ndjson(SEARCH_LINES));
  if (!s.ok || s.rejected) throw new Error(JSON.stringify(s).slice(0, 300));
});
afterAll(async () => {
  await t?.drop();
});

function params(q: Record<string, string>): BrowseParams {
  const r = parseBrowseParams(q);
  if (!r.ok) throw new Error(r.errors.join("; "));
  return r.params;
}
async function all(p: BrowseParams): Promise<BrowseRow[]> {
  const out: BrowseRow[] = [];
  for await (const rows of iterateLedger(p, 50)) out.push(...rows);
  return out;
}
/** Every row of a view read 50 at a time as `plan` says. */
async function allBy(p: BrowseParams, plan: SearchPlan): Promise<BrowseRow[]> {
  const out: BrowseRow[] = [];
  for (let after: string | undefined; ;) {
    const page = await browseLedger({ ...p, after }, 50, { snippets: false, plan });
    out.push(...page.rows);
    if (!page.nextCursor) return out;
    after = page.nextCursor;
  }
}

/** Each current entry's rollout texts, read from rollouts and cases (not from rollout_search), lower-cased. */
async function textsOf(run: string): Promise<Map<string, { reply: string; all: string }>> {
  const rows = await db().$queryRaw<{ trajectory_id: string; reply: string; steps: string; ticket: string }[]>`
    select r.trajectory_id, r.final_reply as reply, r.steps::text as steps, coalesce(c.ticket ->> 'message', '') as ticket
      from rollouts r left join cases c on c.ticket_id = r.ticket_id where r.run_id = ${run}`;
  return new Map(
    rows.map((r) => [
      r.trajectory_id,
      { reply: r.reply.toLowerCase(), all: `${r.reply}\n${r.steps}\n${r.ticket}`.toLowerCase() },
    ]),
  );
}

/** A search's matches never found first (the walk, then the index plan), as before that was tried. */
const NOT_FIRST: SearchPlan = { fewBlocks: 0, fewRows: 0 };

const FILTERS: Record<string, string>[] = [
  {},
  { any: "unauthorized_write,empty_promise" },
  { step_from: "2", step_to: "4" },
];

describe("the browser's search", () => {
  it("matches exactly the rollouts whose texts hold the terms, under a guardrail filter and a step range", async () => {
    const texts = await textsOf(DEMO);
    const cases: [Record<string, string>, (x: { reply: string; all: string }) => boolean][] = [
      [{ q: "退款" }, (x) => x.all.includes("退款")],
      [{ q: '"已为您安排退款"' }, (x) => x.all.includes("已为您安排退款")],
      [{ q: "reply:refund -退款" }, (x) => x.reply.includes("refund") && !x.all.includes("退款")],
      [{ q: '"3-5 business days" -退款' }, (x) => x.all.includes("3-5 business days") && !x.all.includes("退款")],
      [
        { q: "tool:finance.issue_refund 退款" },
        (x) => x.all.includes("finance.issue_refund") && x.all.includes("退款"),
      ],
    ];
    for (const [q, expected] of cases)
      for (const filter of FILTERS) {
        const p = params({ run: DEMO, ...q, ...filter });
        const unfiltered = await all(params({ run: DEMO, ...filter }));
        const want = unfiltered.filter((r) => expected(texts.get(r.trajectoryId)!)).map((r) => r.trajectoryId);
        const label = JSON.stringify({ ...q, ...filter });
        // the demo run's matches are few for its blocks: found first (the default) and, apart, walked or indexed
        const got = (await all(p)).map((r) => r.trajectoryId);
        expect(got, label).toEqual(want);
        expect(
          (await allBy(p, NOT_FIRST)).map((r) => r.trajectoryId),
          label,
        ).toEqual(want);
        if (Object.keys(filter).length === 0) expect(want.length, JSON.stringify(q)).toBeGreaterThan(0);
        expect(await countLedger(p), label).toEqual({ count: want.length, exact: true });
        expect(await countLedger(p, { plan: NOT_FIRST }), label).toEqual({ count: want.length, exact: true });
      }
  });

  it("walks a frequent term's page in the browser's order, giving the index plan's rows and cursors", async () => {
    /** Every page of a view (the first `max`), 5 rows each: its rows' ids and the cursor after it. */
    const pages = async (p: BrowseParams, plan?: SearchPlan, max = Infinity) => {
      const out: { ids: string[]; next: string | null }[] = [];
      for (let after: string | undefined; out.length < max;) {
        const page = await browseLedger({ ...p, after }, 5, { snippets: false, plan });
        out.push({ ids: page.rows.map((r) => r.id), next: page.nextCursor });
        if (!page.nextCursor) break;
        after = page.nextCursor;
      }
      return out;
    };
    const views: Record<string, string>[] = [
      {},
      { any: "unauthorized_write,empty_promise" },
      { step_from: "5000", step_to: "15000" }, // the demo's steps are 0, 5,000, … 25,000
      { any: "unauthorized_write,empty_promise", step_from: "5000", step_to: "15000" },
      { step_from: "5000", step_to: "15000", dir: "asc" },
      { step_to: "10000" },
      { any: "unauthorized_write,empty_promise", sort: "reward", dir: "asc" },
    ];
    const same = async (p: BrowseParams, label: string) => {
      // the index plan alone (no walk, matches not found first): what the page was before the walk
      // (its first pages: it reads every match of a frequent term for each, up to a second a page here)
      const indexed = await pages(p, { walk: 0, ...NOT_FIRST, matchSets: false }, 3);
      expect(indexed[0].ids.length, label).toBeGreaterThan(0);
      // the search's matches in the run gathered and kept (lib/search/match-set-data.ts), where the index would answer
      if (p.run) expect(await pages(p, { walk: 0, ...NOT_FIRST }, 3), label).toEqual(indexed);
      // the walk answers the first page itself, and it is the index plan's first page
      const walked = await walkedPage(p, 6);
      expect(walked?.map((r) => r.id).slice(0, 5), label).toEqual(indexed[0].ids);
      // the same pages as the console reads them; every page the same walked, or with the matches found first from
      // their blocks or pairs; and the first pages walked 12 rows then left to the index when they hold too few,
      // walked 20 rows then 180 more past them, or walked because the blocks or rows (more than one) were too many
      const read = await pages(p);
      expect(read.slice(0, 3), label).toEqual(indexed);
      expect(await pages(p, NOT_FIRST), label).toEqual(read);
      expect(await pages(p, { fewBlocks: 10_000, fewRows: 100_000 }), label).toEqual(read);
      expect(await pages(p, { walk: 12, ...NOT_FIRST }, 3), label).toEqual(indexed);
      expect(await pages(p, { walk: 200, ...NOT_FIRST }, 3), label).toEqual(indexed);
      expect(await pages(p, { fewBlocks: 1, fewRows: 1 }, 3), label).toEqual(indexed);
    };
    for (const q of ["退款", "refund"]) {
      for (const view of views) await same(params({ run: DEMO, q, ...view }), JSON.stringify({ q, ...view }));
      // over every run (the demo's and the search texts'): on Citus the runs' walks are merged, then joined to their
      // search rows
      const everyRun: Record<string, string>[] = [{}, { sort: "reward", dir: "asc" }];
      for (const view of everyRun) await same(params({ q, ...view }), JSON.stringify(view));
    }
    // a rare term's walk gives up after its rows and leaves the page to the index
    const rare = params({ run: DEMO, q: "退款", any: "unauthorized_write,empty_promise", step_from: "2" });
    expect(await walkedPage(rare, 6, 3)).toBeNull();
  }, 180_000);

  it("walks a step range between its first and last entries' ids, found step by step", async () => {
    const direct = async (from: number, to: number) => {
      const [r] = await db().$queryRaw<{ lo: bigint | null; hi: bigint | null }[]>`
        select min(id) as lo, max(id) as hi from ledger where run_id = ${DEMO} and step between ${from} and ${to}`;
      return r;
    };
    for (const [from, to] of [
      [5000, 15000],
      [0, 0],
      [25000, 25000],
      [-5, 2147483647],
    ]) {
      const { lo, hi } = await direct(from, to);
      expect(hi, `${from}-${to}`).not.toBeNull();
      expect(await stepRangeIdBounds(DEMO, { from, to }), `${from}-${to}`).toEqual({ low: lo, high: hi });
    }
    const upTo = await direct(-1, 10000);
    expect(await stepRangeIdBounds(DEMO, { to: 10000 })).toEqual({ low: upTo.lo, high: upTo.hi });
    expect(await stepRangeIdBounds(DEMO, { from: 1, to: 4999 })).toBeNull();
    expect(await stepRangeIdBounds("no-such-run", { from: 0, to: 10 })).toBeNull();
  });

  it("estimates a frequent search first in a scope too large to count, and counts a rare one", async () => {
    await db().$executeRawUnsafe("analyze ledger");
    const frequent = params({ run: DEMO, q: "refund" });
    const exact = await countLedger(frequent);
    expect(exact.exact).toBe(true);
    expect(exact.count).toBeGreaterThan(10);
    // a scope past exactScopeRows: the estimate first, and at or past estimateFirstAt it is the answer (a sample of
    // the whole partition here, so the estimate is the exact figure) — unless the blocks say the matches are few
    // (every search's are, in a run this small), which are then counted exactly
    // (no match set: one kept for the search in the run counts it exactly, match-set.int.test.ts)
    const small = {
      exactScopeRows: 10,
      estimateFirstAt: 10,
      sampleRows: 1_000_000,
      plan: { ...NOT_FIRST, matchSets: false },
    };
    expect(await countLedger(frequent, small)).toEqual({ count: exact.count, exact: false });
    expect(await countLedger(frequent, { ...small, plan: { matchSets: false } })).toEqual(exact);
    // under estimateFirstAt: counted to the cap as before, exact
    const rare = params({ run: DEMO, q: '"has been processed" O-20007' });
    expect(await countLedger(rare, small)).toEqual({ count: 0, exact: true });
    expect(await countLedger(frequent, { ...small, estimateFirstAt: exact.count + 1 })).toEqual({
      count: exact.count,
      exact: true,
    });
  });

  it("answers a search that no block of the run holds from the blocks alone", async () => {
    const p = params({ run: DEMO, q: '"has been processed" Q-99999' });
    // the run's list of words its blocks leave out (046), the run's fingerprint (its highest ids) and one read of its
    // blocks: no entry walked, no rollout's texts probed, no sample drawn; then, the search's few matches (none) kept
    // at that fingerprint, not even the blocks
    const reads = (statements: Sent[], blocks: boolean) => {
      const texts = statements.filter(planned).map((s) => s.text);
      expect(texts).toHaveLength(blocks ? 3 : 2);
      expect(texts[0]).toMatch(/^select word from search_omitted_words where run_id = any\(\$1::text\[\]\)$/);
      expect(texts[1]).toMatch(/select max\(r\.id\) from rollouts r where r\.run_id = \$1/);
      if (blocks) expect(texts[2]).toMatch(/from rollout_search_blocks b\s+where b.run_id = \$1/);
    };
    const captured = installStatementCapture();
    try {
      const page = await capture(() => browseLedger(p, 100));
      expect(page.result).toEqual({ rows: [], nextCursor: null });
      reads(page.statements, true);
      // in a scope too large to count exactly, where it was estimated from a sample first
      const count = await capture(() => countLedger(p, { exactScopeRows: 10 }));
      expect(count.result).toEqual({ count: 0, exact: true });
      reads(count.statements, false);
      // asked afresh (nothing kept), the blocks alone again
      const fresh = await capture(() => countLedger(p, { exactScopeRows: 10, plan: { matchSets: false } }));
      expect(fresh.result).toEqual({ count: 0, exact: true });
      const texts = fresh.statements.filter(planned).map((s) => s.text);
      expect(texts).toHaveLength(2);
      expect(texts[1]).toMatch(/from rollout_search_blocks b\s+where b.run_id = \$1/);
    } finally {
      captured.restore();
    }
  });

  it("counts a browser page's search from the page when it holds every match, else from the few matches it read", async () => {
    const captured = installStatementCapture();
    try {
      // every match on the page: the count reads nothing of its own (no match set: one kept for the search in the
      // run is read first, match-set.int.test.ts)
      const one = params({ run: DEMO, q: "refund" });
      const memo = {};
      const page = browseLedger(one, 500, { plan: { memo, matchSets: false } });
      const whole = await page;
      const count = await capture(() => countLedger(one, { firstPage: page, plan: { memo, matchSets: false } }));
      const rows = whole.rows.length;
      expect(rows).toBeGreaterThan(0);
      expect(whole.nextCursor).toBeNull();
      expect(count.result).toEqual({ count: rows, exact: true });
      // (one word is first looked up as a ticket or trajectory id, as the page looked it up)
      const reads = count.statements.filter(planned).map((s) => s.text);
      expect(reads.filter((s) => /rollout_search|count\(|tablesample/.test(s))).toEqual([]);
      // a page of 2 of them: counted from the matches the page found (one read of the blocks, the page's)
      const memo2 = {};
      const first2 = capture(() => browseLedger(one, 2, { plan: { memo: memo2, matchSets: false } }));
      const count2 = await capture(() =>
        countLedger(one, { firstPage: first2.then((f) => f.result), plan: { memo: memo2, matchSets: false } }),
      );
      expect((await first2).result.nextCursor).not.toBeNull();
      expect(count2.result).toEqual({ count: rows, exact: true });
      const blocksRead = [...(await first2).statements, ...count2.statements].filter((s) =>
        /from rollout_search_blocks/.test(s.text),
      );
      expect(blocksRead).toHaveLength(1);
      // without the page, the count finds them itself
      expect(await countLedger(one)).toEqual({ count: rows, exact: true });
    } finally {
      captured.restore();
    }
  });

  it("gives each row of a page its snippets, the matches marked", async () => {
    const page = await browseLedger(params({ run: TEXTS, q: 'ticket:fryer "HAS BEEN processed"' }));
    expect(page.rows.map((r) => r.trajectoryId)).toEqual(["s-en-1"]);
    const [reply, ticket] = page.rows[0].snippets!;
    expect(reply.field).toBe("reply");
    expect(reply.parts.filter((p) => p.mark).map((p) => p.text)).toEqual(["has been processed"]);
    expect(ticket.field).toBe("ticket");
    expect(ticket.parts.filter((p) => p.mark).map((p) => p.text)).toEqual(["fryer"]);
    const plain = await browseLedger(params({ run: TEXTS }));
    expect(plain.rows.every((r) => r.snippets === undefined)).toBe(true);
  });

  it("still reads one word that is a ticket or trajectory id as that id", async () => {
    expect((await all(params({ run: TEXTS, q: "T-ZH" }))).map((r) => r.trajectoryId).sort()).toEqual([
      "s-zh-1",
      "s-zh-2",
    ]);
    expect((await all(params({ q: "s-en-2" }))).map((r) => r.trajectoryId)).toEqual(["s-en-2"]);
  });

  it("refuses a search that does not parse, naming where", async () => {
    const refused = (q: string) => {
      const r = parseBrowseParams({ run: DEMO, q });
      return r.ok ? null : r.problems.q;
    };
    expect(refused('refund "has been')).toBe(
      'this quote is never closed (at character 8) (given "refund \\"has been")',
    );
    expect(refused("x".repeat(10_000))).toMatch(/^a search has at most 500 characters/);
    expect(refused(Array.from({ length: 100 }, (_, i) => `w${i}x`).join(" "))).toMatch(/at most 12 terms/);
    expect(refused("refund -")).toMatch(/a lone - needs a word after it/);
    // one word that is no id and too short to look up: refused when the page is read
    await expect(browseLedger(params({ run: DEMO, q: "a" }))).rejects.toThrow(SearchInputError);
    await expect(browseLedger(params({ run: DEMO, q: "a" }))).rejects.toThrow(/q: "a" is too short to search for/);
    await expect(countLedger(params({ run: DEMO, q: "%_" }))).rejects.toThrow(SearchInputError);
  });

  it("stops a statement past the search's timeout and says so", async () => {
    const started = Date.now();
    await expect(withSearchTimeout(readDb(), (tx) => tx.$queryRaw`select pg_sleep(5)`, 200)).rejects.toThrow(
      SearchTimeoutError,
    );
    expect(Date.now() - started).toBeLessThan(3000);
    // the connection is usable afterwards (the transaction was rolled back)
    expect(await browseLedger(params({ run: TEXTS, q: "退款" }))).toMatchObject({ nextCursor: null });
  });

  it("never holds an ingest up: one commits, and is found, while a search's transaction is open", async () => {
    const found = await withSearchTimeout(readDb(), async (tx) => {
      await tx.$queryRaw`select count(*) from rollout_search s where s.run_id = ${TEXTS} and s.reply ilike '%refund%'`;
      const line = rolloutLine("s-late", "T-EN", { run: TEXTS, step: 4 }) as Record<string, unknown> & {
        trajectory: Record<string, unknown>;
      };
      const s = await ingestText(
        t.pool,
        ndjson([{ ...line, trajectory: { ...line.trajectory, final_reply: "zebra" } }]),
      );
      expect(s.accepted).toBe(1);
      return true;
    });
    expect(found).toBe(true);
    expect((await all(params({ run: TEXTS, q: "zebra" }))).map((r) => r.trajectoryId)).toEqual(["s-late"]);
  });
});
