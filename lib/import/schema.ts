// What the importers accept from outside: the flags of `verity import <format>`. Line contents are mapped to the
// wire formats and validated by the verifier's schemas (lib/verifier/schema.ts) on the ingest path.
import { z } from "zod";
import { PRESET_NAMES } from "@/lib/import/jsonl-map.ts";
import { idSchema } from "@/lib/verifier/schema.ts";

/** Flags of `verity import jsonl FILE|-`. */
export const jsonlImportCliSchema = z.strictObject({
  file: z.string().min(1, "give a JSONL file (.jsonl or .jsonl.gz) to import, or - for standard input"),
  preset: z.enum(PRESET_NAMES).optional(),
  map: z.string().optional(),
  run: idSchema.optional(),
  category: idSchema.default("imported"),
  weights: z.string().optional(),
  "reward-range": z.string().optional(),
  rejects: z.string().min(1).optional(),
  batch: z.coerce.number().int().min(1).max(20_000).optional(),
  strict: z.boolean().default(false),
  progress: z.enum(["auto", "on", "off"]).default("auto"),
});
export type JsonlImportCliOptions = z.infer<typeof jsonlImportCliSchema>;
