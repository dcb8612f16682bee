// Structured reasons (verifier.md "Reasons"): what the console shows next to a sub-score or guardrail and what it
// clusters on. Built only for sub-scores below 1 and triggered guardrails, so formatting cost stays off the path
// of a clean rollout.
import { canonicalJson } from "@/lib/verifier/canonical-json.ts";
import type { Dimension, GuardrailCode, ReasonCode } from "@/lib/verifier/codes.ts";
import type { Reason } from "@/lib/verifier/schema.ts";

export type ReasonInit = {
  dimension?: Dimension;
  guardrail?: GuardrailCode;
  code: ReasonCode;
  tool?: string;
  field?: string;
  pointer?: string;
  expected?: unknown;
  actual?: unknown;
  path?: string;
  message: string;
};

/** A reason with a fixed key order and no undefined fields, so records serialise to the same bytes. */
export function makeReason(r: ReasonInit): Reason {
  const out: Record<string, unknown> = {};
  if (r.dimension !== undefined) out.dimension = r.dimension;
  if (r.guardrail !== undefined) out.guardrail = r.guardrail;
  out.code = r.code;
  if (r.tool !== undefined) out.tool = r.tool;
  if (r.field !== undefined) out.field = r.field;
  if (r.pointer !== undefined) out.pointer = r.pointer;
  if (r.expected !== undefined) out.expected = r.expected;
  if (r.actual !== undefined) out.actual = r.actual;
  if (r.path !== undefined) out.path = r.path;
  out.message = r.message;
  return out as Reason;
}

/**
 * A value as it appears in a message: canonical JSON (sorted keys, so a message does not depend on the key order
 * of the input), shortened; `missing` for an absent value.
 */
export function show(value: unknown): string {
  if (value === undefined) return "missing";
  const text = canonicalJson(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** "59.99 ($order.paid_amount)" when the expected value came through a pointer. */
export function showExpected(value: unknown, pointer: string | undefined): string {
  return pointer ? `${show(value)} (${pointer})` : show(value);
}
