// What a run would cost before it starts: the rollouts in scope, and for each judge component the calls, the tokens
// (the prompt's characters / 4 plus an answer of 60 tokens: an estimate, said as one) and their price.
import type pg from "pg";
import type { RunScope, VersionDocument } from "@/lib/rewards/schema.ts";
import { scopeTotal } from "@/lib/rewards/scope.ts";

export type RunEstimate = { rollouts: number; judgeCalls: number; tokens: number; cost: number };

const ANSWER_TOKENS = 60;
/** A rollout's reply and message as the prompt fills them, roughly. */
const FILLED_CHARS = 1_500;

export async function estimateRunCost(
  q: pg.Pool,
  doc: VersionDocument,
  runId: string,
  scope: RunScope,
): Promise<RunEstimate> {
  const rollouts = await scopeTotal(q, runId, scope);
  let calls = 0;
  let tokens = 0;
  let cost = 0;
  for (const c of doc.components) {
    if (c.kind !== "judge" || c.simulated) continue;
    const prompt = Math.ceil((c.prompt.length + c.rubric.length + FILLED_CHARS) / 4);
    calls += rollouts;
    tokens += rollouts * (prompt + ANSWER_TOKENS);
    cost += (rollouts * (prompt * c.price.input_per_million + ANSWER_TOKENS * c.price.output_per_million)) / 1e6;
  }
  return { rollouts, judgeCalls: calls, tokens, cost };
}
