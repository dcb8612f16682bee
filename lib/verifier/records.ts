// Builders of score records with the field order of formats §3, so that equal records are equal bytes.
import { configHash, VERIFIER_VERSION, type VerifierConfig } from "@/lib/verifier/config.ts";
import type { Claims, GuardrailHit, Reason, VerifierScoreRecord } from "@/lib/verifier/schema.ts";

export type Identity = {
  trajectory_id: string | null;
  run_id: string | null;
  step: number | null;
  ticket_id: string | null;
  group_id: string | null;
  sample_index: number | null;
};

/** Output rounding of verifier.md: rewards, caps and sub-scores to 6 decimals. */
export function round6(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

/** Everything of a record that is not identity or provenance. */
export type RecordBody = {
  claims_source: string | null;
  raw_reward: number | null;
  reward: number | null;
  capped: boolean;
  subscores: Record<string, number> | null;
  guardrails: GuardrailHit[];
  deciding_guardrail: string | null;
  reasons: Reason[];
  claims: Claims | null;
  handoff: boolean | null;
  tool_steps: number | null;
};

/**
 * One object literal with every field in the order of formats §3. Written out rather than spread: spreading a head
 * object and adding fields makes V8 build a dictionary-mode object several kilobytes large, per rollout.
 */
export function buildRecord(
  identity: Identity,
  status: VerifierScoreRecord["status"],
  config: VerifierConfig,
  b: RecordBody,
): VerifierScoreRecord {
  return {
    kind: "score",
    trajectory_id: identity.trajectory_id,
    run_id: identity.run_id,
    step: identity.step,
    ticket_id: identity.ticket_id,
    group_id: identity.group_id,
    sample_index: identity.sample_index,
    status,
    source: "verifier",
    verifier_version: VERIFIER_VERSION,
    config_hash: configHash(config),
    claims_source: b.claims_source,
    raw_reward: b.raw_reward,
    reward: b.reward,
    capped: b.capped,
    subscores: b.subscores,
    guardrails: b.guardrails,
    deciding_guardrail: b.deciding_guardrail,
    reasons: b.reasons,
    claims: b.claims,
    handoff: b.handoff,
    tool_steps: b.tool_steps,
  } as VerifierScoreRecord;
}

/**
 * A record without a reward: `spec_error` (the case cannot be applied; the rollout itself was valid, so handoff
 * and tool_steps are known) or `input_error` (the rollout or its case reference is unusable).
 */
export function errorRecord(
  status: "spec_error" | "input_error",
  identity: Identity,
  reasons: Reason[],
  config: VerifierConfig,
  known?: { claims: Claims | null; claimsSource: string | null; handoff: boolean; toolSteps: number },
): VerifierScoreRecord {
  return buildRecord(identity, status, config, {
    claims_source: known?.claimsSource ?? null,
    raw_reward: null,
    reward: null,
    capped: false,
    subscores: null,
    guardrails: [],
    deciding_guardrail: null,
    reasons,
    claims: known?.claims ?? null,
    handoff: known?.handoff ?? null,
    tool_steps: known?.toolSteps ?? null,
  });
}
