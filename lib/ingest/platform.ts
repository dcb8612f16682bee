// Import of the reward-platform payload (formats.md §4): one payload line becomes a rollout with the same steps,
// an external score record with the payload's reward, and — when Verity does not know the ticket yet — a minimal
// case holding the ticket (message = `input`, `reference_output` kept on the ticket). Pure.
import { z } from "zod";
import { defaultGroupId, sha256 } from "@/lib/ledger/store/rows.ts";
import { MAX_ID_LENGTH } from "@/lib/verifier/limits.ts";
import { idSchema as id, zodIssues, type Issue } from "@/lib/verifier/schema.ts";

export type PlatformDefaults = { run?: string; step?: number };

export const platformPayloadSchema = z.strictObject({
  input: z.string().optional(),
  reference_output: z.unknown().optional(),
  trajectory: z.looseObject({
    root: z.looseObject({ output: z.string({ error: "expected the final reply text" }) }),
    steps: z.array(z.unknown()).default([]),
  }),
  reward: z.unknown(),
  // Identity, as extra fields (else from --run/--step, or derived).
  trajectory_id: id.optional(),
  run_id: id.optional(),
  step: z.number().int().nonnegative().optional(),
  ticket_id: id.optional(),
  group_id: id.optional(),
  sample_index: z.number().int().nonnegative().optional(),
  category: id.optional(),
});

/** A mapped payload: the wire objects it stands for, validated later by the same schemas as any other line. */
export type PlatformMapped = {
  /** Created only when the ticket has no case yet (`ifAbsent`); never conflicts with a real case. */
  case: Record<string, unknown>;
  rollout: Record<string, unknown>;
  score: Record<string, unknown>;
};

/**
 * Turns one line of a foreign format (a decoded JSON value) into the wire objects it stands for — a rollout, its
 * external score record and the minimal case stored when its ticket has none — which are then validated like any
 * other line. `locate` says where an error in one of them lies in the line as the user wrote it. Called in line
 * order, so a mapper may number lines (sample indices) as it goes.
 */
export type LineMapper = {
  map(value: unknown, line: number): { ok: true; mapped: PlatformMapped } | { ok: false; issue: Issue };
  locate(part: "case" | "rollout" | "score", issue: Issue): Issue;
};

/** Where a rollout or score path points in the payload, for error messages that name the user's own field. */
export function payloadPath(path: string): string {
  if (path === "trajectory.final_reply") return "trajectory.root.output";
  return path;
}

export function mapPlatformPayload(
  value: unknown,
  line: number,
  defaults: PlatformDefaults,
): { ok: true; mapped: PlatformMapped } | { ok: false; issue: Issue } {
  const parsed = platformPayloadSchema.safeParse(value);
  if (!parsed.success) return { ok: false, issue: zodIssues(parsed.error)[0] };
  const p = parsed.data;
  const runId = p.run_id ?? defaults.run;
  if (!runId) return { ok: false, issue: { path: "run_id", message: "no run: give run_id in the payload or --run" } };
  const step = p.step ?? defaults.step;
  if (step === undefined)
    return { ok: false, issue: { path: "step", message: "no step: give step in the payload or --step" } };
  const message = p.input ?? "";
  // Rollouts of the same prompt share a ticket (and so a GRPO group); the id is derived from the prompt text.
  const ticketId = p.ticket_id ?? `P-${sha256(message).slice(0, 12)}`;
  const trajectoryId = p.trajectory_id ?? `${runId}/s${step}/l${line}`;
  const groupId = p.group_id ?? defaultGroupId(runId, step, ticketId);
  // A derived id is checked here, where the message can say what it was derived from.
  for (const [field, value, from] of [
    ["trajectory_id", trajectoryId, "RUN/sSTEP/lLINE"],
    ["group_id", groupId, "RUN/sSTEP/TICKET"],
  ] as const) {
    if (value.length > MAX_ID_LENGTH)
      return {
        ok: false,
        issue: {
          path: field,
          message: `not given, and the one derived from the run, step and ticket (${from}) would have ${value.length} characters (at most ${MAX_ID_LENGTH}): give ${field} in the payload`,
        },
      };
  }

  const toolNames = new Set<string>();
  for (const s of p.trajectory.steps) {
    const st = s as { type?: unknown; name?: unknown };
    if (st && st.type === "tool" && typeof st.name === "string" && st.name) toolNames.add(st.name);
  }
  const ticket: Record<string, unknown> = { id: ticketId, category: p.category ?? "imported", message };
  if (p.reference_output !== undefined) ticket.reference_output = p.reference_output;

  const identity = { trajectory_id: trajectoryId, run_id: runId, step, ticket_id: ticketId, group_id: groupId };
  return {
    ok: true,
    mapped: {
      case: { kind: "case", ticket, env_snapshot: {}, verifier_spec: {} },
      rollout: {
        kind: "rollout",
        ...identity,
        ...(p.sample_index !== undefined ? { sample_index: p.sample_index } : {}),
        trajectory: { steps: p.trajectory.steps, final_reply: p.trajectory.root.output },
        sandbox: { writes: [], tables: {} },
        // The platform has no registry: every tool it called is listed with kind "other" (so no write and no
        // hand-off is inferred from a name).
        tool_registry: [...toolNames].sort().map((name) => ({ name, kind: "other" })),
        claims: null,
      },
      score: { kind: "score", source: "external", ...identity, reward: p.reward },
    },
  };
}

/** The reward-platform payload as a line mapper: an error in the minimal case is one about `input`. */
export function platformMapper(defaults: PlatformDefaults): LineMapper {
  return {
    map: (value, line) => mapPlatformPayload(value, line, defaults),
    locate: (part, issue) => ({ path: part === "case" ? "input" : payloadPath(issue.path), message: issue.message }),
  };
}
