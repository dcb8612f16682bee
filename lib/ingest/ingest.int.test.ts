import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { caseLine, externalScore, rolloutLine } from "@/lib/testing/ingest-fixtures.ts";
import { ingestStream } from "@/lib/ingest/ingest.ts";
import {
  chunked,
  count,
  freshDatabase,
  ingestText,
  ledgerPicture,
  ndjson,
  type TestDatabase,
} from "@/lib/testing/ingest-db.ts";
import { rollupDifferences } from "@/lib/rollups/compare.ts";
import { computeStepRollupsFromLedger, listStepRollups } from "@/lib/rollups/data.ts";
import { createClient } from "@/lib/db/client.ts";
import { caseSchema, rolloutSchema } from "@/lib/verifier/schema.ts";
import { scoreRollout } from "@/lib/verifier/score.ts";
import { ON_CITUS } from "@/lib/testing/scratch-db.ts";

let t: TestDatabase;
beforeAll(async () => {
  t = await freshDatabase("ingest");
});
afterAll(async () => t?.drop());

/** A verifier record computed elsewhere (here: by the verifier itself) for a rollout Verity never sees. */
function verifierRecord(trajectoryId: string, ticketId: string) {
  const r = rolloutSchema.parse(rolloutLine(trajectoryId, ticketId, { example: "02" }));
  return scoreRollout(r, caseSchema.parse(caseLine(ticketId, "02")));
}

function withReply(r: Record<string, unknown>, reply: string) {
  return { ...r, trajectory: { ...(r.trajectory as object), final_reply: reply } };
}

describe("ingest of a mixed body", () => {
  const body = ndjson([
    caseLine("T-A"),
    rolloutLine("a/1", "T-A"), // case known earlier in the body: scored on the way in
    rolloutLine("a/2", "T-NOCASE"), // no case: stored, waits for one
    externalScore("a/2", "T-NOCASE", 0.7, { guardrails: ["empty_promise"] }),
    verifierRecord("a/3", "T-V"), // a record without its rollout: stored as given
    { ...rolloutLine("a/4", "T-B", { example: "06" }), case: caseLine("T-B", "06") }, // embedded case
    rolloutLine("a/5", "T-LATE"),
    caseLine("T-LATE"), // arrives after its rollout: that rollout is not scored
    externalScore("a/6", "T-A", 0.4, { run: "run-b", step: 3 }),
  ]);

  it("stores cases, scores rollouts with a known case and stores score records as given", async () => {
    const s = await ingestText(t.pool, body);
    expect(s).toMatchObject({
      ok: true,
      lines: 9,
      accepted: 9,
      unchanged: 0,
      rejected: 0,
      scored: 2,
      unscored: 1,
      last_committed_line: 9,
    });
    expect(s.by_kind).toEqual({
      case: { accepted: 3, unchanged: 0 },
      rollout: { accepted: 4, unchanged: 0 },
      score: { accepted: 3, unchanged: 0 },
    });

    const rows = await ledgerPicture(t.pool, "run-a");
    const by = Object.fromEntries(rows.map((r) => [r.trajectory_id, r]));
    expect(Object.keys(by).sort()).toEqual(["a/1", "a/2", "a/3", "a/4"]);
    expect(by["a/1"]).toMatchObject({
      source: "verifier",
      status: "scored",
      reward: 1,
      category: "refund_damaged",
      claims_source: "bundle",
    });
    expect(by["a/4"]).toMatchObject({
      source: "verifier",
      reward: 0.55,
      deciding_guardrail: "missing_evidence",
      guardrail_mask: 1 << 5,
    });
    expect(by["a/2"]).toMatchObject({
      source: "external",
      reward: 0.7,
      raw_reward: 0.8,
      capped: true,
      deciding_guardrail: "empty_promise",
      category: null,
    });
    expect(by["a/2"].narrow_guardrails).toEqual([{ code: "empty_promise", cap: 0.35, deciding: true }]);
    expect(by["a/3"]).toMatchObject({ source: "verifier", reward: 0.2, deciding_guardrail: "empty_promise" });
    expect((by["a/3"].narrow_reasons as unknown[]).length).toBeGreaterThan(0);

    const links = await t.pool.query(
      "select l.trajectory_id, r.trajectory_id as rollout from ledger l left join rollouts r on r.run_id = l.run_id and r.id = l.rollout_id where l.run_id = 'run-a' order by 1",
    );
    expect(links.rows).toEqual([
      { trajectory_id: "a/1", rollout: "a/1" },
      { trajectory_id: "a/2", rollout: "a/2" },
      { trajectory_id: "a/3", rollout: null },
      { trajectory_id: "a/4", rollout: "a/4" },
    ]);
    expect(await count(t.pool, "select 1 from rollouts where trajectory_id = 'a/5'")).toBe(1);
    expect(await count(t.pool, "select 1 from ledger where trajectory_id = 'a/5'")).toBe(0);
    expect(await count(t.pool, "select 1 from runs where id in ('run-a', 'run-b')")).toBe(2);
  });

  it("is a no-op when the same lines are sent again", async () => {
    const before = await ledgerPicture(t.pool, "run-a");
    const rollups = await listStepRollups("run-a", {}, createClient(t.url));
    const s = await ingestText(t.pool, body, { batchLines: 3 });
    expect(s).toMatchObject({ ok: true, accepted: 0, unchanged: 9, rejected: 0, scored: 0 });
    expect(await ledgerPicture(t.pool, "run-a")).toEqual(before);
    expect(await listStepRollups("run-a", {}, createClient(t.url))).toEqual(rollups);
  });

  it("leaves a rollout stored before its case unscored when it is sent again (rescore scores it)", async () => {
    const s = await ingestText(t.pool, ndjson([rolloutLine("a/5", "T-LATE")]));
    expect(s).toMatchObject({ accepted: 0, unchanged: 1, scored: 0 });
    expect(await count(t.pool, "select 1 from ledger where trajectory_id = 'a/5'")).toBe(0);
  });

  it("keeps the rollups equal to a recomputation from the ledger", async () => {
    const client = createClient(t.url);
    for (const run of ["run-a", "run-b"]) {
      expect(
        rollupDifferences(await listStepRollups(run, {}, client), await computeStepRollupsFromLedger(run, client)),
      ).toEqual([]);
    }
  });
});

describe("rejected lines", () => {
  it("reports every kind of bad line with its line number, path and message, and stores the rest", async () => {
    await ingestText(t.pool, ndjson([caseLine("T-R"), rolloutLine("r/1", "T-R"), externalScore("r/9", "T-R", 0.5)]));
    const lines = [
      "{not json", // 1
      "[1, 2]", // 2
      JSON.stringify({ ticket_id: "T-R" }), // 3 no kind
      JSON.stringify({ kind: "review" }), // 4
      JSON.stringify({ ...rolloutLine("r/2", "T-R"), step: "twelve" }), // 5
      JSON.stringify({ ...rolloutLine("r/3", "T-R"), stepp: 4 }), // 6 unknown top-level field
      JSON.stringify(rolloutLine("r/4", "T-R", { example: "01" })).replace('"status":"success"', '"status":"done"'), // 7 nested path
      JSON.stringify({ ...caseLine("T-R"), env_snapshot: { order: { id: "O-2" } } }), // 8 case conflict
      JSON.stringify(withReply(rolloutLine("r/1", "T-R"), "changed")), // 9 rollout conflict
      JSON.stringify(externalScore("r/9", "T-R", 0.6)), // 10 score conflict
      JSON.stringify(externalScore("r/1", "T-OTHER", 0.6)), // 11 identity does not match the stored rollout
      JSON.stringify(withReply(rolloutLine("r/5", "T-R"), "nul \u0000 here")), // 12
      JSON.stringify({ ...externalScore("r/6", "T-R", 1.5) }), // 13 reward out of range
      JSON.stringify(rolloutLine("r/7", "T-R", { step: 3_000_000_000 })), // 14 past the ledger's 32-bit step
      JSON.stringify(rolloutLine("r/8", "T-R")), // 15 fine
      JSON.stringify(withReply(rolloutLine("r/10", "T-R"), "half a pair \ud800")), // 16 jsonb cannot hold it
    ];
    const s = await ingestText(t.pool, lines.join("\n") + "\n", { batchLines: 50 });
    const got = Object.fromEntries(s.rejects.map((r) => [r.line, r]));
    expect(s).toMatchObject({ ok: true, lines: 16, accepted: 1, rejected: 15, truncated: false });
    expect(got[1]).toMatchObject({ path: "", message: expect.stringMatching(/^invalid JSON/) });
    expect(got[2]).toMatchObject({ path: "", message: "expected a JSON object" });
    expect(got[3]).toMatchObject({ path: "kind", message: expect.stringMatching(/missing "kind"/) });
    expect(got[4]).toMatchObject({ path: "kind", message: expect.stringMatching(/unknown kind "review"/) });
    expect(got[5]).toMatchObject({ path: "step" });
    expect(got[6]).toMatchObject({ path: "stepp", message: 'unknown field "stepp"' });
    expect(got[7]).toMatchObject({ path: "trajectory.steps.0.status" });
    expect(got[8]).toMatchObject({
      path: "ticket.id",
      message: expect.stringMatching(/conflict: ticket T-R already has a different case/),
    });
    expect(got[9]).toMatchObject({
      path: "trajectory_id",
      message: expect.stringMatching(/conflict: trajectory r\/1 is already stored/),
    });
    expect(got[10]).toMatchObject({
      path: "trajectory_id",
      message: expect.stringMatching(/different current ledger entry/),
    });
    expect(got[11]).toMatchObject({
      path: "ticket_id",
      message: expect.stringMatching(/does not match the stored rollout/),
    });
    expect(got[12]).toMatchObject({ path: "trajectory.final_reply", message: expect.stringMatching(/U\+0000/) });
    expect(got[13]).toMatchObject({ path: "reward" });
    expect(got[14]).toMatchObject({
      path: "step",
      message: "at most 2147483647 (the ledger stores it as a 32-bit integer)",
    });
    expect(got[16]).toMatchObject({
      path: "trajectory.final_reply",
      message: expect.stringMatching(/unpaired UTF-16 surrogate/),
    });
    expect(await count(t.pool, "select 1 from rollouts where trajectory_id like 'r/%'")).toBe(2);
    expect(
      await count(t.pool, "select 1 from ledger where trajectory_id = 'r/9' and reward = 0.5 and is_current"),
    ).toBe(1);
  });

  it("reports bad UTF-8 on its line", async () => {
    const body = Buffer.concat([
      Buffer.from('{"kind":"case","x":"'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}\n'),
      Buffer.from(JSON.stringify(caseLine("T-U")) + "\n"),
    ]);
    const s = await ingestStream(chunked(body, 5), { pool: t.pool });
    expect(s).toMatchObject({
      accepted: 1,
      rejected: 1,
      rejects: [{ line: 1, path: "", message: "line is not valid UTF-8" }],
    });
  });

  it("lists at most 1000 rejected lines but reports every one to onReject", async () => {
    const seen: number[] = [];
    const s = await ingestText(t.pool, "{oops\n".repeat(1005), { onReject: (r) => void seen.push(r.line) });
    expect(s).toMatchObject({ rejected: 1005, truncated: true });
    expect(s.rejects).toHaveLength(1000);
    expect(seen).toHaveLength(1005);
    expect(seen[1004]).toBe(1005);
  });
});

describe("batches", () => {
  it("give the same ledger however the body is cut into batches", async () => {
    const other = await freshDatabase("batching");
    try {
      const body = ndjson([
        caseLine("T-X"),
        ...Array.from({ length: 7 }, (_, i) =>
          rolloutLine(`x/${i}`, "T-X", { run: "run-x", step: i % 3, example: i % 2 ? "02" : "01" }),
        ),
        externalScore("x/ext", "T-X", 0.3, { run: "run-x" }),
        rolloutLine("x/0", "T-X", { run: "run-x", step: 0 }), // a duplicate within the body
      ]);
      const one = await ingestText(t.pool, body, { batchLines: 1 });
      const all = await ingestText(other.pool, body, { batchLines: 1000 });
      expect(one).toEqual(all);
      expect(await ledgerPicture(t.pool, "run-x")).toEqual(await ledgerPicture(other.pool, "run-x"));
    } finally {
      await other.drop();
    }
  });

  // Not on Citus: the test makes a database refuse a reason code with a trigger of its own on ledger_reasons, and Citus
  // refuses a trigger created on a distributed table.
  it.skipIf(ON_CITUS)(
    "commit atomically: a batch that fails leaves nothing behind and the ingest says how far it got",
    async () => {
      const db = await freshDatabase("atomic");
      try {
        // A database that refuses one reason code, with an error that is not about the line's data.
        await db.pool.query(`create function refuse() returns trigger language plpgsql as $$
        begin if new.code = 'empty_promise' then raise exception 'refused by test' using errcode = 'P0001'; end if; return new; end $$`);
        await db.pool.query(
          "create trigger refuse before insert on ledger_reasons for each row execute function refuse()",
        );
        const body = ndjson([
          caseLine("T-Z"),
          rolloutLine("z/1", "T-Z"),
          rolloutLine("z/2", "T-Z", { example: "03" }),
          rolloutLine("z/3", "T-Z", { example: "02" }), // empty promise: its batch fails
          rolloutLine("z/4", "T-Z"),
        ]);
        const s = await ingestText(db.pool, body, { batchLines: 2 });
        // Not a line's data and not the connection: the server failed (500), the database is not called unavailable.
        expect(s).toMatchObject({ ok: false, failed_at: "server", last_committed_line: 2, accepted: 2 });
        expect(s.error).toMatch(/refused by test.*Every line up to 2 is committed/);
        expect((await db.pool.query("select trajectory_id from rollouts order by 1")).rows).toEqual([
          { trajectory_id: "z/1" },
        ]);
        expect(await count(db.pool, "select 1 from ledger")).toBe(1);
        const rollups = await listStepRollups("run-a", {}, createClient(db.url));
        expect(rollups.map((r) => r.rollouts)).toEqual([1]);

        await db.pool.query("drop trigger refuse on ledger_reasons");
        const again = await ingestText(db.pool, body, { batchLines: 2 });
        expect(again).toMatchObject({ ok: true, accepted: 3, unchanged: 2 });
        expect(await count(db.pool, "select 1 from ledger")).toBe(4);
      } finally {
        await db.drop();
      }
    },
  );
});
