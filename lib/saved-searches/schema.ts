// Inputs of saved searches: the save form (from the trajectory browser), rename and delete. The query is checked by
// the search box's own parser when saved, so a saved search always runs; its error names the character at fault.
import { z } from "zod";
import { INT4_MAX } from "@/lib/db/column-ranges.ts";
import { parseSearch } from "@/lib/search/parse.ts";

/** "" (an empty form field) is "not given". */
const blank = (v: unknown) => (typeof v === "string" && v.trim() === "" ? undefined : v);

export const MAX_SAVED_NAME = 80;

const name = z
  .string({ error: "Name the search." })
  .trim()
  .min(1, { error: "Name the search." })
  .max(MAX_SAVED_NAME, { error: `At most ${MAX_SAVED_NAME} characters.` });

/** The search's text, valid in the search box's syntax; stored trimmed. */
const query = z
  .string({ error: "A saved search needs the search box's text." })
  .trim()
  .superRefine((text, ctx) => {
    const parsed = parseSearch(text);
    // the parser speaks of the box (`q: …`); here the field is the saved search's query
    if (!parsed.ok) ctx.addIssue({ code: "custom", message: parsed.error.replace(/^q: /, "") });
  });

export const savedSearchInput = z.object({
  name,
  query,
  /** Absent: the search counts in any run; given: only in this one (it is listed with that run's charts only). */
  runId: z.preprocess(blank, z.string().trim().min(1).max(200).optional()),
  /** The alarm line of its per-step chart, as a share of a step's rollouts (0.05 = 5 %); absent = none. */
  alarmShare: z.preprocess(
    blank,
    z.coerce
      .number({ error: "A share: a number between 0 and 1 (0.05 = 5%)." })
      .gt(0, { error: "A share above 0 (0.05 = 5%)." })
      .max(1, { error: "A share: at most 1 (0.05 = 5%)." })
      .optional(),
  ),
});
export type SavedSearchInput = z.infer<typeof savedSearchInput>;

const id = z.coerce.number({ error: "Missing saved search." }).int().positive().max(INT4_MAX);

export const savedSearchRef = z.object({ id });
export const renameSavedSearchInput = z.object({ id, name });

/** Form state returned by the saved-search actions to their forms. */
export type SavedSearchFormState = {
  ok?: boolean;
  message?: string;
  fieldErrors?: Record<string, string[] | undefined>;
};
