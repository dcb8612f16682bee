// The human reward: the verifier's formula (verifier.md "Sub-scores" and "Guardrails") applied to an annotator's
// sub-scores and guardrail flags, with the weights and caps of the batch's verifier config. Pure and free of Node
// modules (only types and constants are imported), because the annotation form computes it live in the browser
// and the server computes it again on submit — the stored reward never comes from the client.
import { DIMENSIONS, GUARDRAIL_CODES, type Dimension, type GuardrailCode } from "@/lib/verifier/codes.ts";
import type { VerifierConfig } from "@/lib/verifier/config.ts";

/** The part of a verifier config the reward formula reads: serialisable, so a page can hand it to the form. */
export type ScoringConfig = Pick<VerifierConfig, "weights" | "guardrails">;

/** The values an annotator picks a sub-score from (number keys 0–4). */
export const SCORE_STEPS = [0, 0.25, 0.5, 0.75, 1] as const;

export type HumanSubscores = Record<Dimension, number>;

export type HumanReward = {
  rawReward: number;
  reward: number;
  /** The lowest cap among the flagged guardrails that are on in the config; 1 when none. */
  cap: number;
  capped: boolean;
  decidingGuardrail: GuardrailCode | null;
  /** Flagged guardrails that are off in the config: recorded with the review, but they cap nothing (as in the ledger). */
  ignored: GuardrailCode[];
};

/** Output rounding of verifier.md: 6 decimals, so human and ledger numbers compare at the same precision. */
function round6(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

/**
 * raw = Σ weight_d · subscore_d; reward = min(raw, lowest cap of the flagged guardrails that are on).
 * The deciding guardrail is the flagged one with the lowest cap, ties broken by verifier.md table order.
 * Range: both in [0, 1] for sub-scores in [0, 1] and weights summing to 1.
 */
export function humanReward(subscores: HumanSubscores, flags: readonly string[], config: ScoringConfig): HumanReward {
  let raw = 0;
  for (const d of DIMENSIONS) raw += config.weights[d] * subscores[d];
  const flagged = new Set(flags);
  let cap = 1;
  let deciding: GuardrailCode | null = null;
  const ignored: GuardrailCode[] = [];
  for (const code of GUARDRAIL_CODES) {
    if (!flagged.has(code)) continue;
    const setting = config.guardrails[code];
    if (!setting.on) {
      ignored.push(code);
      continue;
    }
    // Strictly lower only: on a tie the earlier code in table order stays deciding (as the verifier does).
    if (deciding === null || setting.cap < cap) {
      cap = Math.min(cap, setting.cap);
      deciding = code;
    }
  }
  const rawReward = round6(raw);
  // Compared after rounding: a raw 0.5500000000000001 under a 0.55 cap is not "capped".
  return {
    rawReward,
    reward: round6(Math.min(raw, cap)),
    cap: round6(cap),
    capped: round6(cap) < rawReward,
    decidingGuardrail: deciding,
    ignored,
  };
}

/** The live value while the form is being filled: null until all five sub-scores are set. */
export function partialHumanReward(
  subscores: Partial<Record<Dimension, number | null>>,
  flags: readonly string[],
  config: ScoringConfig,
): HumanReward | null {
  const complete = {} as HumanSubscores;
  for (const d of DIMENSIONS) {
    const v = subscores[d];
    if (v === null || v === undefined || !Number.isFinite(v)) return null;
    complete[d] = v;
  }
  return humanReward(complete, flags, config);
}
