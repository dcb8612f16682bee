import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoRunValues } from "@/lib/demo/generate.ts";
import { loadExamples } from "@/lib/demo/seed.ts";
import { caseLine, externalScore } from "@/lib/testing/ingest-fixtures.ts";
import { ingestValues } from "@/lib/ingest/ingest.ts";
import { freshDatabase, ingestText, ledgerPicture, ndjson, type TestDatabase } from "@/lib/testing/ingest-db.ts";
import { exportLedger, exportResponse, type ExportFilter } from "@/lib/ledger/export.ts";
import {
  LEDGER_TEXT_COLUMNS,
  ledgerLine,
  ROLLOUT_TEXT_COLUMNS,
  rolloutLine,
  type LedgerTextRow,
  type RolloutTextRow,
} from "@/lib/ledger/export-lines.ts";
import { recordFromLedger, type LedgerValues } from "@/lib/ledger/store/ledger-rows.ts";
import { rolloutFromColumns } from "@/lib/ledger/store/rows.ts";
import { rescoreRun } from "@/lib/ledger/mutations.ts";
import { parseVerifierConfig } from "@/lib/verifier/config.ts";
import { scoreRecordSchema } from "@/lib/verifier/schema.ts";

const RUN = "exp";
let source: TestDatabase;

beforeAll(async () => {
  source = await freshDatabase("export_src");
  await ingestValues(demoRunValues({ runId: RUN, tickets: 12, steps: 5, k: 4, seed: "ex", variant: "normal" }), {
    pool: source.pool,
  });
  const examples = (loadExamples() as Record<string, unknown>[]).map((e) => ({
    ...e,
    run_id: RUN,
    step: 2,
    trajectory_id: `exp-${e.trajectory_id}`,
  }));
  await ingestValues(examples, { pool: source.pool });
  await ingestText(
    source.pool,
    ndjson([
      caseLine("T-E"),
      externalScore("exp/e1", "T-E", 0.33, {
        run: RUN,
        step: 1,
        guardrails: ["empty_promise", { code: "policy_error", cap: 0.4, evidence: { why: "x" } }],
      }),
      {
        ...externalScore("exp/e2", "T-E", 0.9, { run: RUN, step: 3 }),
        subscores: { outcome: 1, policy: 0.5 },
        reasons: [{ code: "custom", message: "m", tool: "t" }],
      },
    ]),
  );
  // A re-score under another config, so the export carries entries that supersede others.
  const c = parseVerifierConfig({ guardrails: { duplicate_side_effect: { cap: 0.1 } } });
  if (!c.ok) throw new Error("config");
  await rescoreRun(source.pool, { runId: RUN, config: c.config });
});
afterAll(async () => source?.drop());

async function collect(filter: Partial<ExportFilter>, batchSize?: number): Promise<string[]> {
  const lines: string[] = [];
  for await (const l of exportLedger(source.pool, { run: RUN, cases: true, ...filter }, batchSize)) lines.push(l);
  return lines;
}

describe("ledger export", () => {
  it("writes each case once, before its first record, then score records that pass the wire schema", async () => {
    const lines = (await collect({}, 37)).map((l) => JSON.parse(l));
    const seen = new Set<string>();
    for (const v of lines) {
      if (v.kind === "case") {
        expect(seen.has(v.ticket.id)).toBe(false);
        seen.add(v.ticket.id);
      } else {
        expect(seen.has(v.ticket_id) || v.ticket_id === "T-NONE").toBe(true);
        expect(scoreRecordSchema.safeParse(v).success).toBe(true);
      }
    }
    const records = lines.filter((v) => v.kind !== "case" || v.source === "external");
    const current = await ledgerPicture(source.pool, RUN);
    expect(records.length).toBe(current.length);
    const steps = records.map((r) => r.step);
    expect(steps).toEqual([...steps].sort((a, b) => a - b));
  });

  it("round-trips: ingesting the export into an empty database reproduces the ledger", async () => {
    const target = await freshDatabase("export_dst");
    try {
      const text = (await collect({}, 50)).join("");
      const s = await ingestText(target.pool, text, { batchLines: 128 });
      expect(s).toMatchObject({ ok: true, rejected: 0, unchanged: 0 });
      // The export holds current entries only, so the copy has no supersede chains.
      const strip = (rows: Record<string, unknown>[]) => rows.map((r) => ({ ...r, supersedes: false }));
      expect(strip(await ledgerPicture(target.pool, RUN))).toEqual(strip(await ledgerPicture(source.pool, RUN)));
      // And the export of the copy is the export of the original, byte for byte.
      const again: string[] = [];
      for await (const l of exportLedger(target.pool, { run: RUN, cases: true }, 50)) again.push(l);
      expect(again.join("")).toBe(text);
      // Sending the export again changes nothing.
      expect(await ingestText(target.pool, text)).toMatchObject({ accepted: 0, rejected: 0 });
    } finally {
      await target.drop();
    }
  });

  it("filters by step range and guardrail, paging by key across batch boundaries", async () => {
    const all = (await collect({ cases: false }, 1000)).map((l) => JSON.parse(l));
    const mid = (await collect({ cases: false, from: 1, to: 3 }, 7)).map((l) => JSON.parse(l));
    expect(mid).toEqual(all.filter((r) => r.step >= 1 && r.step <= 3));
    const hits = (await collect({ cases: false, guardrail: "unauthorized_write" }, 5)).map((l) => JSON.parse(l));
    const expected = all.filter((r) =>
      (r.guardrails ?? []).some((g: { code: string }) => g.code === "unauthorized_write"),
    );
    expect(hits.length).toBeGreaterThan(5);
    expect(hits).toEqual(expected);
  });

  it("builds each line from the columns' JSON text exactly as the records rebuilt from the parsed columns", async () => {
    // Every entry, current or superseded, of a run holding verifier records (scored and spec errors),
    // external ones with and without optional fields, and trained rewards: the same keys in the same order, the same
    // values (numbers compared after parsing; PostgreSQL's documents keep their own spacing).
    const parsed = await source.pool.query<LedgerValues & { id: string }>(
      `select l.*, l.id::text as id, l.status::text as status, l.source::text as source from ledger l where run_id = $1 order by l.id`,
      [RUN],
    );
    const text = await source.pool.query<LedgerTextRow>(
      `select ${LEDGER_TEXT_COLUMNS} from ledger l where run_id = $1 order by l.id`,
      [RUN],
    );
    expect(text.rows.map((r) => r.id)).toEqual(parsed.rows.map((r) => r.id));
    const kinds = new Set(parsed.rows.map((r) => `${r.source}/${r.status}`));
    expect([...kinds].sort()).toEqual(["external/scored", "verifier/scored", "verifier/spec_error"]);
    expect(parsed.rows.some((r) => r.trained_reward !== null)).toBe(true);
    expect(parsed.rows.some((r) => r.source === "external" && r.guardrails.length > 0)).toBe(true);
    parsed.rows.forEach((row, i) => {
      const line = ledgerLine(text.rows[i]);
      expect(line.endsWith("}\n")).toBe(true);
      expect(JSON.stringify(JSON.parse(line))).toBe(JSON.stringify(recordFromLedger(row)));
    });

    const rollouts = await source.pool.query(
      `select r.*, t.tools from rollouts r join tool_registries t on t.id = r.registry_id where r.run_id = $1 order by r.id`,
      [RUN],
    );
    const rolloutText = await source.pool.query<RolloutTextRow & { tools: string }>(
      `select ${ROLLOUT_TEXT_COLUMNS}, t.tools::text as tools from rollouts r join tool_registries t on t.id = r.registry_id
        where r.run_id = $1 order by r.id`,
      [RUN],
    );
    expect(rollouts.rows.length).toBeGreaterThan(200);
    expect(rollouts.rows.some((r) => r.trained_reward !== null)).toBe(true);
    expect(rollouts.rows.some((r) => r.claims !== null)).toBe(true);
    rollouts.rows.forEach((row, i) => {
      const line = rolloutLine(rolloutText.rows[i], rolloutText.rows[i].tools);
      expect(JSON.stringify(JSON.parse(line))).toBe(JSON.stringify(rolloutFromColumns(row)));
    });
  });

  it("answers over HTTP: streamed NDJSON, 400 for a bad filter, 404 for an unknown run", async () => {
    const ok = await exportResponse(RUN, new URLSearchParams({ from: "0", to: "1", cases: "0" }), source.pool);
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toMatch(/application\/x-ndjson/);
    expect(await ok.text()).toBe((await collect({ cases: false, from: 0, to: 1 })).join(""));
    const bad = await exportResponse(RUN, new URLSearchParams({ guardrail: "nope" }), source.pool);
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.message).toMatch(/^guardrail: expected a guardrail code/);
    expect((await exportResponse(RUN, new URLSearchParams({ form: "1" }), source.pool)).status).toBe(400);
    expect((await exportResponse("no-such-run", new URLSearchParams(), source.pool)).status).toBe(404);
  });
});
