import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import type pg from "pg";

// Reduces both prisma/schema.prisma and a live database to the same comparable shape: tables, columns (type,
// nullability, default kind), enums, indexes and foreign keys. Used by the test that proves the hand-written
// SQL migrations produce exactly the schema the Prisma client was generated from.

export type Shape = {
  tables: string[];
  columns: string[]; // "table.column type null|not null default?"
  enums: string[]; // "Enum: a,b,c"
  indexes: string[]; // "table primary|unique|index (col,col)"
  /** Indexes on expressions, by name: Prisma's schema cannot express them, so they are compared with SQL_ONLY_INDEXES. */
  expressionIndexes?: string[];
  foreignKeys: string[]; // "table(col) -> table(col) on delete X"
};

type DmmfField = {
  name: string;
  dbName?: string | null;
  kind: "scalar" | "enum" | "object" | "unsupported";
  isList: boolean;
  isRequired: boolean;
  isUpdatedAt: boolean;
  type: string;
  nativeType?: [string, string[]] | null;
  default?: unknown;
  hasDefaultValue: boolean;
  relationFromFields?: string[];
  relationToFields?: string[];
  relationOnDelete?: string;
};
type DmmfModel = { name: string; dbName: string | null; fields: DmmfField[] };
type Dmmf = {
  datamodel: {
    models: DmmfModel[];
    enums: { name: string; dbName: string | null; values: { name: string; dbName: string | null }[] }[];
    indexes: { model: string; type: "id" | "unique" | "normal" | "fulltext"; fields: { name: string }[] }[];
  };
};

const SCALAR_TO_PG: Record<string, string> = {
  String: "text",
  Int: "integer",
  BigInt: "bigint",
  Float: "double precision",
  Boolean: "boolean",
  Json: "jsonb",
  DateTime: "timestamp(3)",
  Decimal: "numeric(65,30)",
  Bytes: "bytea",
};
const NATIVE_TO_PG: Record<string, (args: string[]) => string> = {
  Timestamptz: (a) => `timestamptz(${a[0] ?? 6})`,
  Timestamp: (a) => `timestamp(${a[0] ?? 6})`,
  VarChar: (a) => (a[0] ? `varchar(${a[0]})` : "varchar"),
  Text: () => "text",
  Uuid: () => "uuid",
  Integer: () => "integer",
  SmallInt: () => "smallint",
  DoublePrecision: () => "double precision",
};

/**
 * Expression indexes and partial unique indexes created by migrations that schema.prisma cannot describe (each
 * justified in its migration): a partial unique index written as @@unique would tell the client a uniqueness that
 * holds only for some rows.
 */
export const SQL_ONLY_INDEXES = [
  "ledger_reward_sort_id_idx",
  "ledger_deciding_reward_sort_id_idx",
  "audit_items_one_lease_idx",
  "ledger_one_current_idx",
];

export function loadDmmf(schemaPath = path.resolve(import.meta.dirname, "../../prisma/schema.prisma")): Dmmf {
  const require = createRequire(import.meta.url);
  const wasm = require("@prisma/prisma-schema-wasm") as { get_dmmf: (params: string) => string };
  const prismaSchema = fs.readFileSync(schemaPath, "utf8");
  return JSON.parse(wasm.get_dmmf(JSON.stringify({ prismaSchema: [["schema.prisma", prismaSchema]] })));
}

function defaultKind(f: DmmfField): string {
  if (!f.hasDefaultValue) return "";
  const d = f.default as { name?: string } | string | number | boolean | undefined;
  if (d && typeof d === "object" && d.name === "autoincrement") return " default:serial";
  return " default";
}

export function shapeFromDmmf(dmmf: Dmmf): Shape {
  const models = dmmf.datamodel.models;
  const tableOf = (m: DmmfModel) => m.dbName ?? m.name;
  const byName = new Map(models.map((m) => [m.name, m]));
  const col = (m: DmmfModel, field: string) => {
    const f = m.fields.find((x) => x.name === field)!;
    return f.dbName ?? f.name;
  };
  const enumDb = new Map(dmmf.datamodel.enums.map((e) => [e.name, e.dbName ?? e.name]));
  const columns: string[] = [];
  const foreignKeys: string[] = [];
  for (const m of models) {
    for (const f of m.fields) {
      if (f.kind === "object") {
        if (f.relationFromFields?.length) {
          const target = byName.get(f.type)!;
          const onDelete = f.relationOnDelete ?? (f.isRequired ? "Restrict" : "SetNull");
          foreignKeys.push(
            `${tableOf(m)}(${f.relationFromFields.map((x) => col(m, x)).join(",")}) -> ` +
              `${tableOf(target)}(${f.relationToFields!.map((x) => col(target, x)).join(",")}) on delete ${onDelete.toLowerCase()}`,
          );
        }
        continue;
      }
      let type =
        f.kind === "enum"
          ? enumDb.get(f.type)!
          : f.nativeType
            ? (NATIVE_TO_PG[f.nativeType[0]]?.(f.nativeType[1]) ?? f.nativeType[0].toLowerCase())
            : SCALAR_TO_PG[f.type];
      if (f.isList) type += "[]";
      // Postgres scalar lists are created nullable by Prisma; everything else follows isRequired.
      const nullable = f.isList ? true : !f.isRequired;
      columns.push(`${tableOf(m)}.${f.dbName ?? f.name} ${type} ${nullable ? "null" : "not null"}${defaultKind(f)}`);
    }
  }
  const indexes = dmmf.datamodel.indexes
    .filter((i) => i.type !== "fulltext")
    .map((i) => {
      const m = byName.get(i.model)!;
      const kind = i.type === "id" ? "primary" : i.type === "unique" ? "unique" : "index";
      return `${tableOf(m)} ${kind} (${i.fields.map((x) => col(m, x.name)).join(",")})`;
    });
  return {
    tables: models.map(tableOf).sort(),
    columns: columns.sort(),
    enums: dmmf.datamodel.enums
      .map((e) => `${e.dbName ?? e.name}: ${e.values.map((v) => v.dbName ?? v.name).join(",")}`)
      .sort(),
    indexes: indexes.sort(),
    foreignKeys: foreignKeys.sort(),
  };
}

const PG_ON_DELETE: Record<string, string> = {
  a: "noaction",
  r: "restrict",
  c: "cascade",
  n: "setnull",
  d: "setdefault",
};

/**
 * The same shape read from a live database's catalog (schema `public`, Prisma's bookkeeping table excluded). A
 * partitioned table counts once, as its parent: its partitions (one per run, 014) and the indexes and foreign keys
 * PostgreSQL clones onto them are not part of the schema.
 */
export async function shapeFromDatabase(client: pg.ClientBase): Promise<Shape> {
  const skip = "'_prisma_migrations'";
  const tables = await client.query<{ t: string }>(
    `select c.relname as t from pg_class c join pg_namespace n on n.oid = c.relnamespace and n.nspname = 'public'
      where c.relkind in ('r', 'p') and not c.relispartition and c.relname not in (${skip}) order by 1`,
  );
  const columns = await client.query<{ t: string; c: string; type: string; notnull: boolean; def: string | null }>(
    `select c.relname as t, a.attname as c, format_type(a.atttypid, a.atttypmod) as type, a.attnotnull as notnull,
            pg_get_expr(d.adbin, d.adrelid) as def
       from pg_attribute a
       join pg_class c on c.oid = a.attrelid and c.relkind in ('r', 'p') and not c.relispartition
       join pg_namespace n on n.oid = c.relnamespace and n.nspname = 'public'
       left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
      where a.attnum > 0 and not a.attisdropped and c.relname not in (${skip})`,
  );
  const enums = await client.query<{ e: string; vals: string }>(
    `select t.typname as e, string_agg(e.enumlabel, ',' order by e.enumsortorder) as vals
       from pg_type t join pg_enum e on e.enumtypid = t.oid
       join pg_namespace n on n.oid = t.typnamespace and n.nspname = 'public' group by t.typname`,
  );
  const indexes = await client.query<{
    t: string;
    uniq: boolean;
    pk: boolean;
    cols: string;
    name: string;
    expr: boolean;
  }>(
    `select c.relname as t, i.indisunique as uniq, i.indisprimary as pk, ic.relname as name, (i.indexprs is not null or (i.indisunique and i.indpred is not null)) as expr,
            (select string_agg(a.attname, ',' order by k.ord)
               from unnest(i.indkey) with ordinality as k(attnum, ord)
               join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum) as cols
       from pg_index i join pg_class c on c.oid = i.indrelid join pg_class ic on ic.oid = i.indexrelid
       join pg_namespace n on n.oid = c.relnamespace and n.nspname = 'public'
      where c.relname not in (${skip}) and not c.relispartition`,
  );
  const fks = await client.query<{ t: string; cols: string; rt: string; rcols: string; del: string }>(
    `select c.relname as t, rc.relname as rt, con.confdeltype as del,
            (select string_agg(a.attname, ',' order by k.ord) from unnest(con.conkey) with ordinality k(n, ord)
               join pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.n) as cols,
            (select string_agg(a.attname, ',' order by k.ord) from unnest(con.confkey) with ordinality k(n, ord)
               join pg_attribute a on a.attrelid = con.confrelid and a.attnum = k.n) as rcols
       from pg_constraint con join pg_class c on c.oid = con.conrelid join pg_class rc on rc.oid = con.confrelid
       join pg_namespace n on n.oid = c.relnamespace and n.nspname = 'public'
      where con.contype = 'f' and con.conparentid = 0 and not c.relispartition`,
  );
  const pgType = (t: string) =>
    t
      .replace(/^timestamp\((\d)\) with time zone/, "timestamptz($1)")
      .replace(/^timestamp\((\d)\) without time zone/, "timestamp($1)")
      .replace(/^character varying/, "varchar")
      .replace(/^"(.*)"(\[\])?$/, "$1$2");
  return {
    tables: tables.rows.map((r) => r.t).sort(),
    columns: columns.rows
      .map((r) => {
        const def = r.def === null ? "" : r.def.startsWith("nextval(") ? " default:serial" : " default";
        return `${r.t}.${r.c} ${pgType(r.type)} ${r.notnull ? "not null" : "null"}${def}`;
      })
      .sort(),
    enums: enums.rows.map((r) => `${r.e}: ${r.vals}`).sort(),
    indexes: indexes.rows
      .filter((r) => !r.expr)
      .map((r) => `${r.t} ${r.pk ? "primary" : r.uniq ? "unique" : "index"} (${r.cols})`)
      .sort(),
    expressionIndexes: indexes.rows
      .filter((r) => r.expr)
      .map((r) => r.name)
      .sort(),
    foreignKeys: fks.rows
      .map((r) => `${r.t}(${r.cols}) -> ${r.rt}(${r.rcols}) on delete ${PG_ON_DELETE[r.del]}`)
      .sort(),
  };
}
