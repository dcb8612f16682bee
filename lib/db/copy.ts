// COPY ... FROM STDIN in PostgreSQL's text format: the fastest way to put many rows into a table. Rows are encoded
// here in one string per batch (a batch is bounded, so is the string) and written in one go.
import type pg from "pg";
import { from as copyFrom } from "pg-copy-streams";

export type CopyValue = string | number | boolean | bigint | null | undefined;

const SPECIAL_G = /[\\\t\n\r]/g;
const ESCAPES: Record<string, string> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" };

/** One field in COPY text format: `\N` for null, backslash escapes for the four characters that need them. */
export function copyField(v: CopyValue): string {
  if (v === null || v === undefined) return "\\N";
  if (typeof v === "string") {
    // Four indexOf scans beat one character-class regex several times over on the long JSON texts of a row.
    const plain = v.indexOf("\\") < 0 && v.indexOf("\n") < 0 && v.indexOf("\t") < 0 && v.indexOf("\r") < 0;
    return plain ? v : v.replace(SPECIAL_G, (c) => ESCAPES[c]);
  }
  if (typeof v === "boolean") return v ? "t" : "f";
  return String(v);
}

export function copyLine(values: CopyValue[]): string {
  let out = copyField(values[0]);
  for (let i = 1; i < values.length; i++) out += "\t" + copyField(values[i]);
  return out + "\n";
}

/**
 * Streams the rows into `table (columns)` with COPY; resolves when the server has them. Rows go out in chunks of a
 * few hundred (with backpressure), so a batch never becomes one multi-megabyte string. No rows, no round trip.
 */
export async function copyRows(
  client: pg.PoolClient | pg.Client,
  table: string,
  columns: string[],
  rows: CopyValue[][],
): Promise<void> {
  if (rows.length === 0) return;
  const copy = openCopy(client, table, columns);
  let chunk = "";
  for (let i = 0; i < rows.length; i++) {
    chunk += copyLine(rows[i]);
    if (chunk.length >= CHUNK_BYTES || i === rows.length - 1) {
      await copy.write(chunk);
      chunk = "";
    }
  }
  await copy.end();
}

/**
 * One row's trailing fields in COPY text format, encoded once when the row is prepared, terminated by a newline.
 * Kept as bytes (outside the JavaScript heap) until the row is written: a batch waits a while before its write, and
 * strings held that long are what makes V8's young-generation collections expensive.
 */
export function encodeCopyTail(values: CopyValue[]): Buffer {
  return Buffer.from(copyLine(values), "utf8");
}

/** A row to COPY: the fields known only at write time (ids), then its tail from encodeCopyTail. */
export type EncodedRow = { head: CopyValue[]; tail: Buffer };

/** copyRows for rows whose trailing fields are already encoded; `columns` names the head's fields, then the tail's. */
export async function copyEncodedRows(
  client: pg.PoolClient | pg.Client,
  table: string,
  columns: string[],
  rows: EncodedRow[],
): Promise<void> {
  if (rows.length === 0) return;
  const copy = openCopy(client, table, columns);
  let parts: Buffer[] = [];
  let bytes = 0;
  for (let i = 0; i < rows.length; i++) {
    const { head, tail } = rows[i];
    let h = "";
    for (const v of head) h += copyField(v) + "\t";
    const hb = Buffer.from(h, "utf8");
    parts.push(hb, tail);
    bytes += hb.length + tail.length;
    if (bytes >= CHUNK_BYTES || i === rows.length - 1) {
      await copy.write(Buffer.concat(parts, bytes));
      parts = [];
      bytes = 0;
    }
  }
  await copy.end();
}

const CHUNK_BYTES = 256 * 1024;

/** A COPY ... FROM STDIN in progress: `write` waits while the socket is backed up, `end` until the server has it all. */
function openCopy(client: pg.PoolClient | pg.Client, table: string, columns: string[]) {
  const cols = columns.map((c) => `"${c}"`).join(", ");
  const stream = client.query(copyFrom(`COPY "${table}" (${cols}) FROM STDIN`));
  const done = new Promise<void>((resolve, reject) => {
    stream.on("error", reject);
    stream.on("finish", resolve);
  });
  return {
    async write(chunk: string | Buffer): Promise<void> {
      if (!stream.write(chunk)) await Promise.race([new Promise((r) => stream.once("drain", r)), done]);
    },
    async end(): Promise<void> {
      stream.end();
      await done;
    },
  };
}
