// Inputs of the training monitors: a run's alarm thresholds (stored in runs.thresholds, edited by leads), the run
// page's URL (step range, comparison, smoothing) and the chart names of the CSV downloads. Rates are fractions in
// storage and percent in the form.
import { z } from "zod";
import { INT4_MAX } from "@/lib/db/column-ranges.ts";

/** The reference figures of domain.md; a run without thresholds uses these. */
export const DEFAULT_THRESHOLDS = {
  /** Guardrail hit rate healthy band: below, guardrails are not working; above, caps flatten the group. */
  hitRateLow: 0.1,
  hitRateHigh: 0.3,
  /** Hand-off rate alarm line (the blind spot: 8% → 41% in 30k steps). */
  handoffCeiling: 0.1,
  /** Mean within-group reward std below this: GRPO has (almost) no gradient. */
  groupStdFloor: 0.05,
  /** Claim-extraction accuracy against human labels (slot by slot, lib/stats/extraction-accuracy.ts). */
  extractionFloor: 0.85,
  /** Steps per shadow-audit point (a 1% sample is too thin to judge step by step). */
  auditWindow: 500,
  /** Reward hacking: the window over which the ledger and human trends are fitted, in steps. */
  hackingWindow: 2000,
  /** Reward hacking: the ledger's mean reward must rise faster than this, in reward per 1,000 steps. */
  hackingRise: 0.01,
  /** Reward hacking: while the human measure falls faster than this, in share per 1,000 steps. */
  hackingFall: 0.01,
  /** Share of a step's rollouts whose trained reward differs from the ledger's (beyond 1e-6): alarm above this. */
  trainedMismatchCeiling: 0.01,
  /** Pairwise ordering agreement per audit window: alarm when its 95% Wilson lower bound falls below this. */
  orderingFloor: 0.8,
} as const;

const fraction = z
  .number({ error: "Enter a number." })
  .min(0, { error: "At least 0." })
  .max(1, { error: "At most 1." });
const steps = z
  .number({ error: "Enter a number." })
  .int({ error: "Whole steps only." })
  .min(1, { error: "At least 1 step." })
  .max(10_000_000);
const slope = z
  .number({ error: "Enter a number." })
  .min(0, { error: "At least 0." })
  .max(1, { error: "At most 1 per 1,000 steps." });

const shape = {
  hitRateLow: fraction,
  hitRateHigh: fraction,
  handoffCeiling: fraction.gt(0, { error: "Above 0." }),
  groupStdFloor: z
    .number({ error: "Enter a number." })
    .gt(0, { error: "Above 0." })
    .max(0.5, { error: "A reward std is at most 0.5." }),
  extractionFloor: fraction.gt(0, { error: "Above 0." }),
  auditWindow: steps,
  hackingWindow: steps,
  hackingRise: slope,
  hackingFall: slope,
  trainedMismatchCeiling: fraction.gt(0, { error: "Above 0." }),
  orderingFloor: fraction.gt(0, { error: "Above 0." }),
};

const bandOrdered = (t: { hitRateLow: number; hitRateHigh: number }) => t.hitRateLow < t.hitRateHigh;
const bandError = { path: ["hitRateHigh"], error: "The healthy band's upper edge must be above its lower edge." };

/** A run's thresholds, complete. */
export const thresholdsSchema = z.strictObject(shape).refine(bandOrdered, bandError);
export type Thresholds = z.infer<typeof thresholdsSchema>;

/**
 * What runs.thresholds may hold: any subset (missing fields take the defaults, so a default changed in code reaches
 * runs that never overrode it). Unknown keys are refused so a typo does not silently do nothing.
 */
export const storedThresholdsSchema = z.strictObject(shape).partial();

/** The thresholds in force for a run: its stored overrides over the defaults. Invalid stored JSON falls back. */
export function resolveThresholds(stored: unknown): { thresholds: Thresholds; invalid: boolean } {
  if (stored === null || stored === undefined) return { thresholds: { ...DEFAULT_THRESHOLDS }, invalid: false };
  const parsed = storedThresholdsSchema.safeParse(stored);
  const merged = parsed.success ? { ...DEFAULT_THRESHOLDS, ...parsed.data } : null;
  if (!merged || !bandOrdered(merged)) return { thresholds: { ...DEFAULT_THRESHOLDS }, invalid: true };
  return { thresholds: merged, invalid: false };
}

/** The fields that differ from the defaults: what is stored (null when none). */
export function thresholdOverrides(t: Thresholds): Partial<Thresholds> | null {
  const out: Partial<Record<keyof Thresholds, number>> = {};
  for (const k of Object.keys(DEFAULT_THRESHOLDS) as (keyof Thresholds)[])
    if (t[k] !== DEFAULT_THRESHOLDS[k]) out[k] = t[k];
  return Object.keys(out).length ? (out as Partial<Thresholds>) : null;
}

/** "" (an empty form field or URL parameter) is "not given". */
const blank = (v: unknown) => (typeof v === "string" && v.trim() === "" ? undefined : v);
const percent = (key: keyof Thresholds) =>
  z
    .preprocess(
      blank,
      z.coerce
        .number({ error: "Enter a number." })
        .transform((v) => Math.round(v * 1e6) / 1e8)
        .optional(),
    )
    .transform((v) => v ?? DEFAULT_THRESHOLDS[key]);
const plain = (key: keyof Thresholds) =>
  z
    .preprocess(blank, z.coerce.number({ error: "Enter a number." }).optional())
    .transform((v) => v ?? DEFAULT_THRESHOLDS[key]);

/**
 * The thresholds form: rates in percent (10 → 0.1), the std, windows and slopes as they are. A blank field takes
 * the default. Parses to complete Thresholds, validated by thresholdsSchema.
 */
export const thresholdsFormSchema = z
  .object({
    runId: z.string({ error: "Missing run." }).trim().min(1, { error: "Missing run." }),
    hitRateLow: percent("hitRateLow"),
    hitRateHigh: percent("hitRateHigh"),
    handoffCeiling: percent("handoffCeiling"),
    groupStdFloor: plain("groupStdFloor"),
    extractionFloor: percent("extractionFloor"),
    auditWindow: plain("auditWindow"),
    hackingWindow: plain("hackingWindow"),
    hackingRise: plain("hackingRise"),
    hackingFall: plain("hackingFall"),
    trainedMismatchCeiling: percent("trainedMismatchCeiling"),
    orderingFloor: percent("orderingFloor"),
  })
  .transform(({ runId, ...t }) => ({ runId, thresholds: t }))
  .pipe(z.object({ runId: z.string(), thresholds: thresholdsSchema }));

/** Form state returned by the thresholds action. */
export type ThresholdsFormState = {
  ok?: boolean;
  message?: string;
  fieldErrors?: Record<string, string[] | undefined>;
  /** Saved thresholds (the fields show them). */
  thresholds?: Thresholds;
  /** The values as typed, returned with errors: React resets a form after its action, so the fields show these. */
  values?: Record<string, string>;
};

/** The charts of the run page; each has a CSV download under /api/runs/<run>/charts/<chart>. */
export const CHARTS = [
  "hit-rate",
  "handoff",
  "outcomes",
  "group-std",
  "removed",
  "trained-reward",
  "audit",
  "corrected",
] as const;
export type ChartName = (typeof CHARTS)[number];

/** Smoothing choices: a trailing window of this many points (1 = none). */
export const SMOOTHING = [1, 3, 5, 10] as const;

const MAX_STEP = INT4_MAX;
const stepParam = z
  .string()
  .regex(/^\d+$/, { error: "must be a whole number of steps, 0 or more" })
  .transform(Number)
  .pipe(z.number().max(MAX_STEP, { error: `must be at most ${MAX_STEP}` }));
const smoothValues = SMOOTHING.map(String) as [string, ...string[]];

/**
 * The run page's and the CSV routes' search params: step range (zoom), second run to overlay, smoothing window. As
 * strict as the trajectory browser's: a bad value, an unknown parameter or a parameter given twice is an error naming
 * it (parseChartQuery), never silently dropped. An empty value is "not given" (a cleared form field).
 */
export const chartQuerySchema = z
  .strictObject({
    from: stepParam.optional(),
    to: stepParam.optional(),
    compare: z.string().trim().min(1).max(200, { error: "must be at most 200 characters" }).optional(),
    smooth: z
      .enum(smoothValues, { error: `must be one of ${SMOOTHING.join(", ")} (1 is none)` })
      .transform(Number)
      .optional(),
  })
  .refine((q) => q.from === undefined || q.to === undefined || q.from <= q.to, {
    error: "must not be after to",
    path: ["from"],
  });
export type ChartQuery = z.infer<typeof chartQuerySchema>;
export const CHART_QUERY_KEYS = ["from", "to", "compare", "smooth"] as const;
export type ChartQueryKey = (typeof CHART_QUERY_KEYS)[number];

/** What was wrong with a chart query: per parameter, and for parameters the page does not take. */
export type ChartQueryErrors = { fields: Partial<Record<ChartQueryKey, string>>; other: string[] };

/**
 * Parses the run page's or a CSV route's search params. With errors it still returns the query of the parameters
 * that are good (a page shows those and the errors at their fields) and the values as given (the fields show them).
 */
export function parseChartQuery(
  params: URLSearchParams | Record<string, string | string[] | undefined>,
):
  | { ok: true; query: ChartQuery }
  | { ok: false; query: ChartQuery; errors: ChartQueryErrors; given: Record<string, string> } {
  const lists: [string, string[]][] =
    params instanceof URLSearchParams
      ? [...new Set(params.keys())].map((k) => [k, params.getAll(k)])
      : Object.entries(params).map(([k, v]) => [k, v === undefined ? [] : Array.isArray(v) ? v : [v]]);
  const errors: ChartQueryErrors = { fields: {}, other: [] };
  const given: Record<string, string> = {};
  const record: Record<string, string> = {};
  for (const [k, values] of lists) {
    if (values.length === 0) continue;
    given[k] = values[0];
    if (values.length > 1) fieldError(errors, k, "is given more than once; give it once");
    else if (values[0].trim() !== "") record[k] = values[0];
  }
  const first = chartQuerySchema.safeParse(record);
  if (first.success && !errors.other.length && !Object.keys(errors.fields).length)
    return { ok: true, query: first.data };
  if (!first.success)
    for (const issue of first.error.issues) {
      if (issue.code === "unrecognized_keys") for (const k of issue.keys) fieldError(errors, k, "");
      else fieldError(errors, String(issue.path[0]), issue.message);
    }
  // The good part: the record without the parameters in error (a range in error loses both ends).
  const bad = new Set<string>([...Object.keys(errors.fields), ...unknownKeys(record)]);
  if (errors.fields.from === "must not be after to") bad.add("to");
  const rest = chartQuerySchema.safeParse(Object.fromEntries(Object.entries(record).filter(([k]) => !bad.has(k))));
  return { ok: false, query: rest.success ? rest.data : {}, errors, given };
}

const isKey = (k: string): k is ChartQueryKey => (CHART_QUERY_KEYS as readonly string[]).includes(k);
const unknownKeys = (record: Record<string, string>) => Object.keys(record).filter((k) => !isKey(k));

function fieldError(errors: ChartQueryErrors, key: string, message: string) {
  if (!isKey(key)) {
    const line = `unknown parameter "${key}" (the run page takes ${CHART_QUERY_KEYS.join(", ")})`;
    if (!errors.other.includes(line)) errors.other.push(line);
  } else errors.fields[key] ??= message;
}

/** The errors of a chart query as one sentence per parameter, "from: must be …" (for a 400 answer). */
export function chartQueryMessages(errors: ChartQueryErrors): string[] {
  return [...Object.entries(errors.fields).map(([k, m]) => `${k}: ${m}`), ...errors.other];
}

/** URLSearchParams or Next's searchParams object → a plain record (first value of repeated keys). */
export function queryRecord(
  params: URLSearchParams | Record<string, string | string[] | undefined>,
): Record<string, string | undefined> {
  if (params instanceof URLSearchParams)
    return Object.fromEntries([...params.keys()].map((k) => [k, params.get(k) ?? undefined]));
  return Object.fromEntries(Object.entries(params).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));
}
