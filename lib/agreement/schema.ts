import { z } from "zod";
import { DISAGREEMENT_CAUSES } from "@/lib/agreement/causes.ts";
import { DIMENSIONS, GUARDRAIL_CODES } from "@/lib/verifier/codes.ts";
import { INT4_MAX } from "@/lib/db/column-ranges.ts";

export const AGREEMENT_BASES = ["reviewed", "now"] as const;
export type AgreementBasis = (typeof AGREEMENT_BASES)[number];

/** Filters of the agreement report: URL params of /agreement, the API's query and the CLI's flags. */
export const agreementFilterSchema = z
  .object({
    run: z.string().min(1).max(200).optional(),
    batch: z.coerce
      .number()
      .int("must be a batch id")
      .positive("must be a batch id")
      .max(INT4_MAX, "must be a batch id")
      .optional(),
    from: z.iso.date({ message: "must be a date (YYYY-MM-DD)" }).optional(),
    to: z.iso.date({ message: "must be a date (YYYY-MM-DD)" }).optional(),
    category: z.string().min(1).max(100).optional(),
    annotator: z.string().email("must be an annotator's email").optional(),
    guardrail: z.enum(GUARDRAIL_CODES, { message: "must be a guardrail code" }).optional(),
    tolerance: z.coerce.number().min(0, "must be between 0 and 1").max(1, "must be between 0 and 1").default(0.1),
    /** Which ledger the reviews are compared with: the entry each item recorded when it was sampled (`reviewed`,
     * the default) or its rollout's current entry, after any re-score (`now`). */
    basis: z.enum(AGREEMENT_BASES, { message: "must be reviewed or now" }).optional(),
  })
  .strict();
export type AgreementFilter = z.infer<typeof agreementFilterSchema>;

/** Which items a figure stands for (the /agreement/items list). */
export const agreementCellSchema = z.enum(
  [
    "all",
    "agree",
    "disagree",
    "verdict_both", // both say success (matrix diagonal)
    "verdict_neither", // both say not success (matrix diagonal)
    "verdict_ledger_only", // ledger says success, human does not
    "verdict_human_only",
    "guardrail_ledger_only", // with `code`: ledger fired, human did not
    "guardrail_human_only",
    "guardrail_both",
    "dimension", // with `dimension`: items where both sides scored it
    "adjudicated",
    "overlap", // items reviewed by two or more annotators (the α population)
    "cause", // with `cause`: adjudicated with that cause
    "extraction_slot", // with `slot`: items whose claims were compared on it
    "extraction_slot_wrong", // with `slot`: … and the extractor got it wrong
    "annotator", // with `reviewer`: items that annotator reviewed (against a ledger reward)
    "annotator_adjudicated", // with `reviewer`: their disagreements with the ledger that a lead adjudicated
    "day", // with `day`: items whose primary review was submitted that day (a trend point)
  ],
  { message: "not a figure of the agreement page" },
);
export type AgreementCell = z.infer<typeof agreementCellSchema>;

/** The parameter each cell needs besides the filters; cells not listed need none. */
const CELL_PARAM: Partial<Record<AgreementCell, keyof Omit<AgreementCellSelection, "cell">>> = {
  guardrail_ledger_only: "code",
  guardrail_human_only: "code",
  guardrail_both: "code",
  dimension: "dimension",
  cause: "cause",
  extraction_slot: "slot",
  extraction_slot_wrong: "slot",
  annotator: "reviewer",
  annotator_adjudicated: "reviewer",
  day: "day",
};
const CELL_KEYS = ["cell", "code", "dimension", "cause", "slot", "reviewer", "day"] as const;

/**
 * A figure's cell and its parameter. Kept apart from the filters, so following a figure keeps every active filter
 * (a guardrail row under `guardrail=X` is `code=Y` within the X subset, not a switch to Y).
 */
export const agreementCellSelectionSchema = z
  .object({
    cell: agreementCellSchema.default("all"),
    code: z.enum(GUARDRAIL_CODES, { message: "must be a guardrail code" }).optional(),
    dimension: z.enum(DIMENSIONS, { message: "must be a sub-score dimension" }).optional(),
    cause: z.enum(DISAGREEMENT_CAUSES, { message: "must be a disagreement cause" }).optional(),
    slot: z
      .string()
      .regex(/^(write|mention|forbidden):.+$/, "must be write:…, mention:… or forbidden:…")
      .max(300)
      .optional(),
    reviewer: z.string().email("must be an annotator's email").optional(),
    day: z.iso.date({ message: "must be a date (YYYY-MM-DD)" }).optional(),
  })
  .strict()
  .superRefine((s, ctx) => {
    const need = CELL_PARAM[s.cell];
    for (const key of CELL_KEYS) {
      if (key === "cell") continue;
      if (key === need && s[key] === undefined)
        ctx.addIssue({ code: "custom", path: [key], message: `required by cell ${s.cell}` });
      if (key !== need && s[key] !== undefined)
        ctx.addIssue({ code: "custom", path: [key], message: `not a parameter of cell ${s.cell}` });
    }
  });
export type AgreementCellSelection = z.infer<typeof agreementCellSelectionSchema>;

/** Splits URL params into the cell selection and the filters, and parses both; errors name the field. */
export function parseAgreementCellQuery(
  input: Record<string, string | undefined>,
): { ok: true; cell: AgreementCellSelection; filter: AgreementFilter } | { ok: false; errors: string[] } {
  const cellPart: Record<string, string> = {};
  const filterPart: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(input)) {
    if ((CELL_KEYS as readonly string[]).includes(k)) {
      if (v !== undefined && v !== "") cellPart[k] = v;
    } else filterPart[k] = v;
  }
  const c = agreementCellSelectionSchema.safeParse(cellPart);
  const f = parseAgreementFilter(filterPart);
  const errors = [
    ...(c.success ? [] : c.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`)),
    ...(f.ok ? [] : f.errors),
  ];
  if (!c.success || !f.ok) return { ok: false, errors };
  return { ok: true, cell: c.data, filter: f.filter };
}

export function parseAgreementFilter(
  input: Record<string, string | undefined>,
): { ok: true; filter: AgreementFilter } | { ok: false; errors: string[] } {
  const clean = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined && v !== ""));
  const r = agreementFilterSchema.safeParse(clean);
  if (r.success) return { ok: true, filter: r.data };
  return {
    ok: false,
    errors: r.error.issues.map((i) =>
      i.code === "unrecognized_keys"
        ? `unknown filter ${i.keys.map((k) => `"${k}"`).join(", ")}`
        : `${i.path.join(".")}: ${i.message}`,
    ),
  };
}

/** The query string of the filters, plus `extra` (a cell and its parameter) — every active filter is kept. */
export function filterQuery(f: Partial<AgreementFilter>, extra: Partial<Record<string, string>> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(f)) if (v !== undefined && !(k === "tolerance" && v === 0.1)) q.set(k, String(v));
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) q.set(k, v);
  return q.toString();
}
