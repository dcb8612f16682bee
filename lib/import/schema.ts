// What the importers accept from outside: the flags of `verity import <format>`, and the tau2 importer's summary.
// Line contents are mapped to the wire formats and validated by the verifier's schemas (lib/verifier/schema.ts) on
// the ingest path.
import { z } from "zod";
import { PRESET_NAMES } from "@/lib/import/jsonl-map.ts";
import { idSchema } from "@/lib/verifier/schema.ts";
import { INT4_MAX } from "@/lib/db/column-ranges.ts";

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

/** Flags of `verity import tau2 RESULTS.json --db DB.json [--run R] [--step N]`. */
export const tau2ImportCliSchema = z.strictObject({
  results: z.string().min(1, "give the tau2-bench results file (RESULTS.json)"),
  db: z
    .string({ error: "give the domain's database with --db DB.json (tau2-bench: data/tau2/domains/<domain>/db.json)" })
    .min(1),
  run: idSchema.optional(),
  step: z.coerce.number().int().nonnegative().max(INT4_MAX).default(0),
  batch: z.coerce.number().int().min(1).max(20_000).optional(),
  strict: z.boolean().default(false),
});
export type Tau2ImportCliOptions = z.infer<typeof tau2ImportCliSchema>;

export type ImportCounts = { accepted: number; unchanged: number; rejected: number };
export type ImportReject = { path: string; message: string };

/** The last line `verity import tau2` prints. */
export type Tau2ImportSummary = {
  /** False when the import stopped early (malformed JSON, database unavailable); `error` says why and where. */
  ok: boolean;
  run: string;
  /** Tasks and simulations read from the results file. */
  tasks: number;
  simulations: number;
  cases: ImportCounts;
  rollouts: ImportCounts;
  /** Ledger entries the verifier wrote for the imported rollouts. */
  scored: number;
  rejected: number;
  /** Each rejected task or simulation, at its JSON path in the results file (at most MAX_LISTED_REJECTS). */
  rejects: ImportReject[];
  truncated: boolean;
  error?: string;
};
