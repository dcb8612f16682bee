import { z } from "zod";
import { DIMENSIONS, GUARDRAIL_CODES } from "@/lib/verifier/codes.ts";
import { INT4_MAX } from "@/lib/db/column-ranges.ts";
import type { Result } from "@/lib/result.ts";
import { MAX_SEARCH_LENGTH, parseSearch } from "@/lib/search/parse.ts";

// The trajectory browser's whole state lives in the URL; this schema is the one parser of it (page, row loader,
// export and the detail page's previous/next all read the same params). Bad values are reported, not ignored.

export const SORT_KEYS = ["id", "step", "reward", "raw_reward", ...DIMENSIONS, "tool_steps"] as const;
export type SortKey = (typeof SORT_KEYS)[number];

const score = z.coerce.number().min(0, "must be between 0 and 1").max(1, "must be between 0 and 1");
const int = z.coerce
  .number()
  .int("must be a whole number")
  .min(0, "must be 0 or more")
  .max(INT4_MAX, `must be at most ${INT4_MAX}`);
const yesNo = z.enum(["yes", "no"], { message: 'must be "yes" or "no"' });
const list = <T extends string>(values: readonly [T, ...T[]], what: string) =>
  z
    .string()
    .transform((s) =>
      s
        .split(",")
        .map((x) => x.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.enum(values, { message: `must be ${what}` })).min(1));
const guardrailList = list(GUARDRAIL_CODES as unknown as [string, ...string[]], "guardrail codes");

/** What `weakest` selects: the lowest of the five sub-scores (ties in table order), or "unknown" when none is set. */
export const WEAKEST_VALUES = [...DIMENSIONS, "unknown"] as const;

// A reason signature in the URL: the reason code, then "@tool" and "#field" when the reason has them — absent means
// the reason has none, so "empty_promise" and "empty_promise@finance.issue_refund" are different signatures. Tools
// and fields are free text: "%", "|", "@" and "#" inside them are percent-encoded. The clusters' level-2 keys use
// the same spelling (lib/clusters/keys.ts).
export type ReasonSignature = { code: string; tool: string | null; field: string | null };

const encPart = (s: string) =>
  s.replace(/[%|@#]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`);
const decPart = (s: string) => s.replace(/%(25|7C|40|23)/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));

export function formatReasonSignature(sig: ReasonSignature): string {
  return `${sig.code}${sig.tool !== null ? `@${encPart(sig.tool)}` : ""}${sig.field !== null ? `#${encPart(sig.field)}` : ""}`;
}

export function parseReasonSignature(s: string): ReasonSignature | null {
  const m = /^([a-z][a-z0-9_]{0,79})(?:@([^@#|]*))?(?:#([^@#|]*))?$/.exec(s);
  if (!m) return null;
  return {
    code: m[1],
    tool: m[2] === undefined ? null : decPart(m[2]),
    field: m[3] === undefined ? null : decPart(m[3]),
  };
}

const dimRanges = Object.fromEntries(
  DIMENSIONS.flatMap((d) => [
    [`${d}_min`, score.optional()],
    [`${d}_max`, score.optional()],
  ]),
) as Record<`${(typeof DIMENSIONS)[number]}_${"min" | "max"}`, z.ZodOptional<typeof score>>;

export const browseParamsSchema = z
  .object({
    run: z.string().min(1).max(200).optional(),
    step_from: int.optional(),
    step_to: int.optional(),
    category: z
      .string()
      .transform((s) =>
        s
          .split(",")
          .map((x) => x.trim())
          .filter(Boolean),
      )
      .optional(),
    reward_min: score.optional(),
    reward_max: score.optional(),
    // strictly below (the clusters' "reward < threshold"); reward_max is "at most"
    reward_below: score.optional(),
    ...dimRanges,
    weakest: list(WEAKEST_VALUES, `${DIMENSIONS.join(", ")} or unknown`).optional(),
    any: guardrailList.optional(),
    all: guardrailList.optional(),
    none: guardrailList.optional(),
    deciding: list(
      [...GUARDRAIL_CODES, "none"] as unknown as [string, ...string[]],
      'guardrail codes or "none"',
    ).optional(),
    capped: yesNo.optional(),
    // "credited": a hand-off whose outcome the verifier credits (> 0), the clusters' blind spot (lib/clusters/sql.ts)
    handoff: z.enum(["yes", "no", "credited"], { message: 'must be "yes", "no" or "credited"' }).optional(),
    // the trainer's own reward against the ledger's: |trained_reward - reward| > 1e-6 ("yes") or within it ("no")
    trained_differs: yesNo.optional(),
    status: list(["scored", "spec_error", "input_error"], "scored, spec_error or input_error").optional(),
    reason: z
      .string()
      .regex(/^[a-z_]{2,60}$/, "must be a reason code")
      .optional(),
    sig: z
      .string()
      .max(500, "must be at most 500 characters")
      .refine(
        (s) => parseReasonSignature(s) !== null,
        'must be a reason signature: a reason code, then "@tool" and "#field" when the reason has them',
      )
      .optional(),
    sandbox_write: yesNo.optional(),
    // A trajectory or ticket id, or a search (docs/search.md). One word without quotes may be an id (queryKind
    // asks the ledger); anything else must parse as a search, and is refused here with the parser's message.
    q: z
      .string()
      .trim()
      .min(1)
      .max(MAX_SEARCH_LENGTH, `a search has at most ${MAX_SEARCH_LENGTH} characters`)
      .superRefine((q, ctx) => {
        if (!/[\s"]/u.test(q)) return;
        const r = parseSearch(q);
        if (!r.ok) ctx.addIssue({ code: "custom", message: r.error });
      })
      .optional(),
    sampled: yesNo.optional(),
    reviewed: yesNo.optional(),
    sort: z.enum(SORT_KEYS, { message: `must be one of ${SORT_KEYS.join(", ")}` }).default("id"),
    dir: z.enum(["asc", "desc"], { message: 'must be "asc" or "desc"' }).default("desc"),
    after: z.string().max(200).optional(),
  })
  .strict()
  .refine((p) => p.step_from === undefined || p.step_to === undefined || p.step_from <= p.step_to, {
    message: "must not be after step_to",
    path: ["step_from"],
  })
  .refine((p) => p.reward_min === undefined || p.reward_max === undefined || p.reward_min <= p.reward_max, {
    message: "must not be above reward_max",
    path: ["reward_min"],
  })
  .refine((p) => p.reward_min === undefined || p.reward_below === undefined || p.reward_min < p.reward_below, {
    message: "must be below reward_below",
    path: ["reward_min"],
  })
  .superRefine((p, ctx) => {
    const both = (p.all ?? []).filter((c) => p.none?.includes(c));
    if (both.length)
      ctx.addIssue({ code: "custom", path: ["all"], message: `${both.join(", ")} cannot be in both all and none` });
  });

export type BrowseParams = z.infer<typeof browseParamsSchema>;

/** URLSearchParams / Next's searchParams record → plain record, ready for the schema. */
export function paramsRecord(
  input: URLSearchParams | Record<string, string | string[] | undefined>,
): Record<string, string> {
  // Repeated keys (checkbox groups: any=a&any=b) join into one comma list; empty values mean "not set".
  const out: Record<string, string> = {};
  const add = (k: string, v: string | undefined) => {
    if (v === undefined || v === "") return;
    out[k] = k in out ? `${out[k]},${v}` : v;
  };
  if (input instanceof URLSearchParams) {
    for (const [k, v] of input) add(k, v);
  } else {
    for (const [k, v] of Object.entries(input)) for (const x of Array.isArray(v) ? v : [v]) add(k, x);
  }
  return out;
}

/** The filters that take a comma list, which a checkbox group sends as the key repeated (any=a&any=b). */
const LIST_FILTERS = new Set(["category", "weakest", "any", "all", "none", "deciding", "status"]);

/** Single-valued keys given more than once (run=a&run=b would otherwise match run "a,b", i.e. nothing). */
function repeatedSingles(input: URLSearchParams | Record<string, string | string[] | undefined>): string[] {
  const counts = new Map<string, number>();
  const entries = input instanceof URLSearchParams ? [...input] : Object.entries(input);
  for (const [k, v] of entries)
    for (const x of Array.isArray(v) ? v : [v])
      if (x !== undefined && x !== "") counts.set(k, (counts.get(k) ?? 0) + 1);
  return [...counts].filter(([k, n]) => n > 1 && k in browseParamsSchema.shape && !LIST_FILTERS.has(k)).map(([k]) => k);
}

/**
 * Parses browser params; errors come back as "field: message" strings, and also per field (`problems`, with the
 * value given) beside `partial`: the params without the refused fields, so a page can keep every good filter and
 * show each error at its own field.
 */
export function parseBrowseParams(
  input: URLSearchParams | Record<string, string | string[] | undefined>,
):
  | { ok: true; params: BrowseParams }
  | { ok: false; errors: string[]; problems: Record<string, string>; partial: BrowseParams } {
  const repeated = repeatedSingles(input);
  const record = paramsRecord(input);
  const r = browseParamsSchema.safeParse(record);
  if (r.success && !repeated.length) return { ok: true, params: r.data };
  const issues = r.success ? [] : r.error.issues.filter((i) => !repeated.includes(String(i.path[0])));
  const problems: Record<string, string> = {};
  const given = (k: string) => (record[k] === undefined ? "" : ` (given ${JSON.stringify(record[k].slice(0, 80))})`);
  for (const k of repeated) problems[k] = "is given more than once; give it once";
  for (const i of issues) {
    if (i.code === "unrecognized_keys") for (const k of i.keys) problems[k] = `unknown filter "${k}"`;
    else {
      const k = String(i.path[0] ?? "");
      problems[k] ??= `${i.message}${given(k)}`;
    }
  }
  const rest = Object.fromEntries(Object.entries(record).filter(([k]) => !(k in problems)));
  const again = browseParamsSchema.safeParse(rest);
  return {
    ok: false,
    errors: [
      ...repeated.map((k) => `${k}: is given more than once; give it once`),
      ...issues.map((i) =>
        i.code === "unrecognized_keys"
          ? `unknown filter ${i.keys.map((k) => `"${k}"`).join(", ")}`
          : `${i.path.join(".")}: ${i.message}`,
      ),
    ],
    problems,
    partial: again.success ? again.data : browseParamsSchema.parse({}),
  };
}

/** parseBrowseParams for a route's query (lib/api/route.ts): the errors as one sentence, "field: message; …". */
export function parseBrowseQuery(search: URLSearchParams): Result<{ value: BrowseParams }> {
  const parsed = parseBrowseParams(search);
  return parsed.ok ? { ok: true, value: parsed.params } : { ok: false, error: parsed.errors.join("; ") };
}

/** The URL query of a browser state without its cursor (used for links that keep the view). */
export function browseQuery(p: Partial<BrowseParams>, overrides: Record<string, string | undefined> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(p)) {
    if (v === undefined || k === "after") continue;
    if (k === "sort" && v === "id") continue;
    if (k === "dir" && v === "desc") continue;
    q.set(k, Array.isArray(v) ? v.join(",") : String(v));
  }
  for (const [k, v] of Object.entries(overrides)) {
    if (v === undefined) q.delete(k);
    else q.set(k, v);
  }
  return q.toString();
}

export type Cursor = { v: number | null; id: string };

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.v, c.id])).toString("base64url");
}

export function decodeCursor(s: string): Cursor | null {
  try {
    const [v, id] = JSON.parse(Buffer.from(s, "base64url").toString("utf8")) as [unknown, unknown];
    if ((v !== null && typeof v !== "number") || typeof id !== "string" || !/^\d{1,19}$/.test(id)) return null;
    return { v: v as number | null, id };
  } catch {
    return null;
  }
}
