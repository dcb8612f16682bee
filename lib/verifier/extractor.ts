// The claims-extractor boundary (verifier.md "Claims"). An extractor sees the final reply and three lists of
// names — never sandbox, snapshot or spec values — so it can only say what the reply asserts, not what is true.
import type { Case, Claims, Rollout } from "@/lib/verifier/schema.ts";

/** Keys an extraction input must not carry: the truth the extractor must never see. */
type TruthKeys =
  | "sandbox"
  | "env_snapshot"
  | "verifier_spec"
  | "case"
  | "trajectory"
  | "tool_registry"
  | "claims"
  | "tables"
  | "writes";

/**
 * What an extractor receives. The `never` keys make an object that also holds sandbox, snapshot or spec data
 * unassignable to this type (not only object literals: any value with such a key fails to type-check).
 */
export type ExtractionInput = Readonly<{
  final_reply: string;
  /** Names of the registry's write tools: the vocabulary of claimed_writes. */
  write_tools: readonly string[];
  /** The spec's must_mention keys (never their values). */
  mention_keys: readonly string[];
  /** The spec's forbidden codes. */
  forbidden_codes: readonly string[];
}> & { readonly [K in TruthKeys]?: never };

export interface ClaimsExtractor {
  /** Written on the record as claims_source: "rules", "llm:<model>". */
  name: string;
  extract(input: ExtractionInput): Promise<Claims> | Claims;
}

/** Builds the only input an extractor gets: a fresh frozen object with the reply and three lists of names. */
export function buildExtractionInput(rollout: Rollout, caseDoc: Case): ExtractionInput {
  const spec = caseDoc.verifier_spec;
  return Object.freeze({
    final_reply: rollout.trajectory.final_reply,
    write_tools: Object.freeze(unique(rollout.tool_registry.filter((t) => t.kind === "write").map((t) => t.name))),
    mention_keys: Object.freeze(unique((spec.must_mention ?? []).map((m) => m.key))),
    forbidden_codes: Object.freeze(unique(spec.forbidden ?? [])),
  });
}

/**
 * Keeps only claims inside the input's vocabulary. An extractor (an LLM especially) may invent tool names, keys or
 * codes; an invented write tool would otherwise trigger empty_promise for something the reply never could claim.
 */
export function restrictClaims(claims: Claims, input: ExtractionInput): Claims {
  const writes = new Set(input.write_tools);
  const keys = new Set(input.mention_keys);
  const codes = new Set(input.forbidden_codes);
  return {
    claimed_writes: unique(claims.claimed_writes.filter((t) => writes.has(t))),
    mentioned: claims.mentioned.filter((m) => keys.has(m.key)),
    forbidden_hits: unique(claims.forbidden_hits.filter((c) => codes.has(c))),
  };
}

function unique(xs: string[]): string[] {
  return [...new Set(xs)];
}
