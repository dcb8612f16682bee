// Scoring with an asynchronous claims extractor (an LLM). The extractor only ever receives buildExtractionInput's
// reply and name lists, and its output is validated and restricted to that vocabulary before it is scored.
import { specFor } from "@/lib/verifier/compile-case.ts";
import type { VerifierConfig } from "@/lib/verifier/config.ts";
import { buildExtractionInput, restrictClaims, type ClaimsExtractor } from "@/lib/verifier/extractor.ts";
import { claimsSchema, zodIssues, type Case, type Rollout, type VerifierScoreRecord } from "@/lib/verifier/schema.ts";
import { scoreRollout } from "@/lib/verifier/score.ts";

export class ExtractionError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ExtractionError";
  }
}

/**
 * Scores a rollout, extracting claims from its final reply when the bundle carries none. The extractor is not
 * called for a bundle with claims or a case with a spec error. Rejects with ExtractionError when the extractor
 * fails or returns something that is not claims.
 */
export async function scoreWithExtraction(
  rollout: Rollout,
  caseDoc: Case,
  config: VerifierConfig,
  extractor: ClaimsExtractor,
): Promise<VerifierScoreRecord> {
  if (rollout.claims || !specFor(caseDoc, config.guardrails).ok) return scoreRollout(rollout, caseDoc, config);
  const input = buildExtractionInput(rollout, caseDoc);
  let raw: unknown;
  try {
    raw = await extractor.extract(input);
  } catch (err) {
    throw new ExtractionError(`claims extractor ${extractor.name} failed: ${(err as Error).message}`, { cause: err });
  }
  const parsed = claimsSchema.safeParse(raw);
  if (!parsed.success) {
    const detail = zodIssues(parsed.error)
      .map((i) => `${i.path || "(root)"}: ${i.message}`)
      .join("; ");
    throw new ExtractionError(`claims extractor ${extractor.name} returned invalid claims: ${detail}`);
  }
  return scoreRollout(rollout, caseDoc, config, { claims: restrictClaims(parsed.data, input), source: extractor.name });
}
