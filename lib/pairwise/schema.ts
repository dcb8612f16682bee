// The pairwise judgement: one schema for the submit action, the form and the tests. The choice is the side the
// annotator preferred as shown (left = A, right = B on the page), or a tie; the server maps it to a rollout.
import { z } from "zod";
import { bigId, seconds } from "@/lib/review/schema.ts";

export const PAIR_CHOICES = ["left", "right", "tie"] as const;
export type PairChoice = (typeof PAIR_CHOICES)[number];

/** Why one rollout is better: the five sub-scores' words, and safety (a guardrail the other one triggered). */
export const PAIR_REASONS = ["outcome", "policy", "evidence", "efficiency", "communication", "safety"] as const;
export type PairReason = (typeof PAIR_REASONS)[number];

export const pairJudgementSchema = z.strictObject({
  choice: z.enum(PAIR_CHOICES, { error: "Choose A, B or tie." }),
  reason: z.enum(PAIR_REASONS, { error: "Pick a reason from the list, or none." }).nullable().default(null),
  note: z.string().max(5000, { error: "At most 5000 characters." }).default(""),
});
export type PairJudgement = z.infer<typeof pairJudgementSchema>;

export const submitPairInput = z.strictObject({ itemId: bigId, body: pairJudgementSchema, secondsSpent: seconds });
