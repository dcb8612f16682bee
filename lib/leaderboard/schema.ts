// The leaderboard's address: URL params of /rewards/compare, the query of GET /api/v1/reward-leaderboard and the flags
// of `verity reward compare`. One scope (a run, optionally a step window; or a shadow-audit batch), the sort, the
// per-row pass thresholds, and the two rows compared head to head. Every error names its parameter.
import { z } from "zod";
import { INT4_MAX } from "@/lib/db/column-ranges.ts";
import { parseSearchParams } from "@/lib/result.ts";
import { SORT_COLUMNS, type SortColumn } from "@/lib/leaderboard/build.ts";

const SORT_NAMES = Object.keys(SORT_COLUMNS) as [SortColumn, ...SortColumn[]];

const step = z.coerce
  .number({ error: "must be a step (a whole number)" })
  .int("must be a step (a whole number)")
  .min(0, "must be a step (a whole number)")
  .max(INT4_MAX, "must be a step (a whole number)");

/** A row's key: "ledger" or a reward-function version's id. */
const candidateId = z.string().regex(/^(ledger|\d{1,10})$/, 'must be "ledger" or a reward-function version id');

/** `ledger:0.8,12:0.5`: the pass threshold of each named row (the others keep 0.9). */
const thresholds = z
  .string()
  .max(2000)
  .transform((s, ctx) => {
    const out: Record<string, number> = {};
    for (const part of s.split(",")) {
      const m = /^(ledger|\d{1,10}):(\d*\.?\d+)$/.exec(part.trim());
      const t = m ? Number(m[2]) : NaN;
      if (!m || !(t > 0 && t <= 1)) {
        ctx.addIssue({ code: "custom", message: `"${part}" is not ROW:T with T in (0, 1] (e.g. ledger:0.8)` });
        return z.NEVER;
      }
      out[m[1]] = t;
    }
    return out;
  });

export const leaderboardQuerySchema = z
  .object({
    run: z
      .string()
      .min(1, "must be a run id")
      .max(200, "must be a run id")
      .refine((s) => !s.includes("\0"), "must not contain a NUL character (%00)")
      .optional(),
    batch: z.coerce
      .number({ error: "must be a batch id" })
      .int("must be a batch id")
      .positive("must be a batch id")
      .max(INT4_MAX, "must be a batch id")
      .optional(),
    from: step.optional(),
    to: step.optional(),
    sort: z.enum(SORT_NAMES, { message: `must be one of ${SORT_NAMES.join(", ")}` }).default("agreement"),
    dir: z.enum(["asc", "desc"], { message: "must be asc or desc" }).optional(),
    threshold: thresholds.optional(),
    a: candidateId.optional(),
    b: candidateId.optional(),
    /** Which disagreements to list: those where the human took A's side, B's, or any. */
    side: z.enum(["a", "b", "any"], { message: "must be a, b or any" }).default("any"),
  })
  .strict()
  .superRefine((q, ctx) => {
    if (q.run === undefined && q.batch === undefined)
      ctx.addIssue({ code: "custom", path: ["run"], message: "name a run (run=R) or a shadow-audit batch (batch=N)" });
    if (q.from !== undefined && q.to !== undefined && q.from > q.to)
      ctx.addIssue({ code: "custom", path: ["to"], message: `must not be below from (${q.from})` });
    if (q.a !== undefined && q.a === q.b)
      ctx.addIssue({ code: "custom", path: ["b"], message: "must be another row than a" });
  });
export type LeaderboardQuery = z.infer<typeof leaderboardQuerySchema>;

/** Parses URL params (empty values are absent, a repeated one is refused); each error names its parameter. */
export function parseLeaderboardQuery(
  input: Record<string, string | string[] | undefined>,
): { ok: true; query: LeaderboardQuery } | { ok: false; errors: string[] } {
  const r = parseSearchParams(leaderboardQuerySchema, input);
  return r.ok ? { ok: true, query: r.value } : r;
}

/** The query string of a leaderboard address (defaults left out), with `over` changed. */
export function leaderboardQueryString(
  q: LeaderboardQuery,
  over: Partial<Record<keyof LeaderboardQuery, unknown>> = {},
) {
  const merged: Record<string, unknown> = { ...q, ...over };
  const out = new URLSearchParams();
  for (const [k, v] of Object.entries(merged)) {
    if (v === undefined || v === null) continue;
    if (k === "sort" && v === "agreement") continue;
    if (k === "side" && v === "any") continue;
    if (k === "threshold") {
      const entries = Object.entries(v as Record<string, number>);
      if (entries.length) out.set(k, entries.map(([id, t]) => `${id}:${t}`).join(","));
      continue;
    }
    out.set(k, String(v));
  }
  return out.toString();
}
