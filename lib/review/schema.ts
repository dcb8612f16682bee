// The annotation form's body: one schema for the draft autosave, the submit action and the form's own state.
// A draft may be incomplete (sub-scores still null); a submitted review may not.
import { z } from "zod";
import { INT4_MAX, int8Id } from "@/lib/db/column-ranges.ts";
import { DIMENSIONS, GUARDRAIL_CODES, type Dimension } from "@/lib/verifier/codes.ts";
import { claimsSchema } from "@/lib/verifier/schema.ts";

const unit = z
  .number()
  .min(0, { error: "Sub-scores are between 0 and 1." })
  .max(1, { error: "Sub-scores are between 0 and 1." });
/** An audit item id from a form or an action's input. */
export const bigId = int8Id("Missing item.");

/** At most a working day on one item; a tab left open overnight is not "time spent". */
export const MAX_SECONDS = 8 * 3600;
/** Seconds spent, rounded and capped at MAX_SECONDS. */
export const seconds = z
  .number()
  .finite()
  .min(0)
  .transform((s) => Math.min(Math.round(s), MAX_SECONDS));

const flags = z.array(z.enum(GUARDRAIL_CODES, { error: "Unknown guardrail." })).transform((g) => [...new Set(g)]);

export const reviewBodySchema = z.strictObject({
  subscores: z.strictObject(Object.fromEntries(DIMENSIONS.map((d) => [d, unit])) as Record<Dimension, typeof unit>, {
    error: "Score all five sub-scores.",
  }),
  guardrails: flags,
  claims: claimsSchema,
  note: z.string().max(5000, { error: "At most 5000 characters." }).default(""),
});
export type ReviewBody = z.infer<typeof reviewBodySchema>;

/** Claim slots answered "no" (lib/review/claim-answers.ts): "write:TOOL", "mention:KEY", "forbidden:CODE". */
export const deniedSchema = z
  .array(z.string().regex(/^(write|mention|forbidden):.{1,200}$/, { error: "Unknown claim slot." }))
  .max(1000)
  .transform((d) => [...new Set(d)]);

const maybeUnit = unit.nullable();
export const draftBodySchema = z.strictObject({
  subscores: z.strictObject(
    Object.fromEntries(DIMENSIONS.map((d) => [d, maybeUnit])) as Record<Dimension, typeof maybeUnit>,
  ),
  guardrails: flags,
  claims: claimsSchema,
  note: z.string().max(5000).default(""),
  /** The claim slots answered "no" so far; absent in drafts saved before slots needed an answer. */
  denied: deniedSchema.optional(),
});
export type DraftBody = z.infer<typeof draftBodySchema>;

/** A submission: the review, the claim slots answered "no" (every other slot must be claimed), the time spent. */
export const submitReviewInput = z.strictObject({
  itemId: bigId,
  body: reviewBodySchema,
  denied: deniedSchema.default([]),
  secondsSpent: seconds,
});
export const saveDraftInput = z.strictObject({ itemId: bigId, body: draftBodySchema, secondsSpent: seconds });
export const itemInput = z.strictObject({ itemId: bigId });
/** Skip: the item to give back, and the batch to take the next one from. */
export const skipInput = z.strictObject({
  itemId: bigId,
  batchId: z.number().int().positive().max(INT4_MAX).optional(),
});

export function emptyDraft(): DraftBody {
  return {
    subscores: Object.fromEntries(DIMENSIONS.map((d) => [d, null])) as Record<Dimension, number | null>,
    guardrails: [],
    claims: { claimed_writes: [], mentioned: [], forbidden_hits: [] },
    note: "",
  };
}

/** A stored draft body, or an empty one when it no longer parses (a form change must not lock anyone out). */
export function parseDraft(body: unknown): DraftBody {
  const r = draftBodySchema.safeParse(body);
  return r.success ? r.data : emptyDraft();
}

/** The first problem of a refused submission, as one sentence for the form. */
export function firstIssue(error: z.ZodError): string {
  const i = error.issues[0];
  if (!i) return "The review is incomplete.";
  if (i.path[1] === "subscores" || i.path.includes("subscores")) return "Score all five sub-scores first.";
  return i.message;
}
