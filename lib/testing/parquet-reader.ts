// Test support: Parquet files read back by DuckDB (@duckdb/node-api), a C++ implementation independent of the
// JavaScript writer the product uses, so a test proves the file is readable by another engine, not by its author.
import { DuckDBInstance } from "@duckdb/node-api";

export type ParquetFileView = {
  /** Rows in file order, as DuckDB's JavaScript values (BIGINT → bigint, TIMESTAMPTZ → Date, LIST → array). */
  rows: Record<string, unknown>[];
  /** DuckDB's column types (`DESCRIBE`): VARCHAR, BIGINT, DOUBLE, VARCHAR[], TIMESTAMP WITH TIME ZONE … */
  types: Record<string, string>;
  /** The file's own schema elements, by name (the LIST's `list` and `element` included). */
  schema: Record<
    string,
    { type: string | null; repetition: string | null; converted: string | null; logical: string | null }
  >;
  /** Row groups and their row counts, and every column chunk's compression codec. */
  rowGroups: number[];
  codecs: string[];
  /** The footer's key-value metadata. */
  metadata: Record<string, string>;
};

const quote = (s: string) => `'${s.replaceAll("'", "''")}'`;

export async function readParquetFile(file: string): Promise<ParquetFileView> {
  const instance = await DuckDBInstance.create(":memory:");
  const db = await instance.connect();
  try {
    const f = quote(file);
    const all = async (sql: string) => (await db.runAndReadAll(sql)).getRowObjectsJS();
    const rows = await all(`select * from read_parquet(${f})`);
    const types = Object.fromEntries(
      (await all(`describe select * from read_parquet(${f})`)).map((r) => [r.column_name, r.column_type]),
    ) as Record<string, string>;
    const schema = Object.fromEntries(
      (await all(`select name, type, repetition_type, converted_type, logical_type from parquet_schema(${f})`)).map(
        (r) => [
          r.name,
          { type: r.type, repetition: r.repetition_type, converted: r.converted_type, logical: r.logical_type },
        ],
      ),
    ) as ParquetFileView["schema"];
    const groups = await all(
      `select row_group_id, any_value(row_group_num_rows) as n from parquet_metadata(${f}) group by 1 order by 1`,
    );
    const codecs = (await all(`select distinct compression from parquet_metadata(${f})`)).map((r) =>
      String(r.compression),
    );
    const metadata = Object.fromEntries(
      (await all(`select decode(key) as key, decode(value) as value from parquet_kv_metadata(${f})`)).map((r) => [
        r.key,
        r.value,
      ]),
    ) as Record<string, string>;
    return { rows, types, schema, rowGroups: groups.map((g) => Number(g.n)), codecs, metadata };
  } finally {
    db.closeSync();
    instance.closeSync();
  }
}

/** Rows and row groups of a file, by DuckDB, without reading the rows into JavaScript (for the benchmark). */
export async function countParquetRows(file: string): Promise<{ rows: number; rowGroups: number }> {
  const instance = await DuckDBInstance.create(":memory:");
  const db = await instance.connect();
  try {
    const f = quote(file);
    const [r] = (
      await db.runAndReadAll(
        `select (select count(*) from read_parquet(${f})) as n, (select count(distinct row_group_id) from parquet_metadata(${f})) as g`,
      )
    ).getRowObjectsJS();
    return { rows: Number(r.n), rowGroups: Number(r.g) };
  } finally {
    db.closeSync();
    instance.closeSync();
  }
}
