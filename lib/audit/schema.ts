// Inputs of the shadow audit: batch parameters (the preview URL, the create form, the CLI) and adjudications.
// One schema per input; form values arrive as strings, so numbers are coerced and blank fields mean "default".
import { z } from "zod";
import { PICKS } from "@/lib/audit/sampler.ts";
import { DISAGREEMENT_CAUSES } from "@/lib/audit/causes.ts";
import { GUARDRAIL_CODES } from "@/lib/verifier/codes.ts";
import { INT4_MAX, int8Id } from "@/lib/db/column-ranges.ts";

/** "" (an empty form field or URL parameter) is "not given". */
const blank = (v: unknown) => (typeof v === "string" && v.trim() === "" ? undefined : v);
const num = (schema: z.ZodNumber) => z.preprocess(blank, z.coerce.number({ error: "Enter a number." }).pipe(schema));

export const DEFAULT_RATE = 0.01;
export const DEFAULT_OVERLAP = 0.1;
export const DEFAULT_TOLERANCE = 0.1;
/** "tickets": shadow scoring of sampled tickets; "pairwise": which of two rollouts of a GRPO group is better. */
export const BATCH_KINDS = ["tickets", "pairwise"] as const;
export type BatchKind = (typeof BATCH_KINDS)[number];

const step = z
  .number()
  .int({ error: "Whole steps only." })
  .min(0, { error: "Steps start at 0." })
  .max(INT4_MAX, { error: `must be at most ${INT4_MAX}` });

export const batchParamsSchema = z
  .object({
    name: z.preprocess(blank, z.string().trim().max(120, { error: "At most 120 characters." }).optional()),
    runId: z.string({ error: "Pick a run." }).trim().min(1, { error: "Pick a run." }),
    stepFrom: num(step),
    stepTo: num(step),
    rate: num(
      z.number().gt(0, { error: "The rate must be above 0." }).max(1, { error: "The rate is a fraction: at most 1." }),
    ).default(DEFAULT_RATE),
    salt: z.preprocess(blank, z.string().trim().max(100, { error: "At most 100 characters." }).optional()),
    pick: z.preprocess(blank, z.enum(PICKS, { error: "Pick one or all." }).default("one")),
    minPerStratum: num(z.number().int({ error: "A whole number." }).min(0).max(100_000)).optional(),
    overlapRate: num(z.number().min(0).max(1, { error: "A fraction: at most 1." })).default(DEFAULT_OVERLAP),
    tolerance: num(z.number().min(0).max(1, { error: "A reward difference: at most 1." })).default(DEFAULT_TOLERANCE),
    /** Absent = "tickets"; delta and nearTieRate apply to pairwise batches only (absent = the defaults). */
    kind: z.preprocess(blank, z.enum(BATCH_KINDS, { error: "Pick tickets or pairwise." }).optional()),
    delta: num(
      z
        .number()
        .min(0, { error: "A reward difference: at least 0." })
        .lt(1, { error: "A reward difference: below 1." }),
    ).optional(),
    nearTieRate: num(
      z.number().min(0, { error: "A fraction: at least 0." }).max(1, { error: "A fraction: at most 1." }),
    ).optional(),
  })
  .refine((p) => p.stepFrom <= p.stepTo, { path: ["stepTo"], error: "The window ends before it starts." });
export type BatchParams = z.infer<typeof batchParamsSchema>;
/** Parameters with the salt fixed (the preview shows the sample that create will draw). */
export type ResolvedBatchParams = BatchParams & { salt: string };

const bigId = int8Id("Missing item.");

export const adjudicationInput = z.object({
  itemId: bigId,
  cause: z.enum(DISAGREEMENT_CAUSES, { error: "Pick a cause." }),
  guardrail: z.preprocess(blank, z.enum(GUARDRAIL_CODES, { error: "Unknown guardrail." }).optional()),
  note: z.string().trim().max(5000, { error: "At most 5000 characters." }).default(""),
});
export type AdjudicationInput = z.infer<typeof adjudicationInput>;

export const itemRef = z.object({ itemId: bigId });
export const batchRef = z.object({
  batchId: z.preprocess(blank, z.coerce.number().int().positive().max(INT4_MAX).optional()),
});

/** Form state returned by the audit actions to their forms. */
export type FormState = { ok?: boolean; message?: string; fieldErrors?: Record<string, string[] | undefined> };
