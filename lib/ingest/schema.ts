// What the ingest path accepts from outside — NDJSON lines, API query parameters, CLI flags — and what it answers.
// Line contents are validated by the verifier's wire schemas (lib/verifier/schema.ts), the single source of truth.
import { z } from "zod";
import { revisionMarkerSchema, toRevisionMarker } from "@/lib/cases/schema.ts";
import type { RevisionMarker } from "@/lib/ledger/store/case-version.ts";
import { fastExternalRecord, fastRollout, fastScoredRecord } from "@/lib/ingest/fast-validate.ts";
import {
  caseSchema,
  idSchema,
  rolloutSchema,
  scoreRecordSchema,
  zodIssues,
  type Case,
  type Issue,
  type Rollout,
  type ScoreRecord,
} from "@/lib/verifier/schema.ts";
import { INT4_MAX } from "@/lib/db/column-ranges.ts";

export const INGEST_FORMATS = ["ndjson", "platform"] as const;
export type IngestFormat = (typeof INGEST_FORMATS)[number];

/** Default lines per transaction: big enough to amortise round trips, small enough to keep a batch ~10 MB. */
export const DEFAULT_BATCH_LINES = 2000;
/** The response lists at most this many rejected lines; `truncated` says when there were more. */
export const MAX_LISTED_REJECTS = 1000;

const runId = idSchema;
const stepNo = z.coerce
  .number()
  .int()
  .nonnegative()
  .max(INT4_MAX, { error: `at most ${INT4_MAX} (the ledger stores a step as a 32-bit integer)` });

/** Query parameters of POST /api/v1/ingest (identity defaults are for `format=platform`). */
export const ingestQuerySchema = z.strictObject({
  format: z.enum(INGEST_FORMATS).default("ndjson"),
  run: runId.optional(),
  step: stepNo.optional(),
  batch: z.coerce.number().int().min(1).max(20_000).optional(),
});
export type IngestQuery = z.infer<typeof ingestQuerySchema>;

/** Flags of `verity ingest FILE|-`. */
export const ingestCliSchema = z.strictObject({
  file: z.string().min(1, "give a file to ingest, or - for standard input"),
  format: z.enum(INGEST_FORMATS).default("ndjson"),
  run: runId.optional(),
  step: stepNo.optional(),
  rejects: z.string().min(1).optional(),
  batch: z.coerce.number().int().min(1).max(20_000).optional(),
  strict: z.boolean().default(false),
  progress: z.enum(["auto", "on", "off"]).default("auto"),
});
export type IngestCliOptions = z.infer<typeof ingestCliSchema>;

export type RejectedLine = { line: number; path: string; message: string };

export type KindCounts = { accepted: number; unchanged: number };

/** The answer of the API and the last line the CLI prints. */
export type IngestSummary = {
  /** False when the ingest stopped early (database gone, body cut short); `error` says why. */
  ok: boolean;
  /** Non-blank lines read. */
  lines: number;
  accepted: number;
  unchanged: number;
  rejected: number;
  /** Ledger entries the verifier wrote for rollouts on the way in. */
  scored: number;
  /** Rollouts stored without a ledger entry because their case is not known yet (`verity rescore` scores them). */
  unscored: number;
  by_kind: { case: KindCounts; rollout: KindCounts; score: KindCounts };
  rejects: RejectedLine[];
  truncated: boolean;
  /** Every line up to this one is committed; re-sending the stream completes it without duplicates. */
  last_committed_line: number;
  error?: string;
  /** Where it stopped: reading the body (cut off), the database (unavailable: lost, refused the connection, out of
   * disk), or the server otherwise (a fault that is not about one line's data). */
  failed_at?: "body" | "database" | "server";
};

export function emptySummary(): IngestSummary {
  return {
    ok: true,
    lines: 0,
    accepted: 0,
    unchanged: 0,
    rejected: 0,
    scored: 0,
    unscored: 0,
    by_kind: {
      case: { accepted: 0, unchanged: 0 },
      rollout: { accepted: 0, unchanged: 0 },
      score: { accepted: 0, unchanged: 0 },
    },
    rejects: [],
    truncated: false,
    last_committed_line: 0,
  };
}

export type ParsedLine =
  | { ok: true; kind: "case"; value: Case; revision?: RevisionMarker }
  | { ok: true; kind: "rollout"; value: Rollout }
  | { ok: true; kind: "score"; value: ScoreRecord }
  | { ok: false; issue: Issue };

const KINDS = ["case", "rollout", "score"] as const;

function firstIssue(error: z.ZodError): Issue {
  return zodIssues(error)[0] ?? { path: "", message: "invalid" };
}

/**
 * Validates one decoded JSON value by its `kind`. A score record computed elsewhere may omit `kind` when it says
 * `"source": "external"` (formats §3). The first schema issue is reported, with its dotted path.
 */
export function parseLineValue(value: unknown): ParsedLine {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { ok: false, issue: { path: "", message: "expected a JSON object" } };
  }
  const kind = (value as { kind?: unknown }).kind;
  const source = (value as { source?: unknown }).source;
  if (kind === "case") {
    // A case line may say it revises the stored case (docs/cases.md); the marker is not part of the case or its hash.
    if ("revision" in value) {
      const { revision, ...rest } = value as Record<string, unknown>;
      const m = revisionMarkerSchema.safeParse(revision);
      if (!m.success) {
        const i = firstIssue(m.error);
        return { ok: false, issue: { path: i.path ? `revision.${i.path}` : "revision", message: i.message } };
      }
      const r = caseSchema.safeParse(rest);
      return r.success
        ? { ok: true, kind, value: r.data, revision: toRevisionMarker(m.data) }
        : { ok: false, issue: firstIssue(r.error) };
    }
    const r = caseSchema.safeParse(value);
    return r.success ? { ok: true, kind, value: r.data } : { ok: false, issue: firstIssue(r.error) };
  }
  if (kind === "rollout") {
    const fast = fastRollout(value);
    if (fast) return { ok: true, kind, value: fast };
    const r = rolloutSchema.safeParse(value);
    return r.success ? { ok: true, kind, value: r.data } : { ok: false, issue: firstIssue(r.error) };
  }
  if (kind === "score" || (kind === undefined && source === "external")) {
    const fast = source === "external" ? fastExternalRecord(value) : fastScoredRecord(value);
    if (fast) return { ok: true, kind: "score", value: fast };
    const r = scoreRecordSchema.safeParse(value);
    return r.success ? { ok: true, kind: "score", value: r.data } : { ok: false, issue: firstIssue(r.error) };
  }
  const message =
    kind === undefined
      ? `missing "kind" (expected one of ${KINDS.join(", ")})`
      : `unknown kind ${JSON.stringify(kind)} (expected one of ${KINDS.join(", ")})`;
  return { ok: false, issue: { path: "kind", message } };
}
