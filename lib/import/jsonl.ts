// `verity import jsonl`: a rollout dump read line by line (gzip or not) through the ingest path, each line mapped
// by a JsonlMapper to a rollout, an external score record and a minimal case. The same validation, idempotence,
// batching and bounded memory as `verity ingest` (lib/ingest/ingest.ts).
import fs from "node:fs";
import { createGunzip } from "node:zlib";
import { ingestStream, type IngestOptions } from "@/lib/ingest/ingest.ts";
import type { IngestSummary } from "@/lib/ingest/schema.ts";
import { JsonlMapper, type JsonlDefaults } from "@/lib/import/jsonl-line.ts";
import type { ImportMap } from "@/lib/import/jsonl-map.ts";

export type JsonlImportOptions = Omit<IngestOptions, "mapper" | "format" | "defaults"> & {
  map: ImportMap;
  defaults: JsonlDefaults;
};

/** Whether a file starts with gzip's magic bytes (1f 8b), whatever its name. */
export function isGzipFile(file: string): boolean {
  const fd = fs.openSync(file, "r");
  try {
    const head = Buffer.alloc(2);
    return fs.readSync(fd, head, 0, 2, 0) === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    fs.closeSync(fd);
  }
}

/** The file's lines, decompressed as they stream when it is gzip. */
export function openDump(file: string): NodeJS.ReadableStream & AsyncIterable<Uint8Array> {
  const raw = fs.createReadStream(file, { highWaterMark: 1 << 20 });
  if (!isGzipFile(file)) return raw;
  const gunzip = createGunzip();
  // A read error ends the decompressed stream with it, so the ingest reports the input as unreadable.
  raw.on("error", (err) => gunzip.destroy(err));
  return raw.pipe(gunzip);
}

export async function importJsonl(
  source: AsyncIterable<Uint8Array | string>,
  opts: JsonlImportOptions,
): Promise<IngestSummary> {
  const { map, defaults, ...ingest } = opts;
  return ingestStream(source, { ...ingest, mapper: new JsonlMapper(map, defaults) });
}
