// Filters of the pairwise report: URL params of /agreement/pairwise and the query of its JSON routes. A report is of
// one run's pairwise judgements (one partition): name the run, a batch (its run is implied), or both.
import { z } from "zod";
import { AGREEMENT_BASES } from "@/lib/agreement/schema.ts";
import { INT4_MAX } from "@/lib/db/column-ranges.ts";
import { parseSearchParams } from "@/lib/result.ts";

export const pairReportFilterSchema = z
  .object({
    run: z.string().min(1, "must be a run id").max(200, "must be a run id").optional(),
    batch: z.coerce
      .number({ error: "must be a batch id" })
      .int("must be a batch id")
      .positive("must be a batch id")
      .max(INT4_MAX, "must be a batch id")
      .optional(),
    /** Which ledger the judgements are compared with: the entries recorded on the pair when it was sampled
     * (`reviewed`, the default) or each rollout's current entry, after any re-score (`now`). */
    basis: z.enum(AGREEMENT_BASES, { message: "must be reviewed or now" }).optional(),
    /** Width of the step windows of the per-window breakdown (the monitors' audit window by default). */
    window: z.coerce
      .number({ error: "must be a whole number of steps" })
      .int("must be a whole number of steps")
      .min(1, "must be at least 1 step")
      .max(1_000_000, "must be at most 1000000 steps")
      .default(500),
  })
  .strict()
  .refine((f) => f.run !== undefined || f.batch !== undefined, {
    path: ["batch"],
    message: "name a pairwise batch (batch=N) or a run (run=R)",
  });
export type PairReportFilter = z.infer<typeof pairReportFilterSchema>;

/** Parses URL params (empty values are absent); each error names its field, like the agreement page's filters. */
export function parsePairReportFilter(
  input: Record<string, string | string[] | undefined>,
): { ok: true; filter: PairReportFilter } | { ok: false; errors: string[] } {
  const r = parseSearchParams(pairReportFilterSchema, input);
  return r.ok ? { ok: true, filter: r.value } : r;
}

/** The query string of a report's filters (the default window left out). */
export function pairReportQuery(f: Partial<PairReportFilter>): string {
  const q = new URLSearchParams();
  if (f.run !== undefined) q.set("run", f.run);
  if (f.batch !== undefined) q.set("batch", String(f.batch));
  if (f.basis !== undefined && f.basis !== "reviewed") q.set("basis", f.basis);
  if (f.window !== undefined && f.window !== 500) q.set("window", String(f.window));
  return q.toString();
}
