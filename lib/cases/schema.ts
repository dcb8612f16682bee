// What a case revision is made of, parsed at every boundary that brings one (docs/cases.md): the `revision` marker an
// ingest line carries, the file `verity case revise` reads, and the workbench's draft. Pure (zod only).
import { z } from "zod";
import { verifierSpecSchema, zodIssues, type Issue } from "@/lib/verifier/schema.ts";
import { int8Digits } from "@/lib/db/column-ranges.ts";
import type { CaseAnswers, RevisionMarker } from "@/lib/ledger/store/case-version.ts";

/**
 * The longest spec draft the workbench takes, in characters (JavaScript's UTF-16 units). Its form is posted as a
 * server action, whose body limit (next.config.ts `serverActions.bodySizeLimit`, 4 MB) holds a draft this long
 * whatever its characters (at most 3 bytes of UTF-8 each), so a longer draft is refused by this limit, by name.
 */
export const MAX_SPEC_CHARS = 1_000_000;

const reasonText = z
  .string({ error: "expected the reason as a string" })
  .trim()
  .min(1, "a revision needs a reason")
  .max(2000, "at most 2000 characters");

const adjudicationId = z.union([
  z.number().int().positive(),
  int8Digits("expected an adjudication id").regex(/^[1-9]/, "expected an adjudication id"),
]);

/** The `"revision"` marker of an ingest case line (formats §1): without it, a different case is a conflict. */
export const revisionMarkerSchema = z.strictObject({
  reason: reasonText,
  answers: z
    .strictObject({
      adjudication_ids: z.array(adjudicationId).max(1000).optional(),
      cluster: z.string().min(1).max(500).optional(),
    })
    .optional(),
});

export function toRevisionMarker(m: z.infer<typeof revisionMarkerSchema>): RevisionMarker {
  const answers: CaseAnswers = {};
  if (m.answers?.adjudication_ids) answers.adjudicationIds = m.answers.adjudication_ids.map((x) => BigInt(x));
  if (m.answers?.cluster) answers.cluster = m.answers.cluster;
  return { reason: m.reason, ...(Object.keys(answers).length ? { answers } : {}) };
}

/** The parts of a case a revision may change; what is left out stays as the current version has it. */
export type CaseDraft = { spec?: unknown; snapshot?: unknown; ticket?: unknown };

export const reviseReasonSchema = reasonText;

/**
 * The file of `verity case revise TICKET FILE`: a whole case (`"kind": "case"`), or just its `verifier_spec`, either
 * bare or as `{"verifier_spec": …}`. Errors name the path in the file.
 */
export function parseReviseFile(json: unknown): { ok: true; draft: CaseDraft } | { ok: false; issues: Issue[] } {
  if (json === null || typeof json !== "object" || Array.isArray(json))
    return { ok: false, issues: [{ path: "", message: "expected a JSON object: a case or its verifier_spec" }] };
  const o = json as Record<string, unknown>;
  if (o.kind === "case") {
    const known = new Set(["kind", "ticket", "env_snapshot", "verifier_spec"]);
    const unknown = Object.keys(o).filter((k) => !known.has(k));
    if (unknown.length)
      return { ok: false, issues: unknown.map((k) => ({ path: k, message: `unknown field "${k}"` })) };
    return { ok: true, draft: { ticket: o.ticket, snapshot: o.env_snapshot, spec: o.verifier_spec } };
  }
  if ("verifier_spec" in o) {
    const unknown = Object.keys(o).filter((k) => k !== "verifier_spec" && k !== "env_snapshot");
    if (unknown.length)
      return { ok: false, issues: unknown.map((k) => ({ path: k, message: `unknown field "${k}"` })) };
    return { ok: true, draft: { spec: o.verifier_spec, ...("env_snapshot" in o ? { snapshot: o.env_snapshot } : {}) } };
  }
  // A bare spec: validated here so its paths read as the file's own (no verifier_spec. prefix).
  const spec = verifierSpecSchema.safeParse(json);
  if (!spec.success) return { ok: false, issues: zodIssues(spec.error) };
  return { ok: true, draft: { spec: json } };
}

/** The workbench's draft as text (the editor's JSON), before the case schema sees it. */
export function parseDraftText(text: string): { ok: true; spec: unknown } | { ok: false; issues: Issue[] } {
  try {
    return { ok: true, spec: JSON.parse(text) };
  } catch (err) {
    return { ok: false, issues: [{ path: "", message: `invalid JSON: ${(err as Error).message}` }] };
  }
}
