// trained_reward through the ledger: stored on rollouts and entries (the record's, else the rollout's), idempotent
// ingest with and without it, conflicts like any other differing field, kept by a re-score, exported (NDJSON score
// records, the browser's CSV and NDJSON) and filtered in the browser ("trained reward differs"), through its index.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bindDatabase, db } from "@/lib/db/client.ts";
import { Prisma } from "@/lib/generated/prisma/client.ts";
import { browseConditions, browseLedger, iterateLedger } from "@/lib/ledger/browse.ts";
import { parseBrowseParams, type BrowseParams } from "@/lib/ledger/browse-schema.ts";
import { exportLedger } from "@/lib/ledger/export.ts";
import { csvHeader, csvLine, ndjsonLine } from "@/lib/ledger/export-rows.ts";
import { rescoreRun } from "@/lib/ledger/mutations.ts";
import { caseLine, externalScore, rolloutLine } from "@/lib/testing/ingest-fixtures.ts";
import { freshDatabase, ingestText, ledgerPicture, ndjson, type TestDatabase } from "@/lib/testing/ingest-db.ts";
import { parseVerifierConfig } from "@/lib/verifier/config.ts";

const RUN = "trn";
let t: TestDatabase;

const roll = (id: string, ticket: string, extra: Record<string, unknown> = {}) => ({
  ...rolloutLine(id, ticket, { run: RUN }),
  ...extra,
});
const score = (id: string, ticket: string, reward: number, extra: Record<string, unknown> = {}) => ({
  ...externalScore(id, ticket, reward, { run: RUN }),
  ...extra,
});

// The example rollout scores 1.0 under its case (T-OK); an external record states its own reward.
const BODY = ndjson([
  caseLine("T-OK"),
  roll("trn/verifier-same", "T-OK", { trained_reward: 1 }), // verifier 1.0, trainer 1.0: agrees
  roll("trn/verifier-differs", "T-OK", { trained_reward: 0.4 }), // verifier 1.0, trainer 0.4
  roll("trn/verifier-none", "T-OK"), // no trained reward
  score("trn/own", "T-X", 0.7, { trained_reward: 0.7000004 }), // within 1e-6: agrees
  roll("trn/own", "T-X", { trained_reward: 0.2 }), // the record's own trained reward wins over the rollout's
  roll("trn/inherit", "T-Y", { trained_reward: 0.9 }),
  score("trn/inherit", "T-Y", 0.3), // no trained reward of its own: takes the rollout's (0.9)
  score("trn/far", "T-Z", 0.1, { trained_reward: -4 }), // any finite number: the trainer's scale
]);

async function trained(table: "rollouts" | "ledger"): Promise<Record<string, number | null>> {
  const { rows } = await t.pool.query<{ trajectory_id: string; trained_reward: number | null }>(
    `select trajectory_id, trained_reward from ${table} where run_id = $1 ${table === "ledger" ? "and is_current" : ""}`,
    [RUN],
  );
  return Object.fromEntries(rows.map((r) => [r.trajectory_id, r.trained_reward]));
}

beforeAll(async () => {
  t = await freshDatabase("trained");
  await bindDatabase(t.url);
});
afterAll(async () => t?.drop());

describe("ingest of trained rewards", () => {
  it("stores the rollout's on the rollout and the record's, else the rollout's, on the entry", async () => {
    const s = await ingestText(t.pool, BODY);
    expect(s).toMatchObject({ ok: true, lines: 9, accepted: 9, rejected: 0, scored: 3 });
    expect(await trained("rollouts")).toEqual({
      "trn/verifier-same": 1,
      "trn/verifier-differs": 0.4,
      "trn/verifier-none": null,
      "trn/own": 0.2,
      "trn/inherit": 0.9,
    });
    expect(await trained("ledger")).toEqual({
      "trn/verifier-same": 1,
      "trn/verifier-differs": 0.4,
      "trn/verifier-none": null,
      "trn/own": 0.7000004,
      "trn/inherit": 0.9,
      "trn/far": -4,
    });
  });

  it("changes nothing when the same file is ingested again", async () => {
    const before = await ledgerPicture(t.pool, RUN, false);
    const s = await ingestText(t.pool, BODY);
    expect(s).toMatchObject({ ok: true, accepted: 0, unchanged: 9, rejected: 0 });
    expect(await ledgerPicture(t.pool, RUN, false)).toEqual(before);
  });

  it("stores a file without trained rewards as before, and a second ingest of it changes nothing", async () => {
    const plain = ndjson([caseLine("T-P"), roll("trn/plain", "T-P"), score("trn/plain-ext", "T-P", 0.5)]);
    expect(await ingestText(t.pool, plain)).toMatchObject({ accepted: 3, rejected: 0 });
    expect(await ingestText(t.pool, plain)).toMatchObject({ accepted: 0, unchanged: 3, rejected: 0 });
    const l = await trained("ledger");
    expect([l["trn/plain"], l["trn/plain-ext"]]).toEqual([null, null]);
  });

  it("refuses a different trained reward for a stored trajectory as it refuses any other differing field", async () => {
    const s = await ingestText(
      t.pool,
      ndjson([
        roll("trn/verifier-differs", "T-OK", { trained_reward: 0.5 }), // stored with 0.4
        roll("trn/verifier-none", "T-OK", { trained_reward: 0.5 }), // stored with none
        roll("trn/verifier-same", "T-OK"), // stored with 1: leaving it out is a difference too
        score("trn/own", "T-X", 0.7, { trained_reward: 0.8 }), // stored entry has 0.7000004
        score("trn/far", "T-Z", 0.1), // stored entry has -4, the record now says nothing
        score("trn/far", "T-Z", 0.1, { trained_reward: "-4" }), // not a number at all
      ]),
    );
    expect(s.accepted).toBe(0);
    expect(s.rejects).toEqual([
      {
        line: 1,
        path: "trajectory_id",
        message:
          "conflict: trajectory trn/verifier-differs is already stored with different content; rollouts are never overwritten",
      },
      {
        line: 2,
        path: "trajectory_id",
        message:
          "conflict: trajectory trn/verifier-none is already stored with different content; rollouts are never overwritten",
      },
      {
        line: 3,
        path: "trajectory_id",
        message:
          "conflict: trajectory trn/verifier-same is already stored with different content; rollouts are never overwritten",
      },
      {
        line: 4,
        path: "trajectory_id",
        message:
          "conflict: trajectory trn/own already has a different current ledger entry; use `verity rescore` to re-score, entries are never overwritten",
      },
      {
        line: 5,
        path: "trajectory_id",
        message:
          "conflict: trajectory trn/far already has a different current ledger entry; use `verity rescore` to re-score, entries are never overwritten",
      },
      { line: 6, path: "trained_reward", message: 'expected a finite number or null (got the string "-4")' },
    ]);
  });

  it("keeps an entry written before its rollout unchanged when the record is sent again after the rollout", async () => {
    const first = ndjson([score("trn/early", "T-E", 0.6)]);
    expect(await ingestText(t.pool, first)).toMatchObject({ accepted: 1 });
    expect(await ingestText(t.pool, ndjson([roll("trn/early", "T-E", { trained_reward: 0.1 })]))).toMatchObject({
      accepted: 1,
      rejected: 0,
    });
    // The entry existed before the rollout brought a trained reward: it keeps none, and the same record matches it.
    expect(await ingestText(t.pool, first)).toMatchObject({ accepted: 0, unchanged: 1, rejected: 0 });
    expect((await trained("ledger"))["trn/early"]).toBeNull();
  });
});

describe("re-score", () => {
  it("keeps each entry's trained reward, including one that came from its score record", async () => {
    const before = await trained("ledger");
    const c = parseVerifierConfig({
      weights: { outcome: 0.3, policy: 0.2, evidence: 0.2, efficiency: 0.2, communication: 0.1 },
    });
    if (!c.ok) throw new Error("config");
    const s = await rescoreRun(t.pool, { runId: RUN, config: c.config });
    expect(s.rescored).toBeGreaterThanOrEqual(3);
    const { rows } = await t.pool.query<{ n: number }>(
      "select count(*)::int as n from ledger where run_id = $1 and supersedes_id is not null and is_current",
      [RUN],
    );
    expect(rows[0].n).toBe(s.rescored);
    expect(await trained("ledger")).toEqual(before);
  });
});

describe("exports", () => {
  it("write trained_reward in the run's NDJSON score records, only where there is one", async () => {
    const records: Record<string, unknown>[] = [];
    for await (const line of exportLedger(t.pool, { run: RUN, cases: false })) records.push(JSON.parse(line));
    const by = Object.fromEntries(records.map((r) => [r.trajectory_id, r]));
    expect(by["trn/verifier-differs"].trained_reward).toBe(0.4);
    expect(by["trn/inherit"].trained_reward).toBe(0.9);
    expect(by["trn/far"].trained_reward).toBe(-4);
    expect(by["trn/verifier-none"]).not.toHaveProperty("trained_reward");
  });

  it("reproduce every entry, trained reward and content hash included, when the export is ingested elsewhere", async () => {
    const lines: string[] = [];
    for await (const line of exportLedger(t.pool, { run: RUN, cases: true })) lines.push(line);
    const other = await freshDatabase("trained_copy");
    try {
      const s = await ingestText(other.pool, lines.join(""));
      expect(s).toMatchObject({ ok: true, rejected: 0 });
      // the copy has no re-score history: its entries supersede nothing
      const strip = (rows: Record<string, unknown>[]) => rows.map((r) => ({ ...r, supersedes: null }));
      expect(strip(await ledgerPicture(other.pool, RUN))).toEqual(strip(await ledgerPicture(t.pool, RUN)));
    } finally {
      await other.drop();
    }
  });

  it("carry a trained_reward column in the browser's CSV and NDJSON", async () => {
    expect(csvHeader().split(",")).toContain("trained_reward");
    const rows = (await browseLedger(params({ run: RUN, q: "trn/far" }))).rows;
    expect(rows.map((r) => r.trainedReward)).toEqual([-4]);
    const cells = csvLine(rows[0]).trim().split(",");
    expect(cells[csvHeader().trim().split(",").indexOf("trained_reward")]).toBe("-4");
    expect(JSON.parse(ndjsonLine(rows[0])).trained_reward).toBe(-4);
  });
});

function params(q: Record<string, string>): BrowseParams {
  const p = parseBrowseParams(q);
  if (!p.ok) throw new Error(p.errors.join("; "));
  return p.params;
}

describe("the browser's trained-reward filter", () => {
  async function ids(q: Record<string, string>): Promise<string[]> {
    const out: string[] = [];
    for await (const batch of iterateLedger(params(q), 2)) out.push(...batch.map((r) => r.trajectoryId));
    return out.sort();
  }

  it("matches |trained − reward| > 1e-6 for yes and within it for no; entries without one match neither", async () => {
    // Computed here from the stored columns, not by the browser's SQL.
    const { rows } = await t.pool.query<{
      trajectory_id: string;
      trained_reward: number | null;
      reward: number | null;
    }>("select trajectory_id, trained_reward, reward from ledger where run_id = $1 and is_current", [RUN]);
    const yes = rows.filter(
      (r) => r.trained_reward !== null && r.reward !== null && Math.abs(r.trained_reward - r.reward) > 1e-6,
    );
    const no = rows.filter(
      (r) => r.trained_reward !== null && r.reward !== null && Math.abs(r.trained_reward - r.reward) <= 1e-6,
    );
    expect(yes.map((r) => r.trajectory_id).sort()).toEqual(["trn/far", "trn/inherit", "trn/verifier-differs"]);
    expect(no.map((r) => r.trajectory_id).sort()).toEqual(["trn/own", "trn/verifier-same"]);
    expect(await ids({ run: RUN, trained_differs: "yes" })).toEqual(yes.map((r) => r.trajectory_id).sort());
    expect(await ids({ run: RUN, trained_differs: "no" })).toEqual(no.map((r) => r.trajectory_id).sort());
    expect(await ids({ trained_differs: "yes" })).toEqual(yes.map((r) => r.trajectory_id).sort());
  });

  it("refuses a bad value with the field, the reason and the value given", () => {
    const p = parseBrowseParams({ trained_differs: "maybe" });
    expect(p.ok).toBe(false);
    if (!p.ok) {
      expect(p.errors).toEqual(['trained_differs: must be "yes" or "no"']);
      expect(p.problems).toEqual({ trained_differs: 'must be "yes" or "no" (given "maybe")' });
    }
    const twice = parseBrowseParams(new URLSearchParams("trained_differs=yes&trained_differs=no"));
    expect(!twice.ok && twice.errors).toEqual(["trained_differs: is given more than once; give it once"]);
  });

  it("is served by the partial index ledger_trained_differs_idx", async () => {
    // The browser's own conditions, as it sends them.
    const where = Prisma.join(browseConditions(params({ run: RUN, trained_differs: "yes" })), " and ");
    const [, plan] = await db().$transaction([
      db().$executeRaw`set local enable_seqscan = off`,
      db().$queryRaw<
        { "QUERY PLAN": string }[]
      >`explain select l.id from ledger l where ${where} order by l.id desc limit 101`,
    ]);
    // Each run's partition (014) has its own copy of the index under a derived name: the partial index is the one
    // that answers the whole predicate, so the scan needs no Filter.
    const text = plan.map((r) => r["QUERY PLAN"]).join("\n");
    expect(text).toMatch(/Index (Only )?Scan/);
    expect(text).not.toMatch(/Filter:|Seq Scan/);
  });
});
