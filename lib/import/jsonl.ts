// `verity import jsonl`: a rollout dump read line by line (gzip or not) through the ingest path, each line mapped
// by a JsonlMapper to a rollout, an external score record and a minimal case. The same validation, idempotence,
// batching and bounded memory as `verity ingest` (lib/ingest/ingest.ts).
import { ingestStream, type IngestOptions } from "@/lib/ingest/ingest.ts";
import type { IngestSummary } from "@/lib/ingest/schema.ts";
import { JsonlMapper, type JsonlDefaults } from "@/lib/import/jsonl-line.ts";
import type { ImportMap } from "@/lib/import/jsonl-map.ts";

export type JsonlImportOptions = Omit<IngestOptions, "mapper" | "format" | "defaults"> & {
  map: ImportMap;
  defaults: JsonlDefaults;
};

export async function importJsonl(
  source: AsyncIterable<Uint8Array | string>,
  opts: JsonlImportOptions,
): Promise<IngestSummary> {
  const { map, defaults, ...ingest } = opts;
  return ingestStream(source, { ...ingest, mapper: new JsonlMapper(map, defaults) });
}
