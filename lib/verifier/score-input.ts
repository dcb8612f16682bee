// Scoring from untrusted JSON: validate the rollout, find its case, then score. Every outcome is a record —
// a malformed rollout or a missing case becomes an input_error record that says why, never an exception.
import { DEFAULT_CONFIG, type VerifierConfig } from "@/lib/verifier/config.ts";
import type { ClaimsExtractor } from "@/lib/verifier/extractor.ts";
import { makeReason } from "@/lib/verifier/reasons.ts";
import { errorRecord, type Identity } from "@/lib/verifier/records.ts";
import {
  rolloutSchema,
  zodIssues,
  type Case,
  type Issue,
  type Rollout,
  type VerifierScoreRecord,
} from "@/lib/verifier/schema.ts";
import { identityOf, scoreRollout } from "@/lib/verifier/score.ts";
import { scoreWithExtraction } from "@/lib/verifier/score-with-extraction.ts";

/** Finds a validated case by ticket id (a Map's get, a database read done beforehand, …). */
export type CaseLookup = (ticketId: string) => Case | undefined;

export type PreparedInput =
  { ok: true; rollout: Rollout; caseDoc: Case } | { ok: false; record: VerifierScoreRecord; issues: Issue[] };

/** Validates a rollout and resolves its case (embedded first, then the lookup by ticket_id). */
export function prepareInput(
  json: unknown,
  lookup: CaseLookup,
  config: VerifierConfig = DEFAULT_CONFIG,
): PreparedInput {
  const parsed = rolloutSchema.safeParse(json);
  if (!parsed.success) {
    const issues = zodIssues(parsed.error);
    const reasons = issues.map((i) => makeReason({ code: "input_invalid", path: i.path, message: i.message }));
    return { ok: false, issues, record: errorRecord("input_error", rawIdentity(json), reasons, config) };
  }
  const rollout = parsed.data;
  const caseDoc = rollout.case ?? lookup(rollout.ticket_id);
  if (!caseDoc) {
    const issue = { path: "ticket_id", message: `no case for ticket ${rollout.ticket_id}: not embedded and not found` };
    const reason = makeReason({ code: "case_missing", path: issue.path, message: issue.message });
    return { ok: false, issues: [issue], record: errorRecord("input_error", identityOf(rollout), [reason], config) };
  }
  return { ok: true, rollout, caseDoc };
}

/** Validates and scores with bundle or rule claims. Never throws: every failure is an input_error record. */
export function scoreInput(
  json: unknown,
  lookup: CaseLookup,
  config: VerifierConfig = DEFAULT_CONFIG,
): VerifierScoreRecord {
  try {
    const p = prepareInput(json, lookup, config);
    return p.ok ? scoreRollout(p.rollout, p.caseDoc, config) : p.record;
  } catch (err) {
    // Only a verifier bug lands here; the record still says which input and why instead of losing the rollout.
    const reason = makeReason({
      code: "input_invalid",
      path: "",
      message: `verifier failed on this input: ${(err as Error).message}`,
    });
    return errorRecord("input_error", rawIdentity(json), [reason], config);
  }
}

/** As scoreInput, with an async extractor for rollouts without claims. Rejects only when the extractor fails. */
export async function scoreInputWithExtraction(
  json: unknown,
  lookup: CaseLookup,
  config: VerifierConfig,
  extractor: ClaimsExtractor,
): Promise<VerifierScoreRecord> {
  const p = prepareInput(json, lookup, config);
  return p.ok ? scoreWithExtraction(p.rollout, p.caseDoc, config, extractor) : p.record;
}

/** Identity fields of an invalid rollout, kept where they have the right type so the record can be traced. */
function rawIdentity(json: unknown): Identity {
  const o = json !== null && typeof json === "object" && !Array.isArray(json) ? (json as Record<string, unknown>) : {};
  const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : null);
  const int = (v: unknown) => (typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : null);
  return {
    trajectory_id: str(o.trajectory_id),
    run_id: str(o.run_id),
    step: int(o.step),
    ticket_id: str(o.ticket_id),
    group_id: str(o.group_id),
    sample_index: int(o.sample_index),
  };
}
