// The index review of 020 on the partitioned tables: which indexes of the run-scoped tables lead with run_id (only
// those a query reads index-only, or the keys PostgreSQL requires to hold the partition key), and the plans of the
// reads that changed index: the clusters' reason signatures index-only, the export's guardrail filter in key order.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { caseLine, rolloutLine } from "@/lib/testing/ingest-fixtures.ts";
import { freshDatabase, ingestText, ndjson, type TestDatabase } from "@/lib/testing/ingest-db.ts";

const RUN = "idx-run";
const RUN_SCOPED = ["rollouts", "ledger", "ledger_guardrails", "ledger_reasons"];
let t: TestDatabase;

beforeAll(async () => {
  t = await freshDatabase("index_review");
  const lines: unknown[] = [caseLine("T-1", "03"), caseLine("T-2")];
  for (let i = 0; i < 40; i++) lines.push(rolloutLine(`${RUN}/t${i}`, i % 2 ? "T-1" : "T-2", { run: RUN, step: i }));
  const s = await ingestText(t.pool, ndjson(lines));
  expect(s.rejected).toBe(0);
  await t.pool.query("analyze");
}, 60_000);
afterAll(async () => t?.drop());

async function plan(sql: string, params: unknown[]): Promise<string> {
  const c = await t.pool.connect();
  try {
    await c.query("begin");
    // The fixture is tiny: without this the planner scans every table whatever its indexes.
    await c.query("set local enable_seqscan = off; set local enable_bitmapscan = off");
    const { rows } = await c.query(`explain ${sql}`, params);
    return rows.map((r) => r["QUERY PLAN"]).join("\n");
  } finally {
    await c.query("rollback");
    c.release();
  }
}

describe("020: indexes of the run-scoped tables", () => {
  it("lead with run_id only where a key must hold it or a scan reads the index alone", async () => {
    const { rows } = await t.pool.query<{ name: string }>(
      `select ic.relname as name
         from pg_index i join pg_class ic on ic.oid = i.indexrelid join pg_class tc on tc.oid = i.indrelid
         join pg_attribute a on a.attrelid = tc.oid and a.attnum = i.indkey[0]
        where tc.relname = any($1) and tc.relkind = 'p' and a.attname = 'run_id' and not i.indisunique
          and not i.indisprimary
        order by 1`,
      [RUN_SCOPED],
    );
    expect(rows.map((r) => r.name)).toEqual([
      "ledger_clusters_idx",
      "ledger_handoffs_idx",
      "ledger_trained_differs_idx",
      "rollouts_no_writes_idx",
    ]);
  });

  it("answer the clusters' reason-signature probe from the index alone", async () => {
    // lib/clusters/data.ts signatureSampleQuery: one entry's distinct (code, tool, field) in its run.
    const id = (await t.pool.query("select id from ledger where run_id = $1 limit 1", [RUN])).rows[0].id;
    const text = await plan(
      "select distinct r.code, r.tool, r.field from ledger_reasons r where r.run_id = $1 and r.ledger_id = $2",
      [RUN, id],
    );
    // The partition's copy of ledger_reasons_signature_idx (a derived name, cut at 63 characters), not the key.
    expect(text).toMatch(/Index Only Scan using ledger_reasons_r[0-9a-f]+_ledger_id_code_tool_field/);
  });

  it("read the export's guardrail filter in its keyset order, without a sort", async () => {
    // lib/ledger/export.ts currentEntryBatches with a guardrail: keyset on (step, ledger_id) within one code.
    const text = await plan(
      `select g.ledger_id, g.step from ledger_guardrails g
        where g.run_id = $1 and g.code = $2 and g.step between 0 and 100 and (g.step, g.ledger_id) > (-1, 0::bigint)
        order by g.step, g.ledger_id limit 10`,
      [RUN, "missing_evidence"],
    );
    expect(text).toMatch(/Index (Only )?Scan using ledger_guardrails_r[0-9a-f]+_code_step_ledger_id_idx/);
    expect(text).not.toMatch(/Sort/);
  });
});
