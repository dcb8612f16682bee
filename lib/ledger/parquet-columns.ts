// The columns of a Parquet ledger export (docs/formats.md "Parquet export"): one flat row per current ledger entry.
// Each column is said once here — its name (also the SQL alias it is selected as), its Parquet type and whether it
// may be null — and the Parquet schema, the SQL select list and the column builder are derived from this table.
import type { ParquetWriter } from "hyparquet-writer";

export type SchemaElement = ConstructorParameters<typeof ParquetWriter>[0]["schema"][number];

/** int64: a bigint column (pg hands it over as text); strings: list of UTF-8 strings; timestamp: UTC, milliseconds. */
type Kind = "int64" | "int32" | "double" | "boolean" | "string" | "string_list" | "timestamp";

export type ParquetColumn = { name: string; kind: Kind; nullable: boolean; sql: string };

const col = (name: string, kind: Kind, nullable: boolean, sql = `l.${name}`): ParquetColumn => ({
  name,
  kind,
  nullable,
  sql,
});

/** The ledger reads as `l`, the rollout it scores (absent for an external record without one) as `ro`. */
export const PARQUET_COLUMNS: readonly ParquetColumn[] = [
  col("id", "int64", false, "l.id::text"),
  col("trajectory_id", "string", false),
  col("supersedes_id", "int64", true, "l.supersedes_id::text"),
  col("run_id", "string", false),
  col("step", "int32", false),
  col("group_id", "string", true),
  col("sample_index", "int32", true, "ro.sample_index"),
  col("ticket_id", "string", false),
  col("category", "string", true),
  col("status", "string", false, "l.status::text"),
  col("source", "string", false, "l.source::text"),
  col("reward", "double", true),
  col("raw_reward", "double", true),
  // The number the trainer optimized, when its rollout or score record carried one.
  col("trained_reward", "double", true),
  col("outcome", "double", true),
  col("policy", "double", true),
  col("evidence", "double", true),
  col("efficiency", "double", true),
  col("communication", "double", true),
  col("capped", "boolean", false),
  col("deciding_guardrail", "string", true),
  // The codes in the record's own order (the order of the `guardrails` array), empty when none triggered.
  col(
    "guardrail_codes",
    "string_list",
    false,
    `coalesce((select array_agg(x.g ->> 'code' order by x.o) from jsonb_array_elements(l.guardrails) with ordinality x(g, o)), '{}')`,
  ),
  col("reasons", "string", false, "l.reasons::text"),
  col("handoff", "boolean", true),
  col("tool_steps", "int32", true),
  col("verifier_version", "string", true),
  col("config_hash", "string", true),
  col("created_at", "timestamp", false),
];

/** The select list, each column under its own name. */
export const PARQUET_SELECT = PARQUET_COLUMNS.map((c) => `${c.sql} as ${c.name}`).join(", ");

/** The join that brings the rollout's sample index. */
export const PARQUET_JOIN = "left join rollouts ro on ro.run_id = l.run_id and ro.id = l.rollout_id";

const UTF8 = { type: "BYTE_ARRAY", converted_type: "UTF8", logical_type: { type: "STRING" } } as const;

function schemaOf(c: ParquetColumn): SchemaElement[] {
  const repetition_type = c.nullable ? "OPTIONAL" : "REQUIRED";
  switch (c.kind) {
    case "int64":
      return [{ name: c.name, type: "INT64", repetition_type }];
    case "int32":
      return [{ name: c.name, type: "INT32", repetition_type }];
    case "double":
      return [{ name: c.name, type: "DOUBLE", repetition_type }];
    case "boolean":
      return [{ name: c.name, type: "BOOLEAN", repetition_type }];
    case "string":
      return [{ name: c.name, ...UTF8, repetition_type }];
    case "timestamp":
      return [
        {
          name: c.name,
          type: "INT64",
          converted_type: "TIMESTAMP_MILLIS",
          logical_type: { type: "TIMESTAMP", isAdjustedToUTC: true, unit: "MILLIS" },
          repetition_type,
        },
      ];
    case "string_list":
      // The three-level LIST of the Parquet spec (LogicalTypes.md "Lists"), as pyarrow, DuckDB and Spark write it.
      return [
        { name: c.name, repetition_type, num_children: 1, converted_type: "LIST", logical_type: { type: "LIST" } },
        { name: "list", repetition_type: "REPEATED", num_children: 1 },
        { name: "element", ...UTF8, repetition_type: "REQUIRED" },
      ];
  }
}

export const PARQUET_SCHEMA: SchemaElement[] = [
  { name: "schema", num_children: PARQUET_COLUMNS.length },
  ...PARQUET_COLUMNS.flatMap(schemaOf),
];

/** A row as the select list returns it (pg: bigint as text, timestamptz as Date, text[] as string[]). */
export type ParquetRow = Record<string, unknown> & { id: string; step: number };

/** Column arrays for one row group, filled row by row. */
export class ColumnBuilder {
  private data: unknown[][] = PARQUET_COLUMNS.map(() => []);
  rows = 0;

  push(r: ParquetRow): void {
    for (let i = 0; i < PARQUET_COLUMNS.length; i++) {
      const c = PARQUET_COLUMNS[i];
      const v = r[c.name];
      this.data[i].push(c.kind === "int64" && v !== null && v !== undefined ? BigInt(v as string) : v);
    }
    this.rows++;
  }

  /** The row group's columns, and a fresh builder state for the next group. */
  take(): { name: string; data: unknown[] }[] {
    const out = PARQUET_COLUMNS.map((c, i) => ({ name: c.name, data: this.data[i] }));
    this.data = PARQUET_COLUMNS.map(() => []);
    this.rows = 0;
    return out;
  }
}
