// The words a run's search blocks leave out (search_omitted_words, migration 046): ingest lists the words in more
// than half of a batch's blocks and writes the run's blocks without them; a search reads the list and asks the
// blocks only for what no listed word could hold. Two batches of one run against a real ledger: what is listed when,
// what the blocks hold, every search's matches against the replies as written (page by page and counted, found first
// and not), what a search that ignored the list would miss, and the list gone with its run's archive.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "@/lib/generated/prisma/client.ts";
import { bindDatabase, db } from "@/lib/db/client.ts";
import { browseLedger, countLedger, type BrowseRow, type SearchPlan } from "@/lib/ledger/browse.ts";
import { parseBrowseParams, type BrowseParams } from "@/lib/ledger/browse-schema.ts";
import { archiveRun } from "@/lib/runs/archive.ts";
import { loadIndexedSearch } from "@/lib/search/data.ts";
import { searchCondition } from "@/lib/search/sql.ts";
import { OMIT_MIN_BLOCKS, SEARCH_BLOCK_ROWS } from "@/lib/ledger/store/search-rows.ts";
import { freshDatabase, ingestText, ndjson, type TestDatabase } from "@/lib/testing/ingest-db.ts";
import { caseLine, rolloutLine } from "@/lib/testing/ingest-fixtures.ts";
import { parsedSearch } from "@/lib/testing/search-data.ts";

const RUN = "omit-run";
const N = 40 * SEARCH_BLOCK_ROWS; // 640 rollouts a batch: 40 blocks, past OMIT_MIN_BLOCKS
let t: TestDatabase;

/**
 * Batch a's replies: kiwi in its first 160 rollouts (10 of its 40 blocks: not common), the phrase in every third
 * (every block: common), a code of its own in each. Batch b's: kiwi in every one (common there).
 */
const reply = (batch: "a" | "b", i: number) =>
  `Reply ${batch}-${1000 + i} ${batch === "b" || i < 160 ? "kiwi " : ""}${i % 3 === 0 ? "your refund has been processed" : "nothing yet"}`;
const replies = new Map<string, string>();

function batch(name: "a" | "b"): string {
  const lines: unknown[] = [caseLine("T-OMIT")];
  for (let i = 0; i < N; i++) {
    const id = `${RUN}/${name}-${i}`;
    const r = rolloutLine(id, "T-OMIT", { run: RUN, step: name === "a" ? 1 : 2 }) as Record<string, unknown> & {
      trajectory: Record<string, unknown>;
    };
    replies.set(id, reply(name, i).toLowerCase());
    lines.push({ ...r, trajectory: { ...r.trajectory, final_reply: reply(name, i) } });
  }
  return ndjson(lines);
}

async function listed(): Promise<string[]> {
  const rows = await db().$queryRaw<{ word: string }[]>`
    select word from search_omitted_words where run_id = ${RUN} order by word`;
  return rows.map((r) => r.word);
}

/** The first ids of the run's blocks that hold a word (as written, between spaces). */
async function blocksHolding(word: string): Promise<bigint[]> {
  const rows = await db().$queryRaw<{ first_id: bigint }[]>`
    select first_id from rollout_search_blocks where run_id = ${RUN} and words like ${`% ${word} %`} order by 1`;
  return rows.map((r) => r.first_id);
}

function params(q: Record<string, string>): BrowseParams {
  const r = parseBrowseParams(q);
  if (!r.ok) throw new Error(r.errors.join("; "));
  return r.params;
}

/** Every row of a view, 100 a page, as `plan` says. */
async function all(p: BrowseParams, plan?: SearchPlan): Promise<BrowseRow[]> {
  const out: BrowseRow[] = [];
  for (let after: string | undefined; ;) {
    const page = await browseLedger({ ...p, after }, 100, { snippets: false, plan });
    out.push(...page.rows);
    if (!page.nextCursor) return out;
    after = page.nextCursor;
  }
}

beforeAll(async () => {
  t = await freshDatabase("omitted_words");
  await bindDatabase(t.url);
  expect(N / SEARCH_BLOCK_ROWS).toBeGreaterThanOrEqual(OMIT_MIN_BLOCKS);
}, 60_000);
afterAll(async () => t?.drop());

describe("the words a run's blocks leave out", () => {
  it("are those of more than half of a batch's blocks, and no block written since holds them", async () => {
    const s = await ingestText(t.pool, batch("a"));
    expect([s.ok, s.rejected]).toEqual([true, 0]);
    const words = await listed();
    for (const w of ["your", "refund", "has", "been", "processed", "nothing", "yet", "reply"])
      expect(words, w).toContain(w);
    // kiwi is in a quarter of the blocks, each code in one
    expect(words).not.toContain("kiwi");
    expect(words).not.toContain("a-1007");
    for (const w of words) expect(await blocksHolding(w), w).toEqual([]);
    expect(await blocksHolding("kiwi")).toHaveLength(10);
    expect(await blocksHolding("a-1007")).toHaveLength(1);
  });

  it("only grow: a later batch lists its own, and the blocks written before keep them", async () => {
    const before = await listed();
    const s = await ingestText(t.pool, batch("b"));
    expect([s.ok, s.rejected]).toEqual([true, 0]);
    const words = await listed();
    expect(words).toEqual(expect.arrayContaining(before));
    expect(words).toContain("kiwi");
    // batch a's ten blocks with kiwi still hold it; none of batch b's does
    expect(await blocksHolding("kiwi")).toHaveLength(10);
    const { rows } = await t.pool.query("select count(*)::int as n from rollout_search_blocks where run_id = $1", [
      RUN,
    ]);
    expect(rows[0].n).toBe(80);
  });

  it("leave every search whole: its matches are the rollouts whose replies hold its terms, paged and counted", async () => {
    const expected = (test: (reply: string) => boolean) =>
      [...replies]
        .filter(([, r]) => test(r))
        .map(([id]) => id)
        .sort();
    const cases: [string, (reply: string) => boolean][] = [
      ["reply:kiwi", (r) => r.includes("kiwi")],
      ["reply:kiwi reply:a-1015", (r) => r.includes("kiwi") && r.includes("a-1015")],
      [
        'reply:"refund has been processed" reply:b-1006',
        (r) => r.includes("refund has been processed") && r.includes("b-1006"),
      ],
      ['reply:"refund has been processed"', (r) => r.includes("refund has been processed")],
      ["reply:kiwi -reply:processed", (r) => r.includes("kiwi") && !r.includes("processed")],
      ["reply:a-1301 reply:nothing", (r) => r.includes("a-1301") && r.includes("nothing")],
    ];
    for (const [q, test] of cases) {
      const want = expected(test);
      expect(want.length, q).toBeGreaterThan(0);
      const p = params({ run: RUN, q });
      expect((await all(p)).map((r) => r.trajectoryId).sort(), q).toEqual(want);
      // not found first: walked in the browser's order, then the index plan
      const notFirst = { fewBlocks: 0, fewRows: 0 };
      expect((await all(p, notFirst)).map((r) => r.trajectoryId).sort(), q).toEqual(want);
      expect(await countLedger(p), q).toEqual({ count: want.length, exact: true });
      expect(await countLedger(p, { plan: notFirst }), q).toEqual({ count: want.length, exact: true });
    }
  });

  it("are what keeps them whole: the blocks asked for a listed word miss the rollouts written since it was listed", async () => {
    const count = async (omitted: ReadonlySet<string>) => {
      const query = { ...parsedSearch("reply:kiwi"), omitted };
      const [row] = await db().$queryRaw<{ n: number }[]>`
        select count(*)::int as n from ledger l where l.run_id = ${RUN} and l.is_current and ${searchCondition(query, "l")}`;
      return row.n;
    };
    const loaded = await loadIndexedSearch(db(), parsedSearch("reply:kiwi"), [RUN]);
    expect(loaded.omitted.has("kiwi")).toBe(true);
    expect(await count(loaded.omitted)).toBe(160 + N);
    // as a search that ignored the list: batch a's 160 only
    expect(await count(new Set())).toBe(160);
    // across runs (no run named), every run's list is read
    const everyRun = await loadIndexedSearch(db(), parsedSearch("reply:kiwi"), null);
    expect(everyRun.omitted).toEqual(loaded.omitted);
    // a search the blocks are not asked for reads no list
    expect((await loadIndexedSearch(db(), parsedSearch("退款 -kiwi"), [RUN])).omitted.size).toBe(0);
  });

  it("go with their run's archive", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "omit-archive-"));
    try {
      await archiveRun(t.pool, RUN, path.join(dir, "run.ndjson"));
      expect(await listed()).toEqual([]);
      const [row] = await db().$queryRaw<{ n: number }[]>(
        Prisma.sql`select count(*)::int as n from runs where id = ${RUN}`,
      );
      expect(row.n).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
