// Search over rollout_search against a real database: a rollout is found as soon as its ingest answers, by every
// field, in Chinese (two characters, a phrase, mixed with English), with exclusions; LIKE's wildcards in a term are
// text; the migrations fill the rows and the index's blocks of rollouts stored before them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "@/lib/generated/prisma/client.ts";
import { bindDatabase, db } from "@/lib/db/client.ts";
import { migrate, readMigrations } from "@/lib/db/migrate.ts";
import { createScratchDatabase } from "@/lib/testing/scratch-db.ts";
import { call, OTHER, parsedSearch, rollout, RUN, SEARCH_LINES as LINES } from "@/lib/testing/search-data.ts";
import { rolloutLine } from "@/lib/testing/ingest-fixtures.ts";
import { freshDatabase, ingestText, ndjson, type TestDatabase } from "@/lib/testing/ingest-db.ts";
import { caselessRegex, likePattern, searchCondition, searchTextsSql, type SearchTextRow } from "@/lib/search/sql.ts";
import { loadIndexedSearch } from "@/lib/search/data.ts";
import { foldCase } from "@/lib/db/search-tokens.ts";
import pg from "pg";

let t: TestDatabase;

beforeAll(async () => {
  t = await freshDatabase("search");
  await bindDatabase(t.url);
  const s = await ingestText(t.pool, ndjson(LINES));
  if (!s.ok || s.rejected) throw new Error(JSON.stringify(s).slice(0, 400));
});
afterAll(async () => {
  await t?.drop();
});

/** The trajectories of a run whose current entry's rollout matches the search (ledger rows, as the browser reads). */
async function found(text: string, run = RUN): Promise<string[]> {
  const rows = await db().$queryRaw<{ trajectory_id: string }[]>`
    select l.trajectory_id from ledger l
     where l.run_id = ${run} and l.is_current and ${searchCondition(await loadIndexedSearch(db(), parsedSearch(text), [run]), "l")}
     order by l.trajectory_id`;
  return rows.map((r) => r.trajectory_id);
}

describe("searchCondition", () => {
  it("finds a rollout as soon as its ingest has answered, in its own run only", async () => {
    expect(await found('"has been processed"')).toEqual(["s-en-1"]);
    expect(await found('"has been processed"', OTHER)).toEqual(["s-other"]);
  });

  it("is case-insensitive and needs every word", async () => {
    // s-zh-1 by its call of finance.issue_refund
    expect(await found("REFUND")).toEqual(["s-en-1", "s-en-2", "s-zh-1", "s-zh-2"]);
    expect(await found("refund processed")).toEqual(["s-en-1"]);
  });

  it("looks in one field when a term names it", async () => {
    expect(await found("reply:refund")).toEqual(["s-en-1", "s-en-2", "s-zh-2"]);
    expect(await found("ticket:fryer")).toEqual(["s-en-1", "s-en-2"]);
    expect(await found("reply:fryer")).toEqual([]);
    expect(await found("tool:finance.issue_refund")).toEqual(["s-en-1", "s-zh-1"]);
    expect(await found("tool:finance.issue_refund arg:59.99")).toEqual(["s-en-1"]);
    expect(await found('result:"not found"')).toEqual(["s-en-2"]);
    expect(await found("result:DELIVERED")).toEqual(["s-en-1"]);
    expect(await found("arg:delivered")).toEqual([]);
  });

  it("excludes a term, in any field or in one", async () => {
    expect(await found("refund -sorry")).toEqual(["s-en-1", "s-zh-1", "s-zh-2"]);
    expect(await found("refund -ticket:fryer")).toEqual(["s-zh-1", "s-zh-2"]);
    expect(await found("reply:refund -tool:issue_refund")).toEqual(["s-en-2", "s-zh-2"]);
  });

  it("finds Chinese by two characters, by a phrase and mixed with English", async () => {
    expect(await found("退款")).toEqual(["s-zh-1", "s-zh-2"]); // s-zh-2 by its ticket
    expect(await found("reply:退款")).toEqual(["s-zh-1"]);
    expect(await found('"已为您安排退款"')).toEqual(["s-zh-1"]);
    expect(await found("已为您安排退款")).toEqual(["s-zh-1"]);
    expect(await found("arg:商品损坏")).toEqual(["s-zh-1"]);
    expect(await found("退货 refund")).toEqual(["s-zh-2"]);
    expect(await found("安排退货")).toEqual([]); // its pairs are all there, not in that order
  });

  it("takes LIKE's wildcards and backslashes in a term as text", async () => {
    expect(await found("100%_off")).toEqual(["s-en-2"]);
    expect(await found("100%%off")).toEqual([]);
    expect(await found("ord_r")).toEqual([]);
    expect(await found(String.raw`"ord\er"`)).toEqual([]);
  });

  it("finds a phrase that begins and ends inside words, and a part of a word", async () => {
    expect(await found('"s been proc"')).toEqual(["s-en-1"]);
    expect(await found('"fund has been processed and arr"')).toEqual(["s-en-1"]);
    expect(await found("ssue_ref")).toEqual(["s-en-1", "s-zh-1"]);
    expect(await found('"been processed arrives"')).toEqual([]);
    expect(await found('arg:"59.99, "')).toEqual(["s-en-1"]);
  });

  it("finds each rollout of a batch that spans runs and several blocks, and only it", async () => {
    // 40 rollouts in two runs, interleaved in one batch: each run's ids are in blocks of 16, with the other run's
    // ids between them; each rollout has a word of its own
    const lines = Array.from({ length: 40 }, (_, i) =>
      rolloutLine(`blk-${i}`, "T-EN", { run: i % 2 ? "srch-blk-b" : "srch-blk-a", step: 1 }),
    ).map((r) => {
      const o = r as Record<string, unknown> & { trajectory: Record<string, unknown> };
      const n = Number(String(o.trajectory_id).slice(4));
      return { ...o, trajectory: { ...o.trajectory, final_reply: `unique word zq${n}x here` } };
    });
    const s = await ingestText(t.pool, ndjson(lines));
    expect(s).toMatchObject({ ok: true, rejected: 0 });
    for (let i = 0; i < 40; i++) {
      const run = i % 2 ? "srch-blk-b" : "srch-blk-a";
      expect([i, await found(`zq${i}x`, run)]).toEqual([i, [`blk-${i}`]]);
      expect(await found(`zq${i}x`, i % 2 ? "srch-blk-a" : "srch-blk-b")).toEqual([]);
    }
    const blocks = await t.pool.query(
      "select run_id, count(*)::int as n from rollout_search_blocks where run_id like 'srch-blk-%' group by 1 order by 1",
    );
    expect(blocks.rows).toEqual([
      { run_id: "srch-blk-a", n: 2 },
      { run_id: "srch-blk-b", n: 2 },
    ]);
  });

  it("finds a word in one of a rollout's texts, a phrase across two of them, and two Chinese characters only side by side", async () => {
    const run = "srch-fields";
    const ok = (name: string, input: Record<string, unknown>) => [call(name, input, "ok")];
    const s = await ingestText(
      t.pool,
      ndjson([
        // the reply ends where the first tool's name begins: "…we will call order.get …" joined
        rollout("f-1", "T-ZH", "Thanks, we will call", ok("order.get", { order_id: "O-9" }), run),
        // 退 and 款 in the reply, never side by side; 退款 in the arguments only
        rollout("f-2", "T-ZH", "退货。款项已到账", ok("order.get", { note: "退款" }), run),
        rollout("f-3", "T-ZH", "已退货，款项已到账", ok("order.get", { order_id: "O-10" }), run),
      ]),
    );
    expect(s).toMatchObject({ ok: true, rejected: 0 });
    expect(await found('"call order.get"', run)).toEqual(["f-1"]);
    expect(await found("callorder", run)).toEqual([]);
    expect(await found("call -order.get", run)).toEqual([]);
    // the rollouts of T-ZH's ticket (我的空气炸锅坏了，请帮我退款。) all hold 退款 there
    expect(await found("退款", run)).toEqual(["f-1", "f-2", "f-3"]);
    expect(await found("reply:退款", run)).toEqual([]);
    expect(await found("arg:退款", run)).toEqual(["f-2"]);
    expect(await found("货款", run)).toEqual([]);
    expect(await found("已退 -arg:退款", run)).toEqual(["f-3"]);
    expect(await found("退款 -arg:退款", run)).toEqual(["f-1", "f-3"]);
  });

  it("reads the searchable texts of a page's rollouts", async () => {
    const ids = await db().$queryRaw<{ run_id: string; id: bigint }[]>`
      select run_id, id from rollouts where trajectory_id in ('s-zh-1', 's-other') order by trajectory_id desc`;
    const rows = await db().$queryRaw<SearchTextRow[]>(
      searchTextsSql(ids.map((r) => ({ runId: r.run_id, rolloutId: r.id }))),
    );
    const byRun = Object.fromEntries(rows.map((r) => [r.run_id, r]));
    expect(byRun[RUN]).toMatchObject({
      reply: "您好，已为您安排退款，款项将在3-5个工作日内到账。",
      tools: "finance.issue_refund",
      args: '{"note": "退款原因：商品损坏", "amount": 120, "order_id": "O-3"}',
      results: "ok",
      ticket: "我的空气炸锅坏了，请帮我退款。",
    });
    expect(byRun[OTHER].reply).toBe("Your refund has been processed.");
  });
});

/** Queries of every kind, for comparing two databases' answers. */
const QUERIES = [
  '"has been processed"',
  "refund processed",
  "reply:refund",
  "tool:finance.issue_refund arg:59.99",
  "refund -ticket:fryer",
  "退款",
  'reply:"已为您安排退款"',
  "退货 refund",
  "100%_off",
  '"been processed"',
  "ssue_ref",
];

/** The trajectories of `run`'s rollouts that match, in a database reached by `c`. */
async function foundIn(c: pg.Client, text: string, run: string): Promise<string[]> {
  const q = Prisma.sql`select r.trajectory_id from rollouts r
                        where r.run_id = ${run} and ${searchCondition(await loadIndexedSearch(c, parsedSearch(text), [run]), "r", "id")} order by 1`;
  return (await c.query(q.text, q.values)).rows.map((r) => r.trajectory_id);
}

describe("an ASCII term's case-insensitive regular expression", () => {
  it("finds a term in a text exactly where ILIKE does, whatever its characters and the text's capitals", async () => {
    const texts = [
      "Your REFUND has been processed.",
      "İADE talebiniz alındı; KIWI and \u212aelvin", // İ and the Kelvin sign fold to i and k
      "ıade ſtatus", // dotless ı and long ſ do not
      "coupon 100%_off (x.y) [1]{2}*+?|^$ back\\slash",
      "Ärger über die Erstattung",
      "退款 refund 已为您安排退款",
      "line one\nline\ttwo",
    ];
    const terms = [
      "refund",
      "has been PROCESSED",
      "iade",
      "kiwi",
      "kelvin",
      "status",
      "100%_off",
      "x.y",
      "(x.y)",
      "[1]{2}*+?|^$",
      "back\\slash",
      "_",
      "%",
      "\\",
      "erstattung",
      "rger",
      "line\tTWO",
      "ONE\nline",
      "x",
    ];
    const cases = texts.flatMap((text) => terms.map((term) => ({ text, term, regex: caselessRegex(term)! })));
    expect(cases.every((c) => c.regex !== null)).toBe(true);
    const { rows } = await t.pool.query<{ text: string; term: string; ilike: boolean; regex: boolean }>(
      `select c.text, c.term, c.text ilike c.pattern as ilike, c.text ~* c.regex as regex
         from unnest($1::text[], $2::text[], $3::text[], $4::text[]) c(text, term, pattern, regex)`,
      [
        cases.map((c) => c.text),
        cases.map((c) => c.term),
        cases.map((c) => likePattern(c.term)),
        cases.map((c) => c.regex),
      ],
    );
    expect(rows.filter((r) => r.ilike !== r.regex)).toEqual([]);
    // the cases hold matches of each kind, folded and not
    const found = rows.filter((r) => r.regex).map((r) => `${r.term} in ${r.text.slice(0, 12)}`);
    expect(found).toEqual(
      expect.arrayContaining(["iade in İADE talebin", "kelvin in İADE talebin", "has been PROCESSED in Your REFUND "]),
    );
    expect(rows.find((r) => r.term === "status" && r.text.startsWith("ıade"))?.regex).toBe(false);
  });
});

describe("migrations 038 and 042", () => {
  it("fill the searchable texts and the index's blocks of the rollouts stored before them as ingest writes them", async () => {
    const all = readMigrations();
    const scratch = await createScratchDatabase("search_mig");
    const c = new pg.Client({ connectionString: scratch.url });
    const ingested = new pg.Client({ connectionString: t.url });
    await c.connect();
    await ingested.connect();
    try {
      await migrate(scratch.url, { files: all.filter((m) => m.name < "038") });
      await copyRollouts(c);
      await migrate(scratch.url, { files: all });
      const q = Prisma.sql`select r.trajectory_id, s.step, s.reply, s.tools, s.args, s.results, s.ticket, s.cjk
                             from rollout_search s join rollouts r on r.run_id = s.run_id and r.id = s.rollout_id
                            order by r.trajectory_id`;
      const backfilled = (await c.query(q.sql)).rows;
      expect(backfilled.length).toBeGreaterThanOrEqual(LINES.length - 2);
      expect(backfilled).toEqual(await db().$queryRaw<unknown[]>(q));
      // the blocks group the rollouts otherwise (by batch at ingest, by run here): each run's words agree
      const keys = `select run_id, w from rollout_search_blocks, unnest(string_to_array(trim(words), ' ')) w
                    group by 1, 2 order by 1, 2`;
      const migratedKeys = (await c.query(keys)).rows;
      expect(migratedKeys.length).toBeGreaterThan(50);
      expect(migratedKeys).toEqual((await ingested.query(keys)).rows);
      for (const text of QUERIES)
        for (const run of [RUN, OTHER])
          expect([text, run, await foundIn(c, text, run)]).toEqual([text, run, await foundIn(ingested, text, run)]);
      expect(await foundIn(c, "refund", RUN)).not.toEqual([]);
    } finally {
      await c.end();
      await ingested.end();
      await scratch.drop();
    }
  });
});

describe("migration 043", () => {
  it("writes again the CJK pairs a row is missing, and no other row", async () => {
    const c = new pg.Client({ connectionString: t.url });
    await c.connect();
    try {
      const rows = `select r.trajectory_id, s.xmin::text as version, s.cjk
                      from rollout_search s join rollouts r on r.run_id = s.run_id and r.id = s.rollout_id
                     order by r.trajectory_id`;
      const stored = (await c.query(rows)).rows;
      // s-zh-1's row as a console that had searched Chinese text stored it: the pairs at the start of its texts missing
      await c.query(
        `update rollout_search s set cjk = cjk[5:] from rollouts r
          where r.run_id = s.run_id and r.id = s.rollout_id and r.trajectory_id = 's-zh-1'`,
      );
      expect(await found("已为您安排退款")).toEqual([]);
      await c.query(`select verity_repair_search_pairs(id) from "runs"`);
      expect(await found("已为您安排退款")).toEqual(["s-zh-1"]);
      const repaired = (await c.query(rows)).rows;
      expect(repaired.map((r) => [r.trajectory_id, r.cjk])).toEqual(stored.map((r) => [r.trajectory_id, r.cjk]));
      // every other row read, none written
      const written = repaired.filter((r, i) => r.version !== stored[i].version).map((r) => r.trajectory_id);
      expect(written).toEqual(["s-zh-1"]);
    } finally {
      await c.end();
    }
  });
});

describe("migration 044", () => {
  it("folds the case of the blocks stored before it, writes no other block, and a search finds their rollouts again", async () => {
    const c = new pg.Client({ connectionString: t.url });
    await c.connect();
    try {
      const blocks = `select run_id, first_id, xmin::text as version, words from rollout_search_blocks order by 1, 2`;
      const stored = (await c.query(blocks)).rows;
      expect(stored.length).toBeGreaterThan(1);
      expect(stored.every((b) => b.words === b.words.toLowerCase())).toBe(true);
      // s-en-1's block as ingest would have written it before 044 had its texts been in capitals
      const i = stored.findIndex((b) => b.words.includes(" finance.issue_refund ") && b.words.includes("59.99"));
      expect(i).toBeGreaterThanOrEqual(0);
      const { run_id: run, first_id: first } = stored[i];
      await c.query(`update rollout_search_blocks set words = upper(words) where run_id = $1 and first_id = $2`, [
        run,
        first,
      ]);
      const before = (await c.query(blocks)).rows;
      // looked up in lower case, the block is missed: its rollout is not found
      expect(await found("tool:finance.issue_refund arg:59.99")).toEqual([]);
      await c.query(`select verity_fold_search_blocks(id) from "runs"`);
      const folded = (await c.query(blocks)).rows;
      expect(folded.map((b) => b.words)).toEqual(stored.map((b) => b.words));
      const written = folded.filter((b, j) => b.version !== before[j].version).map((b) => b.first_id);
      expect(written).toEqual([first]);
      expect(await found("tool:FINANCE.ISSUE_REFUND Arg:59.99")).toEqual(["s-en-1"]);
    } finally {
      await c.end();
    }
  });

  it("folds case as ingest does: foldCase and PostgreSQL's lower() agree on every letter of the Basic Multilingual Plane", async () => {
    const chars: string[] = [];
    for (let cp = 0x41; cp <= 0xffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const ch = String.fromCodePoint(cp);
      if (ch.toLowerCase() !== ch || ch.toUpperCase() !== ch) chars.push(ch);
    }
    expect(chars.length).toBeGreaterThan(2000);
    const { rows } = await t.pool.query<{ lowered: string[] }>(
      "select array_agg(lower(c)) as lowered from unnest($1::text[]) c",
      [chars],
    );
    const lowered = new Map(chars.map((ch, i) => [ch, rows[0].lowered[i]]));
    const differ = chars.filter((ch) => foldCase(ch) !== lowered.get(ch));
    // the blocks hold foldCase's words and a term is looked up by foldCase: where lower() folds a letter foldCase does
    // not, a block would miss that term; none such here. The other way round (8 letters here, added to Unicode after
    // the server's tables, which foldCase lowers and lower() keeps as written): ingest's blocks hold them lowered, as
    // a search looks them up, but a block that migration 044 folded with lower() keeps them as written, and a search
    // of one of them in capitals misses that block's rollouts (docs/search.md).
    expect(differ.filter((ch) => lowered.get(ch) !== ch && foldCase(ch) === ch)).toEqual([]);
    expect(differ.length).toBeLessThan(50);
  });
});

/** The test database's cases and rollouts, copied as they are stored into a database without rollout_search. */
async function copyRollouts(c: pg.Client): Promise<void> {
  const cases = await t.pool.query(
    "select ticket_id, category, customer_id, ticket::text, env_snapshot::text, verifier_spec::text, content_hash from cases",
  );
  for (const r of cases.rows)
    await c.query(
      "insert into cases (ticket_id, category, customer_id, ticket, env_snapshot, verifier_spec, content_hash) values ($1, $2, $3, $4, $5, $6, $7)",
      Object.values(r),
    );
  await c.query("insert into tool_registries (hash, tools) values ('h', '[]')");
  const rollouts = await t.pool.query(
    "select trajectory_id, run_id, step, group_id, sample_index, ticket_id, steps::text, final_reply, sandbox::text, tool_steps, content_hash from rollouts",
  );
  for (const r of rollouts.rows) {
    await c.query("insert into runs (id) values ($1) on conflict do nothing", [r.run_id]);
    await c.query(
      `insert into rollouts (trajectory_id, run_id, step, group_id, sample_index, ticket_id, steps, final_reply, sandbox,
                             tool_steps, content_hash, registry_id)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, (select id from tool_registries))`,
      Object.values(r),
    );
  }
}
