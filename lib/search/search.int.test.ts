// Search over rollout_search against a real database: a rollout is found as soon as its ingest answers, by every
// field, in Chinese (two characters, a phrase, mixed with English), with exclusions; LIKE's wildcards in a term are
// text; the migration fills the rows of rollouts stored before it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "@/lib/generated/prisma/client.ts";
import { bindDatabase, db } from "@/lib/db/client.ts";
import { migrate, readMigrations } from "@/lib/db/migrate.ts";
import { createScratchDatabase } from "@/lib/testing/scratch-db.ts";
import { OTHER, RUN, SEARCH_LINES as LINES } from "@/lib/testing/search-data.ts";
import { freshDatabase, ingestText, ndjson, type TestDatabase } from "@/lib/testing/ingest-db.ts";
import { parseSearch } from "@/lib/search/parse.ts";
import { searchCondition, searchTextsSql, type SearchTextRow } from "@/lib/search/sql.ts";
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
  const p = parseSearch(text);
  if (!p.ok) throw new Error(p.error);
  const rows = await db().$queryRaw<{ trajectory_id: string }[]>`
    select l.trajectory_id from ledger l
     where l.run_id = ${run} and l.is_current and ${searchCondition(p.query, "l")}
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

describe("migration 038", () => {
  it("fills the searchable texts of the rollouts stored before it as ingest writes them", async () => {
    const all = readMigrations();
    const scratch = await createScratchDatabase("search_mig");
    const c = new pg.Client({ connectionString: scratch.url });
    await c.connect();
    try {
      await migrate(scratch.url, { files: all.filter((m) => m.name < "038") });
      await copyRollouts(c);
      await migrate(scratch.url, { files: all });
      const q = Prisma.sql`select r.trajectory_id, s.step, s.reply, s.tools, s.args, s.results, s.ticket, s.cjk
                             from rollout_search s join rollouts r on r.run_id = s.run_id and r.id = s.rollout_id
                            order by r.trajectory_id`;
      const backfilled = (await c.query(q.sql)).rows;
      const ingested = await db().$queryRaw<unknown[]>(q);
      expect(backfilled).toHaveLength(LINES.length - 2);
      expect(backfilled).toEqual(ingested);
    } finally {
      await c.end();
      await scratch.drop();
    }
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
