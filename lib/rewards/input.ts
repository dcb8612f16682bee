// What a reward function reads of one rollout: its final reply, tool steps and the case it answers (the ticket's
// message and reference_output, and the snapshot spec pointers resolve against). The code reward's payload is the
// reward platform's (formats.md: `verity ingest --format platform` reads the same shape).
import type { Case, Rollout } from "@/lib/verifier/schema.ts";
import { UNRESOLVED, resolvePointer } from "@/lib/verifier/pointers.ts";

export type RewardInput = { rollout: Rollout; caseDoc: Case | null };

export function replyOf(input: RewardInput): string {
  return input.rollout.trajectory.final_reply;
}

/**
 * The reference a comparison is made with: the ticket's reference_output, or the value a spec pointer resolves to
 * in the case's snapshot. `null` with a reason when there is none (the comparison's error, never a 0).
 */
export function referenceOf(
  input: RewardInput,
  pointer: string | undefined,
): { ok: true; value: string } | { ok: false; error: string } {
  if (!input.caseDoc) return { ok: false, error: "the rollout's case is not stored: no reference to compare with" };
  if (pointer) {
    const v = resolvePointer(pointer, input.caseDoc.env_snapshot);
    if (v === UNRESOLVED || v === null || v === undefined)
      return { ok: false, error: `${pointer} does not resolve in the case's snapshot` };
    return { ok: true, value: typeof v === "string" ? v : JSON.stringify(v) };
  }
  const ref = (input.caseDoc.ticket as Record<string, unknown>).reference_output;
  if (ref === undefined || ref === null) return { ok: false, error: "the case's ticket has no reference_output" };
  return { ok: true, value: typeof ref === "string" ? ref : JSON.stringify(ref) };
}

/** The reward platform's payload for `cal_reward(payload)`, as a JSON string. */
export function platformPayload(input: RewardInput): string {
  const ticket = (input.caseDoc?.ticket ?? {}) as Record<string, unknown>;
  const steps = input.rollout.trajectory.steps
    .filter((s) => s.type === "tool")
    .map((s) => ({
      type: "tool",
      name: s.name,
      input: JSON.stringify((s as { input?: unknown }).input ?? {}),
      output: (s as { output?: unknown }).output ?? null,
    }));
  return JSON.stringify({
    input: ticket.message ?? "",
    reference_output: ticket.reference_output ?? null,
    trajectory: { root: { output: input.rollout.trajectory.final_reply }, steps },
  });
}
