// A search's match set in one run (lib/search/match-set-data.ts), against a real ledger: the pages and counts it gives are
// the index plan's, row for row and cursor for cursor; while the run's rollouts are unchanged the kept set is what is
// read (shown by changing a search row under it, which only a test does); a batch that adds rollouts to the run makes
// the next read gather afresh, so a rollout is found once its ingest has answered; a search with more matches than
// the set may hold is answered as before.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bindDatabase, db } from "@/lib/db/client.ts";
import { browseLedger, countLedger, type SearchPlan } from "@/lib/ledger/browse.ts";
import { parseBrowseParams, type BrowseParams } from "@/lib/ledger/browse-schema.ts";
import { keptMatchSet, runMatchSet, type MatchSet } from "@/lib/search/match-set-data.ts";
import { fingerprintOnce } from "@/lib/db/run-fingerprint.ts";
import { loadIndexedSearch, withSearchTimeout } from "@/lib/search/data.ts";
import { freshDatabase, ingestText, ndjson, type TestDatabase } from "@/lib/testing/ingest-db.ts";
import { caseLine, rolloutLine } from "@/lib/testing/ingest-fixtures.ts";
import { parsedSearch } from "@/lib/testing/search-data.ts";
import { capture, installStatementCapture, planned } from "@/lib/testing/capture-statements.ts";

const RUN = "match-set-run";
let t: TestDatabase;

/** Replies by kind: 退款 with and without "refund", kiwi, neither; each with a code of its own. */
function reply(batch: string, i: number): string {
  const code = `${batch}-${1000 + i}`;
  return [
    `已为您安排退款, your refund is processed (${code})`,
    `退款申请已收到, 我们会尽快处理 (${code})`,
    `Your kiwi order ${code} is on its way`,
    `Nothing yet on ${code}`,
  ][i % 4];
}
const replies = new Map<string, string>();

function batch(name: string, n: number): string {
  const lines: unknown[] = [caseLine("T-SET")];
  for (let i = 0; i < n; i++) {
    const id = `${RUN}/${name}-${i}`;
    const r = rolloutLine(id, "T-SET", { run: RUN, step: i % 5 }) as Record<string, unknown> & {
      trajectory: Record<string, unknown>;
    };
    replies.set(id, reply(name, i).toLowerCase());
    lines.push({ ...r, trajectory: { ...r.trajectory, final_reply: reply(name, i) } });
  }
  return ndjson(lines);
}

function params(q: Record<string, string>): BrowseParams {
  const r = parseBrowseParams(q);
  if (!r.ok) throw new Error(r.errors.join("; "));
  return r.params;
}

/** Nothing found first nor walked: the index plan with match sets (the default) or without. */
const SETS: SearchPlan = { walk: 0, fewBlocks: 0, fewRows: 0 };
const INDEX: SearchPlan = { ...SETS, matchSets: false };

/** Every page of a view, 7 rows each: its rows' trajectory ids and the cursor after it. */
async function pages(p: BrowseParams, plan?: SearchPlan) {
  const out: { ids: string[]; next: string | null }[] = [];
  for (let after: string | undefined; ;) {
    const page = await browseLedger({ ...p, after }, 7, { snippets: false, plan });
    out.push({ ids: page.rows.map((r) => r.trajectoryId), next: page.nextCursor });
    if (!page.nextCursor) return out;
    after = page.nextCursor;
  }
}
const idsOf = (ps: { ids: string[] }[]) => ps.flatMap((x) => x.ids).sort();

/** How many rollouts a match set holds (its ids, a PostgreSQL array literal), or what was found instead. */
const sizeOf = (set: MatchSet | null) =>
  set !== null && "ids" in set ? (set.ids === "{}" ? 0 : set.ids.split(",").length) : set;

const kept = async (q: string) => keptMatchSet(parsedSearch(q), RUN, fingerprintOnce(RUN, db()));

beforeAll(async () => {
  t = await freshDatabase("match_sets");
  await bindDatabase(t.url);
  const s = await ingestText(t.pool, batch("a", 120));
  expect([s.ok, s.rejected]).toEqual([true, 0]);
}, 60_000);
afterAll(async () => t?.drop());

describe("a search's match set in one run", () => {
  it("pages and counts every view as the index plan does, and is kept", async () => {
    const cases: [string, (reply: string) => boolean][] = [
      ["退款 -reply:refund", (r) => r.includes("退款") && !r.includes("refund")],
      ["退款", (r) => r.includes("退款")],
      ['"申请已收到"', (r) => r.includes("申请已收到")],
      ["reply:kiwi", (r) => r.includes("kiwi")],
      ["kiwi -reply:a-1002", (r) => r.includes("kiwi") && !r.includes("a-1002")],
      ['"is on its way" a-1006', (r) => r.includes("is on its way") && r.includes("a-1006")],
    ];
    const filters: Record<string, string>[] = [
      {},
      { sort: "reward", dir: "asc" },
      { step_from: "1", step_to: "3" },
      { step_from: "2", step_to: "4", sort: "reward" },
      { handoff: "no", dir: "asc" },
    ];
    for (const [q, test] of cases) {
      const matching = [...replies].filter(([, r]) => test(r)).map(([id]) => id);
      expect(matching.length, q).toBeGreaterThan(0);
      for (const filter of filters) {
        const label = JSON.stringify({ q, ...filter });
        const p = params({ run: RUN, q, ...filter });
        const unfiltered = idsOf(await pages(params({ run: RUN, ...filter })));
        const want = unfiltered.filter((id) => matching.includes(id)).sort();
        const indexed = await pages(p, INDEX);
        expect(idsOf(indexed), label).toEqual(want);
        // gathered at the first page, then kept: every page and cursor the index plan's, and the console's own
        expect(await pages(p, SETS), label).toEqual(indexed);
        expect(await pages(p), label).toEqual(indexed);
        expect(await countLedger(p, { plan: SETS }), label).toEqual({ count: want.length, exact: true });
        expect(await countLedger(p), label).toEqual({ count: want.length, exact: true });
      }
      const set = await kept(q);
      expect(sizeOf(set), q).toBe(matching.length);
    }
  });

  it("gives a browser page's count with its page: the entries read once for both", async () => {
    const p = params({ run: RUN, q: "退款 -reply:refund", sort: "reward", step_from: "1" });
    const want = (await pages(p, INDEX)).flatMap((x) => x.ids);
    expect(want.length).toBeGreaterThan(7);
    const captured = installStatementCapture();
    try {
      for (const kept of [false, true]) {
        const memo = {};
        const first = browseLedger(p, 7, { snippets: false, plan: { ...SETS, memo } });
        await first; // (the count waits for it anyway: read apart, the page's statements are not the count's)
        const count = await capture(() => countLedger(p, { firstPage: first, plan: { ...SETS, memo } }));
        expect(
          (await first).rows.map((r) => r.trajectoryId),
          String(kept),
        ).toEqual(want.slice(0, 7));
        expect(count.result, String(kept)).toEqual({ count: want.length, exact: true });
        // the count read none of the ledger's entries of its own (one word would be looked up as an id; a search
        // with spaces is not)
        const reads = count.statements.filter(planned).map((x) => x.text);
        expect(
          reads.filter((x) => /from ledger l/.test(x)),
          String(kept),
        ).toEqual([]);
      }
    } finally {
      captured.restore();
    }
  });

  it("is read while the run's rollouts are unchanged, and gathered again once a batch adds some", async () => {
    const q = "reply:kiwi";
    const p = params({ run: RUN, q, sort: "reward" });
    const before = idsOf(await pages(p, SETS));
    expect(before.length).toBe(30);
    // a search row changed under the kept set (only a test does: rows are written once): the live index plan no
    // longer finds it, the kept set still does
    const [changed] = await t.pool
      .query<{ trajectory_id: string }>(
        `update rollout_search s set reply = 'changed' from rollouts r
        where s.run_id = $1 and r.run_id = s.run_id and r.id = s.rollout_id and r.trajectory_id = $2
        returning r.trajectory_id`,
        [RUN, `${RUN}/a-2`],
      )
      .then((r) => r.rows);
    expect(changed.trajectory_id).toBe(`${RUN}/a-2`);
    expect(idsOf(await pages(p, INDEX))).toEqual(before.filter((id) => id !== `${RUN}/a-2`));
    expect(idsOf(await pages(p, SETS))).toEqual(before);
    expect(await countLedger(p)).toEqual({ count: 30, exact: true });
    // a batch of the run: its rollouts are found at once, and the set is gathered from the rows as they are now
    const s = await ingestText(t.pool, batch("b", 8));
    expect([s.ok, s.rejected]).toEqual([true, 0]);
    expect(await kept(q)).toBeNull();
    const after = idsOf(await pages(p, SETS));
    expect(after).toEqual(idsOf(await pages(p, INDEX)));
    expect(after).toEqual([...before.filter((id) => id !== `${RUN}/a-2`), `${RUN}/b-2`, `${RUN}/b-6`].sort());
    expect(await countLedger(p)).toEqual({ count: 31, exact: true });
  });

  it("keeps a search's few matches (or that they are many) while the run's rollouts are unchanged", async () => {
    // found first, never walked nor gathered: kept (the default) or found each time
    const FEW: SearchPlan = { walk: 0 };
    const FRESH: SearchPlan = { ...FEW, matchSets: false };
    const words = params({ run: RUN, q: "reply:kiwi" });
    const chinese = params({ run: RUN, q: "退款申请" });
    const [wordsBefore, chineseBefore] = [idsOf(await pages(words, FEW)), idsOf(await pages(chinese, FEW))];
    expect(wordsBefore).toContain(`${RUN}/a-6`);
    expect(chineseBefore).toContain(`${RUN}/a-5`);
    const setReply = (trajectory: string, text: string) =>
      t.pool.query(
        `update rollout_search s set reply = $3 from rollouts r
          where s.run_id = $1 and r.run_id = s.run_id and r.id = s.rollout_id and r.trajectory_id = $2`,
        [RUN, trajectory, text],
      );
    await setReply(`${RUN}/a-6`, "changed");
    await setReply(`${RUN}/a-5`, "changed");
    // the kept few matches still hold the changed rows; found afresh, they do not
    expect(idsOf(await pages(words, FEW))).toEqual(wordsBefore);
    expect(idsOf(await pages(chinese, FEW))).toEqual(chineseBefore);
    expect(idsOf(await pages(words, FRESH))).toEqual(wordsBefore.filter((id) => id !== `${RUN}/a-6`));
    expect(idsOf(await pages(chinese, FRESH))).toEqual(chineseBefore.filter((id) => id !== `${RUN}/a-5`));
    // a batch of the run: found afresh, with its rollouts
    const s = await ingestText(t.pool, batch("c", 4));
    expect([s.ok, s.rejected]).toEqual([true, 0]);
    expect(idsOf(await pages(words, FEW))).toEqual(
      [...wordsBefore.filter((id) => id !== `${RUN}/a-6`), `${RUN}/c-2`].sort(),
    );
    expect(idsOf(await pages(chinese, FEW))).toEqual(
      [...chineseBefore.filter((id) => id !== `${RUN}/a-5`), `${RUN}/c-1`].sort(),
    );
    // more than the few looked for: that is kept too, and the next view of the search walks without asking again
    const many: SearchPlan = { fewRows: 3 };
    const pairReads = async () => {
      const page = await capture(() => browseLedger(chinese, 5, { snippets: false, plan: many }));
      expect(page.result.rows).toHaveLength(5);
      return page.statements.filter(planned).filter((x) => /s\.cjk @>/.test(x.text) && !/exists/.test(x.text)).length;
    };
    const captured = installStatementCapture();
    try {
      expect(await pairReads()).toBe(1);
      expect(await pairReads()).toBe(0);
    } finally {
      captured.restore();
      await setReply(`${RUN}/a-6`, reply("a", 6).toLowerCase());
      await setReply(`${RUN}/a-5`, reply("a", 5).toLowerCase());
    }
  });

  it("reads each of a run's rows for a search with nothing to ask of an index, in a run of 4,096 blocks or fewer", async () => {
    // kiwi in every block, as a frequent word is: the blocks may leave it out (search_omitted_words), so they are not
    // asked for it; the search has no CJK pair either
    const search = { ...parsedSearch("reply:kiwi"), omitted: new Set(["kiwi"]) };
    // (each `max` a set of its own: kept by it, as by the run's rollouts)
    const matchSet = (max: number) => withSearchTimeout(db(), (tx) => runMatchSet(search, RUN, tx, { max }));
    const want = await t.pool.query<{ n: number }>(
      "select count(*)::int as n from rollout_search where run_id = $1 and reply ilike '%kiwi%'",
      [RUN],
    );
    expect(want.rows[0].n).toBeGreaterThan(30);
    expect(sizeOf(await matchSet(1000))).toBe(want.rows[0].n);
    // past 4,096 blocks, the run is not read row by row: the search is answered without a set
    const { rows } = await t.pool.query<{ n: number }>(
      "select count(*)::int as n from rollout_search_blocks where run_id = $1",
      [RUN],
    );
    await t.pool.query(
      `insert into rollout_search_blocks (run_id, first_id, last_id)
       select $1, 1e15::bigint + g * 16, 1e15::bigint + g * 16 + 15 from generate_series(1, $2::int) g`,
      [RUN, 4097 - rows[0].n],
    );
    try {
      expect(await matchSet(999)).toEqual({ over: true });
    } finally {
      await t.pool.query("delete from rollout_search_blocks where run_id = $1 and first_id > 1e15::bigint", [RUN]);
    }
  });

  it("gathers by the blocks' index up to 16,384 blocks: past that, the search is answered without a set", async () => {
    // kiwi not left out of the blocks here: the blocks' index is asked for it
    const search = { ...parsedSearch("reply:kiwi"), omitted: new Set<string>() };
    const matchSet = (max: number) => withSearchTimeout(db(), (tx) => runMatchSet(search, RUN, tx, { max }));
    const want = await t.pool.query<{ n: number }>(
      "select count(*)::int as n from rollout_search where run_id = $1 and reply ilike '%kiwi%'",
      [RUN],
    );
    const { rows } = await t.pool.query<{ n: number }>(
      "select count(*)::int as n from rollout_search_blocks where run_id = $1 and words like '%kiwi%'",
      [RUN],
    );
    // blocks past the run's rollouts that hold the word (no rollouts in them): found by the index, each read by key
    const fake = (n: number) =>
      t.pool.query(
        `insert into rollout_search_blocks (run_id, first_id, last_id, words)
         select $1, 1e15::bigint + g * 16, 1e15::bigint + g * 16 + 15, ' kiwi ' from generate_series(1, $2::int) g
         on conflict do nothing`,
        [RUN, n],
      );
    try {
      await fake(16_384 - rows[0].n);
      // (each `max` a set of its own)
      expect(sizeOf(await matchSet(1001))).toBe(want.rows[0].n);
      await fake(16_385 - rows[0].n);
      expect(await matchSet(1002)).toEqual({ over: true });
    } finally {
      await t.pool.query("delete from rollout_search_blocks where run_id = $1 and first_id > 1e15::bigint", [RUN]);
    }
  });

  it("holds at most its maximum: a search with more matches is answered without one", async () => {
    const search = await loadIndexedSearch(db(), parsedSearch("退款"), [RUN]);
    // as the browser asks: in a search's transaction, which waits for the gathering outside it
    const matchSet = (run: string, max?: number) =>
      withSearchTimeout(db(), (tx) => runMatchSet(search, run, tx, { max }));
    expect(await matchSet(RUN, 10)).toEqual({ over: true });
    const whole = await matchSet(RUN, 1000);
    expect(sizeOf(whole)).toBe([...replies.values()].filter((r) => r.includes("退款")).length);
    expect(await matchSet("no-such-run")).toBeNull();
  });
});
