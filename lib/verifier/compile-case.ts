// Turns a case into the form the scorer needs: every pointer resolved once, read requirements normalised, defaults
// applied. A ticket's case is shared by thousands of rollouts (K per group, every training step), so the result is
// cached per case object; cases are treated as immutable once they are scored.
import type { GuardrailCode, HandoffMode, HarmOp } from "@/lib/verifier/codes.ts";
import { asNumber } from "@/lib/verifier/equality.ts";
import { isPointer, resolveSpecValues } from "@/lib/verifier/pointers.ts";
import type { Case, ReadRequirement, VerifierSpec } from "@/lib/verifier/schema.ts";

/** A read requirement as the tool names that satisfy it, with a label for reasons ("a | b" for any_of). */
export type ReadReq = { names: string[]; label: string };
type Args = Record<string, unknown>;

export type CompiledSpec = {
  /** The spec as written, for naming the pointer behind an expected value in a reason. */
  raw: VerifierSpec;
  requiredReads: ReadReq[];
  requiredWrites: { tool: string; args: Args | undefined; after: ReadReq[] }[];
  /** An absent allowed_writes is read as [] (only the required writes are authorised; formats §1). */
  allowedWrites: { tool: string; args: Args | undefined }[];
  policyQuery: { tool: string; args: Args | undefined } | undefined;
  policyRules: { tool: string; arg: string; equals: unknown }[];
  harm: { tool: string; arg?: string; op?: HarmOp; value?: unknown }[];
  mustMention: { key: string; hasValue: boolean; value: unknown }[];
  forbidden: ReadonlySet<string>;
  handoff: HandoffMode;
  budget: number;
  risk: { tools: ReadonlySet<string>; arg: string; threshold: number; check: ReadReq } | undefined;
  approvalTools: ReadonlySet<string> | undefined;
  privacy: { customer: unknown; customerArgs: string[] } | undefined;
  deadlineMs: number | undefined;
  deadline: string | undefined;
};

export type SpecProblem = {
  code: "pointer_unresolved" | "spec_invalid";
  field: string;
  pointer?: string;
  message: string;
  /** The guardrail that alone reads the section the problem is in (none: the sub-scores read it too). */
  guardrail?: GuardrailCode;
};

/**
 * `spec` is undefined when a problem lies in a section a sub-score reads; otherwise it is the spec without the
 * sections that have problems, usable whenever the guardrails owning those sections are off (see specFor).
 */
export type CompiledCase = { spec: CompiledSpec | undefined; problems: SpecProblem[] };

/**
 * The optional sections that exactly one guardrail reads. A problem inside one of them concerns only that
 * guardrail: with the guardrail off, the section is not used, so it cannot make the bundle a spec error.
 */
export const SECTION_GUARDRAIL: Readonly<Partial<Record<keyof VerifierSpec, GuardrailCode>>> = {
  harm: "customer_harm",
  allowed_writes: "unauthorized_write",
  risk: "high_risk_unchecked",
  approval: "approval_bypass",
  privacy: "privacy_overreach",
  deadline: "stale_submission",
};

const cache = new WeakMap<Case, CompiledCase>();

export function compileCase(caseDoc: Case): CompiledCase {
  let compiled = cache.get(caseDoc);
  if (!compiled) {
    compiled = compile(caseDoc);
    cache.set(caseDoc, compiled);
  }
  return compiled;
}

/**
 * The spec a config scores with: a spec error when a problem lies in a section that a sub-score or a guardrail
 * switched on reads; otherwise the spec, with the problems of sections only off guardrails read as `ignored`.
 */
export type SpecForConfig =
  { ok: true; spec: CompiledSpec; ignored: SpecProblem[] } | { ok: false; problems: SpecProblem[] };

export function specFor(caseDoc: Case, guardrails: Readonly<Record<GuardrailCode, { on: boolean }>>): SpecForConfig {
  const { spec, problems } = compileCase(caseDoc);
  if (spec && problems.length === 0) return { ok: true, spec, ignored: problems };
  const decisive = (p: SpecProblem) => p.guardrail === undefined || guardrails[p.guardrail].on;
  if (!spec || problems.some(decisive)) return { ok: false, problems };
  return { ok: true, spec, ignored: problems };
}

export function readReq(req: ReadRequirement): ReadReq {
  return typeof req === "string" ? { names: [req], label: req } : { names: req.any_of, label: req.any_of.join(" | ") };
}

function compile(caseDoc: Case): CompiledCase {
  const raw = caseDoc.verifier_spec;
  const { value: resolved, unresolved } = resolveSpecValues(raw, caseDoc.env_snapshot);
  const problems: SpecProblem[] = unresolved.map((u) => ({
    code: "pointer_unresolved",
    field: `verifier_spec.${u.field}`,
    pointer: u.pointer,
    message: `pointer ${u.pointer} does not resolve against env_snapshot`,
  }));

  // Resolved values whose type the schema could not check (they came through a pointer); a value whose pointer
  // did not resolve is reported once, as unresolved.
  const reported = (field: string) => problems.some((p) => p.field === field);
  let threshold = 0;
  if (resolved.risk && !reported("verifier_spec.risk.threshold")) {
    const t = asNumber(resolved.risk.threshold);
    if (t === undefined) problems.push(invalid("verifier_spec.risk.threshold", raw.risk?.threshold, "a number"));
    else threshold = t;
  }
  let deadlineMs: number | undefined;
  if (resolved.deadline !== undefined && !reported("verifier_spec.deadline")) {
    deadlineMs = typeof resolved.deadline === "string" ? parseInstant(resolved.deadline) : undefined;
    if (deadlineMs === undefined) problems.push(invalid("verifier_spec.deadline", raw.deadline, "an ISO-8601 instant"));
  }
  if (problems.length === 0) return { spec: build(raw, resolved, threshold, deadlineMs), problems };

  // Sections with a problem are left out of the spec; it is usable only if all of them belong to one guardrail.
  const s: VerifierSpec = { ...resolved };
  let usable = true;
  for (const p of problems) {
    const section = p.field.split(".")[1] as keyof VerifierSpec;
    p.guardrail = SECTION_GUARDRAIL[section];
    if (p.guardrail === undefined) usable = false;
    delete s[section];
  }
  return {
    spec: usable ? build(raw, s, threshold, s.deadline === undefined ? undefined : deadlineMs) : undefined,
    problems,
  };
}

function build(raw: VerifierSpec, s: VerifierSpec, threshold: number, deadlineMs: number | undefined): CompiledSpec {
  const requiredReads = (s.required_reads ?? []).map(readReq);
  const requiredWrites = (s.required_writes ?? []).map((w) => ({
    tool: w.tool,
    args: w.args,
    after: (w.after ?? []).map(readReq),
  }));
  return {
    raw,
    requiredReads,
    requiredWrites,
    allowedWrites: (s.allowed_writes ?? []).map((a) =>
      typeof a === "string" ? { tool: a, args: undefined } : { tool: a.tool, args: a.args },
    ),
    policyQuery: s.policy?.query && { tool: s.policy.query.tool, args: s.policy.query.args },
    policyRules: s.policy?.rules ?? [],
    harm: s.harm ?? [],
    mustMention: (s.must_mention ?? []).map((m) => ({ key: m.key, hasValue: m.value !== undefined, value: m.value })),
    forbidden: new Set(s.forbidden ?? []),
    handoff: s.handoff ?? "not_allowed",
    budget: s.step_budget ?? 2 * (requiredReads.length + requiredWrites.length) + 2,
    risk: s.risk && { tools: new Set(s.risk.tools), arg: s.risk.arg, threshold, check: readReq(s.risk.check) },
    approvalTools: s.approval && new Set(s.approval.tools),
    privacy: s.privacy && { customer: s.privacy.customer, customerArgs: s.privacy.customer_args },
    deadlineMs,
    deadline: s.deadline,
  };
}

function invalid(field: string, written: unknown, expected: string): SpecProblem {
  const via = isPointer(written) ? ` (${written} resolves to something else)` : "";
  return {
    code: "spec_invalid",
    field,
    ...(isPointer(written) ? { pointer: written } : {}),
    message: `${field} must be ${expected}${via}`,
  };
}

// ISO-8601 instant with a zone: date, "T", time, "Z" or ±hh:mm. Date.parse alone would also take local times.
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/i;

/** Milliseconds since the epoch of an ISO-8601 instant, or undefined. Pure: no clock involved. */
export function parseInstant(text: string): number | undefined {
  if (!INSTANT.test(text)) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The pointer written in the raw spec at the same place as a resolved value, if it was one. */
export function pointerAt(rawValue: unknown): string | undefined {
  return isPointer(rawValue) ? rawValue : undefined;
}
