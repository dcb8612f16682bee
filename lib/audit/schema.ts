// Inputs of the shadow audit: batch parameters (the preview URL, the create form, the CLI) and adjudications.
// One schema per input; form values arrive as strings, so numbers are coerced and blank fields mean "default".
import { z } from "zod";
import { DEFAULT_DELTA, DEFAULT_NEAR_TIE_RATE } from "@/lib/audit/pair-sampler.ts";
import { PICKS } from "@/lib/audit/sampler.ts";
import { DISAGREEMENT_CAUSES } from "@/lib/agreement/causes.ts";
import { GUARDRAIL_CODES } from "@/lib/verifier/codes.ts";
import { INT4_MAX, int8Id } from "@/lib/db/column-ranges.ts";
import { parseBrowseParams, type BrowseParams } from "@/lib/ledger/browse-schema.ts";

/** "" (an empty form field or URL parameter) is "not given". */
const blank = (v: unknown) => (typeof v === "string" && v.trim() === "" ? undefined : v);
const coerced = (schema: z.ZodNumber) => z.coerce.number({ error: "Enter a number." }).pipe(schema);
/** A number the form must give: blank is "Enter a number.". */
const num = (schema: z.ZodNumber) => z.preprocess(blank, coerced(schema));
// The optional and defaulted numbers take "not given" inside the preprocess: outside it, `.optional()` and
// `.default()` only see the raw "" (not undefined), which the coercion would then read as NaN.
/** A number the form may leave blank (absent). */
const optionalNum = (schema: z.ZodNumber) => z.preprocess(blank, coerced(schema).optional());
/** A number the form may leave blank (the default). */
const numOr = (schema: z.ZodNumber, fallback: number) => z.preprocess(blank, coerced(schema).default(fallback));

export const DEFAULT_RATE = 0.01;
export const DEFAULT_OVERLAP = 0.1;
export const DEFAULT_TOLERANCE = 0.1;
/** "tickets": shadow scoring of sampled tickets; "pairwise": which of two rollouts of a GRPO group is better. */
export const BATCH_KINDS = ["tickets", "pairwise"] as const;
export type BatchKind = (typeof BATCH_KINDS)[number];

/**
 * The trajectory browser's filters (its address's query, search box included) that narrow the population to its
 * matches: "Audit these". Parsed by the browser's own schema, so the batch draws from exactly the rows it listed.
 */
const browserFilter = z
  .string()
  .max(4000, { error: "At most 4000 characters." })
  .transform((s, ctx): BrowseParams => {
    const parsed = parseBrowseParams(new URLSearchParams(s));
    if (parsed.ok) return parsed.params;
    ctx.addIssue({ code: "custom", message: `The browser's filters are not valid: ${parsed.errors.join("; ")}.` });
    return z.NEVER;
  });

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
    rate: numOr(
      z.number().gt(0, { error: "The rate must be above 0." }).max(1, { error: "The rate is a fraction: at most 1." }),
      DEFAULT_RATE,
    ),
    salt: z.preprocess(blank, z.string().trim().max(100, { error: "At most 100 characters." }).optional()),
    pick: z.preprocess(blank, z.enum(PICKS, { error: "Pick one or all." }).default("one")),
    minPerStratum: optionalNum(z.number().int({ error: "A whole number." }).min(0).max(100_000)),
    overlapRate: numOr(z.number().min(0).max(1, { error: "A fraction: at most 1." }), DEFAULT_OVERLAP),
    tolerance: numOr(z.number().min(0).max(1, { error: "A reward difference: at most 1." }), DEFAULT_TOLERANCE),
    /** Absent = "tickets"; delta and nearTieRate apply to pairwise batches only (absent = the defaults). */
    kind: z.preprocess(blank, z.enum(BATCH_KINDS, { error: "Pick tickets or pairwise." }).optional()),
    delta: optionalNum(
      z
        .number()
        .min(0, { error: "A reward difference: at least 0." })
        .lt(1, { error: "A reward difference: below 1." }),
    ),
    nearTieRate: optionalNum(
      z.number().min(0, { error: "A fraction: at least 0." }).max(1, { error: "A fraction: at most 1." }),
    ),
    /** Absent = every scorable rollout of the window; given = only the browser's matches among them. */
    filter: z.preprocess(blank, browserFilter.optional()),
  })
  .refine((p) => p.stepFrom <= p.stepTo, { path: ["stepTo"], error: "The window ends before it starts." })
  .refine((p) => !p.filter?.run || p.filter.run === p.runId, {
    path: ["filter"],
    error: "The browser's filters name another run than the batch's.",
  })
  .refine((p) => !p.filter || p.kind !== "pairwise", {
    path: ["filter"],
    error: "A pairwise batch is drawn from whole GRPO groups: audit a search's matches as a tickets batch.",
  });
export type BatchParams = z.infer<typeof batchParamsSchema>;
/** Parameters with the salt fixed (the preview shows the sample that create will draw). */
export type ResolvedBatchParams = BatchParams & { salt: string };

/**
 * What the New batch form shows before anything is typed: a run's whole window and the defaults, the optional
 * fields blank. Previewing it untouched must draw a batch (batchParamsSchema).
 */
export function batchFormDefaults(
  run: { id: string; firstStep: number | null; lastStep: number | null } | undefined,
  salt: string,
): Record<string, string> {
  return {
    runId: run?.id ?? "",
    stepFrom: String(run?.firstStep ?? 0),
    stepTo: String(run?.lastStep ?? 0),
    rate: String(DEFAULT_RATE),
    salt,
    pick: "one",
    minPerStratum: "",
    overlapRate: String(DEFAULT_OVERLAP),
    tolerance: String(DEFAULT_TOLERANCE),
    kind: "tickets",
    delta: String(DEFAULT_DELTA),
    nearTieRate: String(DEFAULT_NEAR_TIE_RATE),
    name: "",
  };
}

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
