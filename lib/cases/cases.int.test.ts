import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addToTotals, dryRunCase, type RolloutDiff } from "@/lib/cases/dry-run.ts";
import { listCaseVersions } from "@/lib/cases/data.ts";
import { applyCaseRevision, reviseCase } from "@/lib/cases/mutations.ts";
import { demoRunValues } from "@/lib/demo/generate.ts";
import { ingestValues } from "@/lib/ingest/ingest.ts";
import { caseLine, rolloutLine } from "@/lib/testing/ingest-fixtures.ts";
import { count, freshDatabase, ingestText, ndjson, type TestDatabase } from "@/lib/testing/ingest-db.ts";

// Example 01's case (a damaged air fryer, refund T-1001) under ticket T-R: its rollout does exactly what the spec asks
// and scores 1. Revision 2 also requires a return label, which no rollout creates: the outcome drops.
const T = "T-R";
const RETURN = { tool: "logistics.create_return" };

let t: TestDatabase;
let spec1: Record<string, unknown>;
const spec2 = () => ({ ...spec1, required_writes: [...(spec1.required_writes as unknown[]), RETURN] });

beforeAll(async () => {
  t = await freshDatabase("cases");
  spec1 = (caseLine(T) as { verifier_spec: Record<string, unknown> }).verifier_spec;
  const s = await ingestText(
    t.pool,
    ndjson([
      caseLine(T),
      rolloutLine("r/1", T, { run: "run-a", step: 1 }),
      rolloutLine("r/2", T, { run: "run-a", step: 2 }),
      rolloutLine("r/3", T, { run: "run-b", step: 1 }),
      caseLine("T-OTHER"),
      rolloutLine("o/1", "T-OTHER", { run: "run-a", step: 1 }),
    ]),
  );
  expect(s).toMatchObject({ ok: true, rejected: 0, scored: 4 });
});
afterAll(async () => t?.drop());

const entries = async (trajectory: string) =>
  (
    await t.pool.query(
      `select id::text, reward, case_version, is_current, supersedes_id::text as supersedes
         from ledger where trajectory_id = $1 order by id`,
      [trajectory],
    )
  ).rows;

async function collect(it: AsyncIterable<RolloutDiff>): Promise<RolloutDiff[]> {
  const out: RolloutDiff[] = [];
  for await (const d of it) out.push(d);
  return out;
}

describe("case versions", () => {
  it("records version 1 of every ingested case, and the version on the entries it scored", async () => {
    expect((await listCaseVersions(t.pool, T)).map((v) => [v.version, v.reason])).toEqual([[1, ""]]);
    expect(await entries("r/1")).toMatchObject([{ reward: 1, case_version: 1, is_current: true }]);
  });

  it("refuses a draft with a bad field by its path, a changed category, an unknown ticket, a missing reason", async () => {
    const bad = await reviseCase(t.pool, {
      ticketId: T,
      spec: { ...spec1, required_writes: [{ tool: "" }] },
      reason: "x",
    });
    expect(bad).toMatchObject({ ok: false, code: "invalid" });
    expect(!bad.ok && bad.issues[0].path).toBe("verifier_spec.required_writes.0.tool");
    const typo = await reviseCase(t.pool, { ticketId: T, spec: { ...spec1, handof: "allowed" }, reason: "x" });
    expect(!typo.ok && typo.issues[0]).toEqual({ path: "verifier_spec.handof", message: 'unknown field "handof"' });
    const ticket = { ...(caseLine(T).ticket as object), category: "other" };
    const cat = await reviseCase(t.pool, { ticketId: T, ticket, reason: "x" });
    expect(!cat.ok && cat.issues[0].path).toBe("ticket.category");
    expect(await reviseCase(t.pool, { ticketId: "T-NONE", spec: spec1, reason: "x" })).toMatchObject({
      ok: false,
      code: "not_found",
    });
    expect(await reviseCase(t.pool, { ticketId: T, spec: spec2(), reason: "  " })).toMatchObject({
      ok: false,
      issues: [{ path: "reason" }],
    });
    expect(await count(t.pool, "select 1 from case_versions where ticket_id = $1", [T])).toBe(1);
  });

  it("an identical draft stores nothing", async () => {
    expect(await reviseCase(t.pool, { ticketId: T, spec: spec1, reason: "same" })).toMatchObject({
      ok: true,
      status: "unchanged",
      version: 1,
    });
  });

  it("refuses a revision for an unknown run, naming it, saving and re-scoring nothing", async () => {
    const before = await entries("r/1");
    const r = await applyCaseRevision(t.pool, {
      ticketId: T,
      draft: { spec: spec2() },
      reason: "a mistyped run",
      runId: "run-z",
    });
    expect(r).toEqual({
      ok: false,
      code: "not_found",
      issues: [{ path: "run", message: 'no run "run-z": nothing was saved or re-scored' }],
    });
    expect((await listCaseVersions(t.pool, T)).map((v) => v.version)).toEqual([1]);
    expect(await entries("r/1")).toEqual(before);
    expect(await count(t.pool, "select 1 from activity_log where action like 'case.%'")).toBe(0);
  });

  it("dry-runs a draft: per rollout the reward before and after and the reasons that appear, writing nothing", async () => {
    const before = await count(t.pool, "select 1 from ledger");
    const r = await dryRunCase(t.pool, { ticketId: T, draft: { spec: spec2() }, pageSize: 2 });
    if (!r || !r.ok) throw new Error("dry run refused");
    const diffs = await collect(r.diffs);
    expect(diffs.map((d) => [d.runId, d.trajectoryId])).toEqual([
      ["run-a", "r/1"],
      ["run-a", "r/2"],
      ["run-b", "r/3"],
    ]);
    for (const d of diffs) {
      expect(d.before).toMatchObject({ reward: 1, caseVersion: 1 });
      expect(d.after.reward).toBeLessThan(1);
      expect(d.rewardChanged).toBe(true);
      expect(d.reasons.added.some((x) => x.includes("logistics.create_return"))).toBe(true);
      expect(d.reasons.removed).toEqual([]);
    }
    const one = await dryRunCase(t.pool, { ticketId: T, draft: { spec: spec2() }, runId: "run-b" });
    expect(one && one.ok && (await collect(one.diffs)).map((d) => d.trajectoryId)).toEqual(["r/3"]);
    expect(await count(t.pool, "select 1 from ledger")).toBe(before);
    expect(await count(t.pool, "select 1 from case_versions where ticket_id = $1", [T])).toBe(1);
  });

  it("applies a revision: version 2 with its reason and answers, superseding entries that record it, logged", async () => {
    const dry = await dryRunCase(t.pool, { ticketId: T, draft: { spec: spec2() } });
    if (!dry || !dry.ok) throw new Error("dry run refused");
    const after = await collect(dry.diffs);
    const r = await applyCaseRevision(t.pool, {
      ticketId: T,
      draft: { spec: spec2() },
      reason: "the return label is part of the fix",
      answers: { adjudicationIds: [7n], cluster: "no_writes" },
    });
    expect(r).toMatchObject({ ok: true, status: "created", version: 2 });
    expect(r.ok && r.rescore).toMatchObject({ rollouts: 3, rescored: 3, reward_changed: 3, runs: ["run-a", "run-b"] });
    const history = await entries("r/1");
    expect(history).toHaveLength(2);
    expect(history[0]).toMatchObject({ reward: 1, case_version: 1, is_current: false });
    expect(history[1]).toMatchObject({ case_version: 2, is_current: true, supersedes: history[0].id });
    expect(history[1].reward).toBe(after.find((d) => d.trajectoryId === "r/1")!.after.reward);
    // The other ticket's entry is not touched.
    expect(await entries("o/1")).toMatchObject([{ case_version: 1, is_current: true }]);
    const versions = await listCaseVersions(t.pool, T);
    expect(versions[0]).toMatchObject({
      version: 2,
      reason: "the return label is part of the fix",
      answersAdjudicationIds: ["7"],
      answersCluster: "no_writes",
    });
    const cur = await t.pool.query("select version, verifier_spec from cases where ticket_id = $1", [T]);
    expect(cur.rows[0]).toEqual({ version: 2, verifier_spec: spec2() });
    const log = await t.pool.query(
      "select action, target_id, details from activity_log where target_type = 'case' order by id",
    );
    expect(log.rows.map((l) => [l.action, l.target_id, l.details.version])).toEqual([
      ["case.revise", T, 2],
      ["case.rescore", T, 2],
    ]);
    // Applying the same draft again stores nothing and supersedes nothing.
    const again = await applyCaseRevision(t.pool, {
      ticketId: T,
      draft: { spec: spec2() },
      reason: "again",
    });
    expect(again).toMatchObject({ ok: true, status: "unchanged", version: 2, rescore: { rescored: 0, unchanged: 3 } });
    expect(await entries("r/1")).toHaveLength(2);
  });

  it("the database lets a case advance only to a recorded next version", async () => {
    await expect(t.pool.query("update cases set verifier_spec = '{}' where ticket_id = $1", [T])).rejects.toThrow(
      "cases is append-only: rows cannot be changed",
    );
    await expect(t.pool.query("update cases set version = 3 where ticket_id = $1", [T])).rejects.toThrow(
      "cases is append-only",
    );
    await expect(t.pool.query("update case_versions set reason = 'x' where ticket_id = $1", [T])).rejects.toThrow(
      "case_versions is append-only",
    );
  });
});

describe("revisions through ingest", () => {
  const revised = () => ({ ...caseLine(T), verifier_spec: { ...spec2(), step_budget: 6 } });

  it("an unmarked different case is a conflict; marked with revision, a new version; identical, a no-op", async () => {
    const conflict = await ingestText(t.pool, ndjson([revised()]));
    expect(conflict).toMatchObject({ rejected: 1, rejects: [{ line: 1, path: "ticket.id" }] });
    expect(conflict.rejects[0].message).toMatch(/already has a different case/);

    const marked = await ingestText(
      t.pool,
      ndjson([
        { ...revised(), revision: { reason: "tighter budget", answers: { adjudication_ids: [3, "4"] } } },
        rolloutLine("r/4", T, { run: "run-a", step: 3 }),
      ]),
    );
    expect(marked).toMatchObject({ ok: true, rejected: 0, accepted: 2, scored: 1 });
    expect((await listCaseVersions(t.pool, T))[0]).toMatchObject({
      version: 3,
      reason: "tighter budget",
      answersAdjudicationIds: ["3", "4"],
      author: null,
    });
    // The rollout after the revision in the same body was scored under it.
    expect(await entries("r/4")).toMatchObject([{ case_version: 3, is_current: true }]);
    // Entries scored under version 2 stay until re-scored.
    expect(await entries("r/1")).toMatchObject([{ case_version: 1 }, { case_version: 2, is_current: true }]);

    for (const line of [revised(), { ...revised(), revision: { reason: "again" } }]) {
      const same = await ingestText(t.pool, ndjson([line]));
      expect(same).toMatchObject({ ok: true, rejected: 0, accepted: 0, unchanged: 1 });
    }
    expect(await count(t.pool, "select 1 from case_versions where ticket_id = $1", [T])).toBe(3);
  });

  it("a bad revision marker is rejected with its path", async () => {
    const s = await ingestText(
      t.pool,
      ndjson([
        { ...revised(), verifier_spec: spec1, revision: {} },
        { ...revised(), verifier_spec: spec1, revision: { reason: "x", answers: { adjudication_ids: [-1] } } },
        { ...revised(), verifier_spec: spec1, revision: { reason: "x", why: 1 } },
      ]),
    );
    expect(s.rejects.map((r) => [r.line, r.path])).toEqual([
      [1, "revision.reason"],
      [2, "revision.answers.adjudication_ids.0"],
      [3, "revision.why"],
    ]);
  });
});

describe("a demo case", () => {
  it("revised, dry-run and applied: every rollout's reward moves as the dry run said", async () => {
    const s = await ingestValues(
      demoRunValues({ runId: "demo-c", tickets: 4, steps: 3, k: 2, seed: "c", variant: "normal" }),
      {
        pool: t.pool,
      },
    );
    expect(s).toMatchObject({ ok: true, rejected: 0 });
    const { rows } = await t.pool.query<{ ticket_id: string; verifier_spec: { required_writes?: unknown[] } }>(
      // the run's tickets read first: Citus joins no table on the coordinator (cases) with a distributed one (ledger)
      `with rewarded as materialized (select distinct l.ticket_id from ledger l where l.run_id = 'demo-c' and l.reward > 0.5)
       select c.ticket_id, c.verifier_spec from cases c join rewarded r on r.ticket_id = c.ticket_id
        order by c.ticket_id limit 1`,
    );
    const demo = rows[0];
    const spec = {
      ...demo.verifier_spec,
      required_writes: [...(demo.verifier_spec.required_writes ?? []), { tool: "order.cancel" }],
    };
    const dry = await dryRunCase(t.pool, { ticketId: demo.ticket_id, draft: { spec } });
    if (!dry || !dry.ok) throw new Error("dry run refused");
    const diffs = await collect(dry.diffs);
    const totals = diffs.reduce(addToTotals, { rollouts: 0, rewardChanged: 0, nowAgree: 0, nowDisagree: 0 });
    expect(totals.rollouts).toBe(await count(t.pool, "select 1 from rollouts where ticket_id = $1", [demo.ticket_id]));
    expect(totals.rewardChanged).toBeGreaterThan(0);
    const applied = await applyCaseRevision(t.pool, {
      ticketId: demo.ticket_id,
      draft: { spec },
      reason: "demo",
    });
    expect(applied.ok && applied.rescore.reward_changed).toBe(totals.rewardChanged);
    const now = await t.pool.query<{ trajectory_id: string; reward: number; case_version: number }>(
      "select trajectory_id, reward, case_version from ledger where ticket_id = $1 and is_current",
      [demo.ticket_id],
    );
    for (const e of now.rows) {
      expect(e.case_version).toBe(2);
      expect(e.reward).toBe(diffs.find((d) => d.trajectoryId === e.trajectory_id)!.after.reward);
    }
  });
});
