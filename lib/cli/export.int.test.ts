import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { run } from "@/lib/cli/export.ts";
import { bulkPool } from "@/lib/db/pool.ts";
import { expectedParquetRows, ingestParquetLedger, withParsedReasons } from "@/lib/testing/parquet-data.ts";
import { readParquetFile } from "@/lib/testing/parquet-reader.ts";
import { captureIo } from "@/lib/testing/cli-io.ts";

// A ledger of its own (lib/testing/parquet-data.ts) under a fresh run id in the shared test database.
const runId = `pq-cli-${randomBytes(4).toString("hex")}`;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verity-export-"));

beforeAll(async () => {
  await ingestParquetLedger(bulkPool(), runId);
});

describe("verity export --format parquet", () => {
  it("writes every current entry; DuckDB reads back the ledger's rows, nulls and guardrail-code lists included", async () => {
    const file = path.join(dir, "all.parquet");
    const c = captureIo();
    expect(await run(["--run", runId, "--format", "parquet", "--out", file], c.io)).toBe(0);
    expect(c.err.join("\n")).toMatch(new RegExp(`bytes of Parquet written to ${file}`));
    const view = await readParquetFile(file);
    const expected = await expectedParquetRows(bulkPool(), runId);
    expect(view.rows.map(withParsedReasons)).toEqual(expected);
    // The fixture holds what each column can: external entries (no rollout, no group, null sub-scores), re-scored
    // entries that supersede others, empty, single and multiple guardrail lists.
    expect(expected.length).toBe(32);
    const rows = view.rows;
    expect(rows.some((r) => r.source === "external" && r.sample_index === null && r.group_id === null)).toBe(true);
    expect(rows.some((r) => r.evidence === null)).toBe(true);
    expect(rows.some((r) => typeof r.supersedes_id === "bigint")).toBe(true);
    expect(rows.some((r) => r.supersedes_id === null)).toBe(true);
    expect(rows.some((r) => (r.guardrail_codes as string[]).length === 0)).toBe(true);
    expect(rows.find((r) => r.trajectory_id === `${runId}/x1`)?.guardrail_codes).toEqual([
      "empty_promise",
      "policy_error",
    ]);
    expect(rows.some((r) => r.sample_index === 2)).toBe(true);
    expect(rows.find((r) => r.trajectory_id === `${runId}/x2`)?.trained_reward).toBe(0.75);
    expect(rows.filter((r) => r.trained_reward === 1).length).toBe(10);
    expect(rows.some((r) => r.trained_reward === null)).toBe(true);
    expect(view.metadata["verity.export"]).toBe(
      JSON.stringify({ kind: "ledger", run_id: runId, from: null, to: null, guardrail: null }),
    );
  });

  it("declares the schema: UTF-8 strings, a LIST of strings, UTC millisecond timestamps, nullability, snappy", async () => {
    const file = path.join(dir, "schema.parquet");
    expect(await run(["--run", runId, "--format", "parquet", "--out", file], captureIo().io)).toBe(0);
    const { types, schema, codecs } = await readParquetFile(file);
    expect(types).toEqual({
      id: "BIGINT",
      trajectory_id: "VARCHAR",
      supersedes_id: "BIGINT",
      run_id: "VARCHAR",
      step: "INTEGER",
      group_id: "VARCHAR",
      sample_index: "INTEGER",
      ticket_id: "VARCHAR",
      category: "VARCHAR",
      status: "VARCHAR",
      source: "VARCHAR",
      reward: "DOUBLE",
      raw_reward: "DOUBLE",
      trained_reward: "DOUBLE",
      outcome: "DOUBLE",
      policy: "DOUBLE",
      evidence: "DOUBLE",
      efficiency: "DOUBLE",
      communication: "DOUBLE",
      capped: "BOOLEAN",
      deciding_guardrail: "VARCHAR",
      guardrail_codes: "VARCHAR[]",
      reasons: "VARCHAR",
      handoff: "BOOLEAN",
      tool_steps: "INTEGER",
      verifier_version: "VARCHAR",
      config_hash: "VARCHAR",
      created_at: "TIMESTAMP WITH TIME ZONE",
    });
    expect(schema.trajectory_id).toEqual({
      type: "BYTE_ARRAY",
      repetition: "REQUIRED",
      converted: "UTF8",
      logical: "StringType()",
    });
    expect(schema.reward).toMatchObject({ type: "DOUBLE", repetition: "OPTIONAL" });
    expect(schema.sample_index).toMatchObject({ type: "INT32", repetition: "OPTIONAL" });
    expect(schema.capped).toMatchObject({ type: "BOOLEAN", repetition: "REQUIRED" });
    expect(schema.guardrail_codes).toEqual({
      type: null,
      repetition: "REQUIRED",
      converted: "LIST",
      logical: "ListType()",
    });
    expect(schema.list).toMatchObject({ repetition: "REPEATED" });
    expect(schema.element).toMatchObject({ type: "BYTE_ARRAY", repetition: "REQUIRED", converted: "UTF8" });
    expect(schema.created_at).toMatchObject({ type: "INT64", converted: "TIMESTAMP_MILLIS" });
    expect(schema.created_at.logical).toMatch(/^TimestampType\(isAdjustedToUTC=1, unit=TimeUnit\(MILLIS=/);
    expect(codecs).toEqual(["SNAPPY"]);
  });

  it("writes row groups of the size asked for, and the same rows whatever the size", async () => {
    const small = path.join(dir, "groups.parquet");
    expect(
      await run(["--run", runId, "--format", "parquet", "--row-group", "1000", "--out", small], captureIo().io),
    ).toBe(0);
    const view = await readParquetFile(small);
    expect(view.rows.map(withParsedReasons)).toEqual(await expectedParquetRows(bulkPool(), runId));
  });

  it("filters by step range and guardrail, and an empty selection is a file with the schema and no rows", async () => {
    const mid = path.join(dir, "mid.parquet");
    expect(
      await run(["--run", runId, "--format", "parquet", "--from", "1", "--to", "2", "--out", mid], captureIo().io),
    ).toBe(0);
    expect((await readParquetFile(mid)).rows.map(withParsedReasons)).toEqual(
      await expectedParquetRows(bulkPool(), runId, { from: 1, to: 2 }),
    );
    const hits = path.join(dir, "hits.parquet");
    const args = ["--run", runId, "--format", "parquet", "--guardrail", "empty_promise", "--out", hits];
    expect(await run(args, captureIo().io)).toBe(0);
    const got = (await readParquetFile(hits)).rows;
    const want = (await expectedParquetRows(bulkPool(), runId)).filter((r) =>
      (r.guardrail_codes as string[]).includes("empty_promise"),
    );
    expect(got.length).toBeGreaterThan(1);
    expect(got.map((r) => r.id)).toEqual(want.map((r) => r.id));
    const none = path.join(dir, "none.parquet");
    expect(await run(["--run", runId, "--format", "parquet", "--from", "900", "--out", none], captureIo().io)).toBe(0);
    const empty = await readParquetFile(none);
    expect(empty.rows).toEqual([]);
    expect(empty.types.guardrail_codes).toBe("VARCHAR[]");
  });

  it("names what is wrong with the flags, and an unknown run", async () => {
    const bad = captureIo();
    const file = path.join(dir, "bad.parquet");
    expect(await run(["--run", runId, "--format", "arrow", "--out", file], bad.io)).toBe(2);
    expect(bad.err[0]).toMatch(/^verity export: --format: must be ndjson or parquet, not arrow/);
    const cases = captureIo();
    expect(await run(["--run", runId, "--format", "parquet", "--no-cases", "--out", file], cases.io)).toBe(2);
    expect(cases.err[0]).toMatch(/^verity export: --no-cases: applies to --format ndjson only/);
    const group = captureIo();
    expect(await run(["--run", runId, "--format", "parquet", "--row-group", "10", "--out", file], group.io)).toBe(2);
    expect(group.err[0]).toMatch(/^verity export: --row-group: must be a whole number from 1,000 to 1,000,000, not 10/);
    expect(await run(["--run", runId, "--row-group", "5000"], group.io)).toBe(2);
    expect(group.err[1]).toMatch(/^verity export: --row-group: applies to --format parquet only/);
    const range = captureIo();
    expect(
      await run(["--run", runId, "--format", "parquet", "--from", "5", "--to", "2", "--out", file], range.io),
    ).toBe(2);
    expect(range.err[0]).toMatch(/^verity export: --to: must be at least `from`/);
    const missing = captureIo();
    expect(await run(["--run", `${runId}-nope`, "--format", "parquet", "--out", file], missing.io)).toBe(1);
    expect(missing.err[0]).toBe(`verity export: no run ${JSON.stringify(`${runId}-nope`)}`);
    expect(fs.existsSync(file)).toBe(false);
  });
});
