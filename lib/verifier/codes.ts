// Stable vocabulary of the verifier (verifier.md). The console clusters on these strings and the database stores
// triggered guardrails as a bitmask indexed by GUARDRAIL_CODES, so the order and spelling below never change;
// a new rule appends a new code.

/** Guardrail codes in the order of the table in verifier.md (also the tie-break order for deciding_guardrail). */
export const GUARDRAIL_CODES = [
  "customer_harm",
  "unauthorized_write",
  "duplicate_side_effect",
  "empty_promise",
  "policy_error",
  "missing_evidence",
  "high_risk_unchecked",
  "approval_bypass",
  "privacy_overreach",
  "stale_submission",
  "tool_missing",
] as const;
export type GuardrailCode = (typeof GUARDRAIL_CODES)[number];

/** The five sub-scores, in the order they are written on a record. */
export const DIMENSIONS = ["outcome", "policy", "evidence", "efficiency", "communication"] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/** Reason codes of sub-scores (verifier.md "Reasons"). Guardrail reasons use the guardrail code itself. */
export const DIMENSION_REASON_CODES = [
  "required_write_missing",
  "required_write_args_mismatch",
  "handoff_required_missing",
  "handoff_instead_of_resolution",
  "policy_query_missing",
  "policy_rule_violated",
  "required_read_missing",
  "required_read_after_write",
  "over_step_budget",
  "mention_missing",
  "mention_value_mismatch",
  "forbidden_expression",
] as const;

/**
 * Reason codes of records that carry no reward: `pointer_unresolved` (spec error: a pointer does not resolve),
 * `spec_invalid` (spec error: a resolved spec value has the wrong shape, e.g. a deadline that is not an instant),
 * `input_invalid` (the rollout fails its schema) and `case_missing` (no case for the rollout's ticket).
 */
export const ERROR_REASON_CODES = ["pointer_unresolved", "spec_invalid", "input_invalid", "case_missing"] as const;

/**
 * Reason codes that explain no score: `spec_warning`, a pointer_unresolved or spec_invalid problem in a spec
 * section that only a guardrail switched off reads (the rollout is scored; the reason names that guardrail).
 */
export const WARNING_REASON_CODES = ["spec_warning"] as const;

export type ReasonCode =
  | (typeof DIMENSION_REASON_CODES)[number]
  | (typeof ERROR_REASON_CODES)[number]
  | (typeof WARNING_REASON_CODES)[number]
  | GuardrailCode;

/** The three values of a verifier record's `status`. */
export const RECORD_STATUSES = ["scored", "spec_error", "input_error"] as const;

export const REGISTRY_KINDS = ["read", "write", "handoff", "other"] as const;
export type RegistryKind = (typeof REGISTRY_KINDS)[number];

export const HANDOFF_MODES = ["required", "allowed", "not_allowed"] as const;
export type HandoffMode = (typeof HANDOFF_MODES)[number];

export const HARM_OPS = ["lt", "gt", "ne", "eq"] as const;
export type HarmOp = (typeof HARM_OPS)[number];
