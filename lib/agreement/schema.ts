import { z } from "zod";
import { GUARDRAIL_CODES } from "@/lib/verifier/codes.ts";

/** Filters of the agreement report: URL params of /agreement, the API's query and the CLI's flags. */
export const agreementFilterSchema = z
  .object({
    run: z.string().min(1).max(200).optional(),
    batch: z.coerce.number().int("must be a batch id").positive("must be a batch id").optional(),
    from: z.iso.date({ message: "must be a date (YYYY-MM-DD)" }).optional(),
    to: z.iso.date({ message: "must be a date (YYYY-MM-DD)" }).optional(),
    category: z.string().min(1).max(100).optional(),
    annotator: z.string().email("must be an annotator's email").optional(),
    guardrail: z.enum(GUARDRAIL_CODES, { message: "must be a guardrail code" }).optional(),
    tolerance: z.coerce.number().min(0, "must be between 0 and 1").max(1, "must be between 0 and 1").default(0.1),
  })
  .strict();
export type AgreementFilter = z.infer<typeof agreementFilterSchema>;

/** Which items a figure stands for (the /agreement/items list). */
export const agreementCellSchema = z.enum([
  "all",
  "agree",
  "disagree",
  "verdict_ledger_only", // ledger says success, human does not
  "verdict_human_only",
  "guardrail_ledger_only", // with `guardrail`: ledger fired, human did not
  "guardrail_human_only",
  "guardrail_both",
  "adjudicated",
]);
export type AgreementCell = z.infer<typeof agreementCellSchema>;

export function parseAgreementFilter(input: Record<string, string | undefined>):
  | { ok: true; filter: AgreementFilter }
  | { ok: false; errors: string[] } {
  const clean = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined && v !== ""));
  const r = agreementFilterSchema.safeParse(clean);
  if (r.success) return { ok: true, filter: r.data };
  return {
    ok: false,
    errors: r.error.issues.map((i) =>
      i.code === "unrecognized_keys" ? `unknown filter ${i.keys.map((k) => `"${k}"`).join(", ")}` : `${i.path.join(".")}: ${i.message}`,
    ),
  };
}

export function filterQuery(f: Partial<AgreementFilter>, extra: Record<string, string> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(f)) if (v !== undefined && !(k === "tolerance" && v === 0.1)) q.set(k, String(v));
  for (const [k, v] of Object.entries(extra)) q.set(k, v);
  return q.toString();
}
