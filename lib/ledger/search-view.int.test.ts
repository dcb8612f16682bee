// A search's count of a view of one run, kept while the run's entries and rollouts are unchanged
// (lib/ledger/search-view-data.ts), against a real ledger: a change made under it without a writer (only a test does
// that) is not seen while it is kept, a view filtered by the shadow audit is counted afresh, and every writer of the
// run — a re-score superseding its entries, an ingest batch adding rollouts — makes the next count a fresh one.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bindDatabase } from "@/lib/db/client.ts";
import { browseLedger, countLedger, type SearchPlan } from "@/lib/ledger/browse.ts";
import { capture, installStatementCapture } from "@/lib/testing/capture-statements.ts";
import { keptSearchCount } from "@/lib/ledger/search-view-data.ts";
import { parseBrowseParams, type BrowseParams } from "@/lib/ledger/browse-schema.ts";
import { freshDatabase, ingestText, ndjson, type TestDatabase } from "@/lib/testing/ingest-db.ts";
import { caseLine, rolloutLine } from "@/lib/testing/ingest-fixtures.ts";
import { rescoreRun } from "@/lib/ledger/mutations.ts";
import { parseVerifierConfig } from "@/lib/verifier/config.ts";

const RUN = "count-run";
let t: TestDatabase;

/** A batch of `n` rollouts from `from` on: kiwi in the replies of the even ones. */
function batch(from: number, n: number): string {
  const lines: unknown[] = [caseLine("T-CNT")];
  for (let i = from; i < from + n; i++) {
    const r = rolloutLine(`${RUN}/${i}`, "T-CNT", { run: RUN, step: 1 }) as Record<string, unknown> & {
      trajectory: Record<string, unknown>;
    };
    const reply = i % 2 === 0 ? `Your kiwi order ${i} is on its way` : `Nothing yet on ${i}`;
    lines.push({ ...r, trajectory: { ...r.trajectory, final_reply: reply } });
  }
  return ndjson(lines);
}

function params(q: Record<string, string>): BrowseParams {
  const r = parseBrowseParams(q);
  if (!r.ok) throw new Error(r.errors.join("; "));
  return r.params;
}

/** The same count, counted afresh: a count with any setting of its own is never kept (nor read from a match set). */
const fresh = (p: BrowseParams) => countLedger(p, { searchBudgetMs: 60_000, plan: { matchSets: false } });

/** Sets a rollout's reply in its search row without a writer (what no product path does: rows are written once). */
async function setReplyUnderneath(trajectory: string, reply: string) {
  const r = await t.pool.query(
    `update rollout_search s set reply = $3 from rollouts r
      where s.run_id = $1 and r.run_id = s.run_id and r.id = s.rollout_id and r.trajectory_id = $2`,
    [RUN, trajectory, reply],
  );
  expect(r.rowCount).toBe(1);
}

beforeAll(async () => {
  t = await freshDatabase("search_counts");
  await bindDatabase(t.url);
  const s = await ingestText(t.pool, batch(0, 40));
  expect([s.ok, s.rejected]).toEqual([true, 0]);
}, 60_000);
afterAll(async () => t?.drop());

describe("a search's count of a view of one run", () => {
  const low = params({ run: RUN, q: "reply:kiwi", reward_max: "0.2" });
  const all = params({ run: RUN, q: "reply:kiwi" });

  it("is kept while the run's entries and rollouts are unchanged, whatever the view's order or page", async () => {
    expect(await countLedger(all)).toEqual({ count: 20, exact: true });
    await setReplyUnderneath(`${RUN}/4`, "changed");
    try {
      // kept (no writer raised the run's ids), while counted afresh it holds the change
      expect(await countLedger(all)).toEqual({ count: 20, exact: true });
      expect(await countLedger({ ...all, sort: "reward", dir: "asc" })).toEqual({ count: 20, exact: true });
      expect(await fresh(all)).toEqual({ count: 19, exact: true });
    } finally {
      await setReplyUnderneath(`${RUN}/4`, `Your kiwi order 4 is on its way`);
    }
  });

  it("is never kept for a view filtered by the shadow audit", async () => {
    let counted = 0;
    const count = async () => ({ count: ++counted, exact: true });
    const run = { ...all, run: RUN };
    for (const p of [
      { ...run, sampled: "no" as const },
      { ...run, reviewed: "yes" as const },
    ]) {
      const first = await keptSearchCount(p, count);
      expect((await keptSearchCount(p, count)).count).toBe(first.count + 1);
    }
    const kept = await keptSearchCount({ ...run, category: ["refund"] }, count);
    expect(await keptSearchCount({ ...run, category: ["refund"] }, count)).toEqual(kept);
  });

  it("keeps a page's order read from a match set: later pages read their entries by id, until a writer comes", async () => {
    const p = params({ run: RUN, q: "reply:kiwi", sort: "reward", dir: "asc", step_from: "1" });
    const sets: SearchPlan = { walk: 0, fewBlocks: 0, fewRows: 0 };
    /** Every page, 6 rows each, as `plan` says: the rows' ids, and whether each page read the view's order. */
    const pages = async (plan: SearchPlan) => {
      const ids: string[][] = [];
      const orderRead: boolean[] = [];
      const fingerprintReads: number[] = [];
      for (let after: string | undefined; ;) {
        const page = await capture(() => browseLedger({ ...p, after }, 6, { snippets: false, plan }));
        ids.push(page.result.rows.map((r) => r.id));
        orderRead.push(page.statements.some((x) => /array_agg\(l\.id/.test(x.text)));
        fingerprintReads.push(page.statements.filter((x) => /max\(r\.id\)/.test(x.text)).length);
        if (!page.result.nextCursor) return { ids, orderRead, fingerprintReads };
        after = page.result.nextCursor;
      }
    };
    const captured = installStatementCapture();
    try {
      const indexed = await pages({ ...sets, matchSets: false });
      expect(indexed.ids.length).toBeGreaterThan(2);
      expect(indexed.orderRead.every((x) => !x)).toBe(true);
      // the first page reads the order, every later one (and the same view again) the kept one
      const first = await pages(sets);
      expect(first.ids).toEqual(indexed.ids);
      expect(first.orderRead).toEqual(first.ids.map((_, i) => i === 0));
      const again = await pages(sets);
      expect(again.ids).toEqual(indexed.ids);
      expect(again.orderRead.every((x) => !x)).toBe(true);
      // the run's fingerprint read once a page, for the set and the order kept with it
      expect(again.fingerprintReads.every((n) => n === 1)).toBe(true);
      // the other direction is an order of its own
      const desc = await capture(() => browseLedger({ ...p, dir: "desc" }, 6, { snippets: false, plan: sets }));
      expect(desc.statements.some((x) => /array_agg\(l\.id/.test(x.text))).toBe(true);
      // a writer of the run: read again, with its rollouts
      const b = await ingestText(t.pool, batch(100, 4));
      expect([b.ok, b.rejected]).toEqual([true, 0]);
      const after = await pages(sets);
      expect(after.orderRead[0]).toBe(true);
      expect(after.ids).toEqual((await pages({ ...sets, matchSets: false })).ids);
      expect(after.ids.flat().length).toBe(indexed.ids.flat().length + 2);
    } finally {
      captured.restore();
    }
  });

  it("is counted afresh once a re-score supersedes the run's entries, or a batch adds rollouts", async () => {
    let counted = 0;
    const count = async () => ({ count: ++counted, exact: true });
    // a view of its own (no count of it kept before)
    const p = { ...all, run: RUN, category: ["rescore-probe"] };
    expect(await keptSearchCount(p, count)).toEqual({ count: 1, exact: true });
    expect(await keptSearchCount(p, count)).toEqual({ count: 1, exact: true });
    // a writer of the run's entries: every entry re-issued under another verifier config
    const config = parseVerifierConfig({ guardrails: { unauthorized_write: { cap: 0.5 } } });
    if (!config.ok) throw new Error("bad config");
    const r = await rescoreRun(t.pool, { runId: RUN, config: config.config, batchSize: 25 });
    expect(r.rescored).toBe(44);
    expect(await keptSearchCount(p, count)).toEqual({ count: 2, exact: true });
    expect(await keptSearchCount(p, count)).toEqual({ count: 2, exact: true });
    // a batch of the run: its rollouts are counted at once
    const b = await ingestText(t.pool, batch(40, 10));
    expect([b.ok, b.rejected]).toEqual([true, 0]);
    expect(await keptSearchCount(p, count)).toEqual({ count: 3, exact: true });
    expect(await countLedger(all)).toEqual({ count: 27, exact: true });
    expect(await countLedger(low)).toEqual(await fresh(low));
  });
});
