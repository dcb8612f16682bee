import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { bulkPool } from "@/lib/db/pool.ts";
import { exportBrowseParquet } from "@/lib/ledger/browse-parquet-data.ts";
import { browseParamsSchema } from "@/lib/ledger/browse-schema.ts";
import { expectedParquetRows, ingestParquetLedger, withParsedReasons } from "@/lib/testing/parquet-data.ts";
import { readParquetFile } from "@/lib/testing/parquet-reader.ts";

const run = `pq-browse-${randomBytes(4).toString("hex")}`;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verity-browse-parquet-"));

beforeAll(async () => {
  await ingestParquetLedger(bulkPool(), run);
});

async function written(query: Record<string, string>, batchSize: number) {
  const file = path.join(dir, `${randomBytes(4).toString("hex")}.parquet`);
  const chunks: Uint8Array[] = [];
  for await (const c of exportBrowseParquet(browseParamsSchema.parse(query), batchSize)) chunks.push(c);
  fs.writeFileSync(file, Buffer.concat(chunks));
  return readParquetFile(file);
}

describe("the browser's matches as Parquet", () => {
  it("holds the run export's rows of exactly the browser's matches, in (step, id) order across batches", async () => {
    // batches of 4: the keyset continues across a step's entries and across steps
    const view = await written({ run, step_from: "1" }, 4);
    const expected = await expectedParquetRows(bulkPool(), run, { from: 1 });
    expect(expected.length).toBeGreaterThan(8);
    expect(view.rows.map(withParsedReasons)).toEqual(expected);
    expect(JSON.parse(view.metadata["verity.export"])).toEqual({
      kind: "trajectories",
      filter: `run=${run}&step_from=1`,
    });
  });

  it("narrows to the filters: a guardrail keeps only its entries, none matching is an empty file", async () => {
    const all = await expectedParquetRows(bulkPool(), run);
    const capped = all.filter((r) => (r.guardrail_codes as string[]).includes("duplicate_side_effect"));
    expect(capped.length).toBeGreaterThan(0);
    const view = await written({ run, any: "duplicate_side_effect" }, 5000);
    expect(view.rows.map(withParsedReasons)).toEqual(capped);
    expect((await written({ run, step_from: "999999" }, 5000)).rows).toEqual([]);
  });
});
