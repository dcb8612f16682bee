// ledger.guardrail_mask: the triggered guardrails of an entry as one integer, in the verifier's table order. Pure.
import { GUARDRAIL_CODES, type GuardrailCode } from "@/lib/verifier/codes.ts";

/** ledger.guardrail_mask: bit i set when GUARDRAIL_CODES[i] triggered (the verifier's table order). */
const CODE_INDEX = new Map<string, number>(GUARDRAIL_CODES.map((c, i) => [c, i]));

export function guardrailMask(codes: Iterable<string>): number {
  let mask = 0;
  for (const c of codes) {
    const i = CODE_INDEX.get(c);
    if (i !== undefined) mask |= 1 << i;
  }
  return mask;
}

export function codesOfMask(mask: number): GuardrailCode[] {
  return GUARDRAIL_CODES.filter((_, i) => (mask & (1 << i)) !== 0);
}
