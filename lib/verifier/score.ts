// scoreRollout: the verifier of verifier.md as a pure function (rollout, case, config[, claims]) -> score record.
// No clock, no randomness, no environment, no I/O: the same inputs give the same record, byte for byte.
import { evidenceObligations, matchRequiredWrites, policyViolations } from "@/lib/verifier/analysis.ts";
import { DIMENSIONS, GUARDRAIL_CODES, type Dimension, type GuardrailCode } from "@/lib/verifier/codes.ts";
import { specFor, type SpecProblem } from "@/lib/verifier/compile-case.ts";
import { DEFAULT_CONFIG, type VerifierConfig } from "@/lib/verifier/config.ts";
import { buildExtractionInput } from "@/lib/verifier/extractor.ts";
import { collectFacts } from "@/lib/verifier/facts.ts";
import { GUARDRAILS } from "@/lib/verifier/guardrails.ts";
import { makeReason } from "@/lib/verifier/reasons.ts";
import { buildRecord, errorRecord, round6, type Identity } from "@/lib/verifier/records.ts";
import { ruleExtractorFor } from "@/lib/verifier/rule-extractor.ts";
import type { Case, Claims, GuardrailHit, Reason, Rollout, VerifierScoreRecord } from "@/lib/verifier/schema.ts";
import {
  communication,
  efficiency,
  evidence,
  outcome,
  policy,
  type ScoreContext,
  type SubscoreResult,
} from "@/lib/verifier/subscores.ts";

/** Claims produced outside the bundle, with the name written as claims_source ("rules", "llm:<model>"). */
export type ExtractedClaims = { claims: Claims; source: string };

const SUBSCORES: Record<Dimension, (ctx: ScoreContext) => SubscoreResult> = {
  outcome,
  policy,
  evidence,
  efficiency,
  communication,
};

export function identityOf(rollout: Rollout): Identity {
  return {
    trajectory_id: rollout.trajectory_id,
    run_id: rollout.run_id,
    step: rollout.step,
    ticket_id: rollout.ticket_id,
    group_id: rollout.group_id ?? null,
    sample_index: rollout.sample_index ?? null,
  };
}

/**
 * Scores a validated rollout against its case. Claims: the bundle's own when it carries them ("bundle"), else
 * `extracted` when given, else the config's rule extractor ("rules"); an LLM extractor is async, see
 * scoreWithExtraction. A pointer that does not resolve gives a spec_error record, never a silent zero.
 */
export function scoreRollout(
  rollout: Rollout,
  caseDoc: Case,
  config: VerifierConfig = DEFAULT_CONFIG,
  extracted?: ExtractedClaims,
): VerifierScoreRecord {
  const identity = identityOf(rollout);
  const facts = collectFacts(rollout);
  const compiled = specFor(caseDoc, config.guardrails);
  const fromBundle = rollout.claims ?? undefined;

  if (!compiled.ok) {
    const reasons = compiled.problems.map((p) => specProblemReason(p, config));
    return errorRecord("spec_error", identity, reasons, config, {
      claims: fromBundle ? copyClaims(fromBundle) : extracted ? copyClaims(extracted.claims) : null,
      claimsSource: fromBundle ? "bundle" : (extracted?.source ?? null),
      handoff: facts.handoff,
      toolSteps: facts.toolSteps.length,
    });
  }

  const { claims, source } = fromBundle
    ? { claims: fromBundle, source: "bundle" }
    : (extracted ?? {
        claims: ruleExtractorFor(config.claims.rules).extract(buildExtractionInput(rollout, caseDoc)),
        source: "rules",
      });
  const spec = compiled.spec;
  const match = matchRequiredWrites(spec, facts);
  const ctx: ScoreContext = {
    spec,
    facts,
    claims,
    config,
    match,
    violations: policyViolations(spec, facts),
    obligations: evidenceObligations(spec, facts, match),
  };

  const reasons: Reason[] = [];
  const subscores: Record<Dimension, number> = { outcome: 0, policy: 0, evidence: 0, efficiency: 0, communication: 0 };
  let raw = 0;
  for (const d of DIMENSIONS) {
    const r = SUBSCORES[d](ctx);
    subscores[d] = round6(r.score);
    raw += config.weights[d] * r.score;
    if (r.reasons.length) reasons.push(...r.reasons);
  }

  const guardrails: GuardrailHit[] = [];
  let cap = 1;
  let deciding: GuardrailCode | null = null;
  for (const code of GUARDRAIL_CODES) {
    const setting = config.guardrails[code];
    if (!setting.on) continue;
    const hit = GUARDRAILS[code](ctx);
    if (!hit) continue;
    guardrails.push({ code, cap: round6(setting.cap), evidence: hit.evidence });
    reasons.push(...hit.reasons);
    // Strictly lower only: on a tie the earlier code in table order stays deciding.
    if (deciding === null || setting.cap < cap) {
      cap = Math.min(cap, setting.cap);
      deciding = code;
    }
  }

  for (const p of compiled.ignored) reasons.push(specProblemReason(p, config));

  const rawReward = round6(raw);
  const reward = round6(Math.min(raw, cap));
  return buildRecord(identity, "scored", config, {
    claims_source: source,
    raw_reward: rawReward,
    reward,
    // Compared after rounding so that `capped: false` always means reward == raw_reward on the record.
    capped: round6(cap) < rawReward,
    subscores,
    guardrails,
    deciding_guardrail: deciding,
    reasons,
    claims: copyClaims(claims),
    handoff: facts.handoff,
    tool_steps: facts.toolSteps.length,
  });
}

/**
 * A spec problem as a reason: its own code when it makes the bundle a spec error; `spec_warning` (naming the
 * guardrail) when only a guardrail that is off reads the section, so the rollout is scored without it.
 */
function specProblemReason(p: SpecProblem, config: VerifierConfig): Reason {
  const off = p.guardrail !== undefined && !config.guardrails[p.guardrail].on;
  return makeReason({
    guardrail: off ? p.guardrail : undefined,
    code: off ? "spec_warning" : p.code,
    field: p.field,
    pointer: p.pointer,
    message: off ? `${p.message}; not used, ${p.guardrail} is off` : p.message,
  });
}

function copyClaims(c: Claims): Claims {
  return {
    claimed_writes: [...c.claimed_writes],
    mentioned: c.mentioned.map((m) => (m.value === undefined ? { key: m.key } : { key: m.key, value: m.value })),
    forbidden_hits: [...c.forbidden_hits],
  };
}
