import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PARQUET_COLUMNS, type ParquetRow } from "@/lib/ledger/parquet-columns.ts";
import { parquetChunks } from "@/lib/ledger/parquet.ts";
import { readParquetFile } from "@/lib/testing/parquet-reader.ts";

function row(i: number): ParquetRow {
  const r: Record<string, unknown> = {};
  for (const c of PARQUET_COLUMNS) {
    r[c.name] =
      c.nullable && i % 3 === 0
        ? null
        : {
            int64: String(i),
            int32: i,
            double: i / 8,
            boolean: i % 2 === 0,
            string: `s${i}`,
            string_list: ["a", `b${i}`].slice(0, i % 3),
            timestamp: new Date(Date.UTC(2026, 0, 1) + i),
          }[c.kind];
  }
  return r as ParquetRow;
}

describe("parquetChunks", () => {
  it("hands on each row group as soon as it is full, before later batches are read, and ends with the footer", async () => {
    const rows = Array.from({ length: 35 }, (_, i) => row(i));
    let pulled = 0;
    async function* batches() {
      for (let i = 0; i < rows.length; i += 4) {
        pulled++;
        yield rows.slice(i, i + 4);
      }
    }
    const chunks: Uint8Array[] = [];
    const pulledAt: number[] = [];
    for await (const c of parquetChunks(batches(), { rowGroupRows: 10 })) {
      chunks.push(c);
      pulledAt.push(pulled);
    }
    // 9 batches of 4 rows; the first group of 10 is complete within the third batch.
    expect(pulledAt[0]).toBe(3);
    expect(pulledAt.at(-1)).toBe(9);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "verity-parquet-")), "t.parquet");
    fs.writeFileSync(file, Buffer.concat(chunks));
    const view = await readParquetFile(file);
    expect(view.rowGroups).toEqual([10, 10, 10, 5]);
    expect(view.rows.map((r) => r.id)).toEqual(rows.map((_, i) => BigInt(i)));
    expect(view.rows[3]).toMatchObject({ reward: null, step: 3, guardrail_codes: [], handoff: null });
    expect(view.rows[5]).toMatchObject({ reward: 5 / 8, trajectory_id: "s5", guardrail_codes: ["a", "b5"] });
    expect(view.rows[5].created_at).toEqual(new Date(Date.UTC(2026, 0, 1) + 5));
  });

  it("writes a file with the schema and no row groups when there are no rows", async () => {
    const chunks: Uint8Array[] = [];
    for await (const c of parquetChunks((async function* () {})(), { metadata: { k: "v" } })) chunks.push(c);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "verity-parquet-")), "empty.parquet");
    fs.writeFileSync(file, Buffer.concat(chunks));
    const view = await readParquetFile(file);
    expect(view.rows).toEqual([]);
    expect(view.rowGroups).toEqual([]);
    expect(Object.keys(view.types)).toEqual(PARQUET_COLUMNS.map((c) => c.name));
    expect(view.metadata).toEqual({ k: "v" });
  });
});
