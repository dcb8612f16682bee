// Inputs of defects: the list page's URL parameters and the "mark fixed" form. Errors name the field and say why,
// as the trajectory browser's do; a parameter given twice, or one the page does not know, is refused.
import { z } from "zod";
import { DEFECT_STATUSES } from "@/lib/defects/causes.ts";
import { GUARDRAIL_CODES } from "@/lib/verifier/codes.ts";
import { int8Digits } from "@/lib/db/column-ranges.ts";

/** `guardrail=none`: defects that name no guardrail (a rule outside the guardrails, a spec defect without one). */
export const NO_GUARDRAIL = "none";

export const defectsParamsSchema = z
  .object({
    status: z.enum(DEFECT_STATUSES, { message: `must be one of ${DEFECT_STATUSES.join(", ")}` }).optional(),
    guardrail: z
      .enum([...GUARDRAIL_CODES, NO_GUARDRAIL], { message: `must be a guardrail code or "${NO_GUARDRAIL}"` })
      .optional(),
    run: z.string().min(1).max(200, "at most 200 characters").optional(),
    kind: z.enum(["spec", "rule"], { message: "must be spec or rule" }).optional(),
    after: int8Digits("must be a defect id (the page's own link)").optional(),
  })
  .strict();
export type DefectsParams = z.infer<typeof defectsParamsSchema>;

export function parseDefectsParams(
  input: Record<string, string | string[] | undefined>,
): { ok: true; params: DefectsParams } | { ok: false; errors: string[]; partial: DefectsParams } {
  const errors: string[] = [];
  const record: Record<string, string> = {};
  for (const [k, v] of Object.entries(input)) {
    const values = (Array.isArray(v) ? v : [v]).filter((x): x is string => x !== undefined && x !== "");
    if (values.length > 1) errors.push(`${k}: is given more than once; give it once`);
    else if (values.length === 1) record[k] = values[0];
  }
  const r = defectsParamsSchema.safeParse(record);
  if (r.success && !errors.length) return { ok: true, params: r.data };
  const bad = new Set<string>(errors.map((e) => e.split(":")[0]));
  for (const i of r.success ? [] : r.error.issues) {
    if (i.code === "unrecognized_keys") {
      errors.push(`unknown filter ${i.keys.map((k) => `"${k}"`).join(", ")}`);
      for (const k of i.keys) bad.add(k);
    } else {
      const k = String(i.path[0] ?? "");
      errors.push(`${k}: ${i.message} (given ${JSON.stringify(record[k]?.slice(0, 80) ?? "")})`);
      bad.add(k);
    }
  }
  const rest = Object.fromEntries(Object.entries(record).filter(([k]) => !bad.has(k)));
  const again = defectsParamsSchema.safeParse(rest);
  return { ok: false, errors, partial: again.success ? again.data : {} };
}

const bigId = int8Digits("must be a defect id").transform((v) => BigInt(v));

/** The "mark fixed" form: a case version id for a spec defect, a config id (stored configs) for a rule defect. */
export const markFixedInput = z.object({
  runId: z.string({ error: "Missing run." }).min(1, "Missing run.").max(200),
  defectId: bigId,
  fixRef: z.string({ error: "Name the fix." }).trim().min(1, "Name the fix.").max(200, "At most 200 characters."),
  note: z.string().trim().max(2000, "At most 2000 characters.").default(""),
});
export type MarkFixedInput = z.infer<typeof markFixedInput>;
