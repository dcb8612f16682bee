import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client.ts";
import { Prisma } from "@/lib/generated/prisma/client.ts";
import { findSavedSearch, listSavedSearches, stepShares } from "@/lib/saved-searches/data.ts";
import { loadSearchCount } from "@/lib/saved-searches/loaders.ts";
import { createSavedSearch, deleteSavedSearch, renameSavedSearch } from "@/lib/saved-searches/mutations.ts";
import { savedSearchInput } from "@/lib/saved-searches/schema.ts";
import { parsedSearch } from "@/lib/testing/search-data.ts";
import { makeUsers, seedRun, uniqueName } from "@/lib/testing/audit-data.ts";

const url = process.env.DATABASE_URL!;

async function twoUsers() {
  const [a, b] = await makeUsers(db(), 2, "lead");
  return { a: a.userId, b: b.userId };
}

const input = (over: Record<string, unknown> = {}) =>
  savedSearchInput.parse({ name: "refunds", query: '"has been processed"', ...over });

describe("saved searches", () => {
  it("are created, listed, renamed and deleted by their owner", async () => {
    const { a } = await twoUsers();
    const runId = uniqueName("saved-run");
    await seedRun(url, { runId, tickets: 1 });
    const global = await createSavedSearch(a, input());
    const scoped = await createSavedSearch(
      a,
      input({ name: "closes", query: "tool:ticket.close", runId, alarmShare: "0.2" }),
    );
    if (!global.ok || !scoped.ok) throw new Error("not saved");
    expect((await listSavedSearches(a)).map((s) => [s.name, s.query, s.runId, s.alarmShare])).toEqual([
      ["closes", "tool:ticket.close", runId, 0.2],
      ["refunds", '"has been processed"', null, null],
    ]);
    // a run's list: the global search and the run's own, not another run's
    expect((await listSavedSearches(a, { runId: "another-run" })).map((s) => s.name)).toEqual(["refunds"]);
    expect((await listSavedSearches(a, { runId })).map((s) => s.name)).toEqual(["closes", "refunds"]);

    expect(await createSavedSearch(a, input())).toEqual({
      ok: false,
      field: "name",
      error: 'You already have a saved search named "refunds": pick another name.',
    });
    expect(await renameSavedSearch(a, global.id, "closes")).toMatchObject({ ok: false, field: "name" });
    expect(await renameSavedSearch(a, global.id, "processed refunds")).toEqual({ ok: true });
    expect((await findSavedSearch(a, global.id))?.name).toBe("processed refunds");
    expect(await deleteSavedSearch(a, global.id)).toEqual({ ok: true });
    expect(await findSavedSearch(a, global.id)).toBeNull();
    expect(await createSavedSearch(a, input({ runId: "no-such-run" }))).toEqual({
      ok: false,
      field: "runId",
      error: "No run no-such-run.",
    });
  });

  it("are their owner's only: another user neither lists, reads, counts, renames nor deletes them", async () => {
    const { a, b } = await twoUsers();
    const runId = uniqueName("saved-iso");
    await seedRun(url, { runId, tickets: 2 });
    const mine = await createSavedSearch(a, input());
    if (!mine.ok) throw new Error(mine.error);
    expect(await listSavedSearches(b)).toEqual([]);
    expect(await findSavedSearch(b, mine.id)).toBeNull();
    expect(await loadSearchCount(b, mine.id, runId)).toBeNull();
    expect(await renameSavedSearch(b, mine.id, "stolen")).toEqual({
      ok: false,
      field: "id",
      error: `You have no saved search ${mine.id}.`,
    });
    expect(await deleteSavedSearch(b, mine.id)).toMatchObject({ ok: false, field: "id" });
    expect((await findSavedSearch(a, mine.id))?.name).toBe("refunds");
    // the same name is free for another user
    expect(await createSavedSearch(b, input())).toMatchObject({ ok: true });
  });

  it("refuse a query the search box would refuse, naming where", () => {
    const errors = (query: string, name = "x") => {
      const r = savedSearchInput.safeParse({ name, query });
      return r.success ? null : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    };
    expect(errors('refund "has been')).toEqual(["query: this quote is never closed (at character 8)"]);
    expect(errors("nope:refund")?.[0]).toMatch(/^query: unknown field "nope:".*\(at character 1\)$/);
    expect(errors("")?.[0]).toMatch(/^query: the search is empty/);
    expect(errors("refund", " ")).toEqual(["name: Name the search."]);
    expect(savedSearchInput.safeParse({ name: "x", query: "refund", alarmShare: "5" }).success).toBe(false);
    expect(savedSearchInput.parse({ name: " x ", query: " refund  ", alarmShare: "" })).toEqual({
      name: "x",
      query: "refund",
    });
  });
});

describe("a saved search's share per step", () => {
  it("equals a plain count of the run's current entries whose rollout calls the tool, per step", async () => {
    const runId = uniqueName("share-run");
    // step 10: every 4th ticket's rollouts close the ticket (empty promises); step 20: every other ticket's
    await seedRun(url, {
      runId,
      tickets: 16,
      perTicket: 2,
      step: 10,
      variant: (i) => (i % 4 === 0 ? "empty_promise" : "honest"),
    });
    await seedRun(url, {
      runId,
      tickets: 10,
      perTicket: 1,
      step: 20,
      variant: (i) => (i % 2 === 0 ? "empty_promise" : "honest"),
    });
    const closes = parsedSearch("tool:ticket.close");
    const r = await stepShares(closes, runId, {}, db());
    if (!r.ok) throw new Error(r.error);
    const plain = await db().$queryRaw<{ step: number; rollouts: bigint; matches: bigint }[]>(Prisma.sql`
      select l.step, count(*) as rollouts,
             count(*) filter (where r.steps::text like '%"ticket.close"%') as matches
        from ledger l join rollouts r on r.run_id = l.run_id and r.id = l.rollout_id
       where l.run_id = ${runId} and l.is_current group by l.step order by l.step`);
    const expected = plain.map((p) => ({ step: p.step, rollouts: Number(p.rollouts), matches: Number(p.matches) }));
    expect(expected).toEqual([
      { step: 10, rollouts: 32, matches: 8 },
      { step: 20, rollouts: 10, matches: 5 },
    ]);
    expect(r.steps).toEqual(expected);
    // a window of steps counts only its steps
    const late = await stepShares(closes, runId, { from: 15 }, db());
    expect(late).toEqual({ ok: true, steps: [{ step: 20, rollouts: 10, matches: 5 }] });
  });
});
