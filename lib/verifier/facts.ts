// Structured facts of one rollout, computed once and shared by every sub-score and guardrail: the tool steps with
// their registry kind, where each tool first succeeded, whether a hand-off happened, and the sandbox writes with
// their positions in the trajectory.
import type { RegistryKind } from "@/lib/verifier/codes.ts";
import type { ReadReq } from "@/lib/verifier/compile-case.ts";
import { sameValue } from "@/lib/verifier/equality.ts";
import type { Rollout } from "@/lib/verifier/schema.ts";

export type ToolStepFact = { index: number; name: string; args: unknown; ok: boolean; kind: RegistryKind | undefined };

export type WriteFact = {
  /** Index in sandbox.writes. */
  index: number;
  tool: string;
  args: Record<string, unknown>;
  /** Index into trajectory.steps the write is placed at (see positionOf); steps.length means "after the end". */
  position: number;
  at: string | undefined;
};

export type Facts = {
  stepCount: number;
  toolSteps: ToolStepFact[];
  handoff: boolean;
  writes: WriteFact[];
  /** sandbox.tables (approval_bypass reads `approvals`). */
  tables: Record<string, Record<string, unknown>[]>;
};

// Built for every rollout, so it avoids per-rollout Maps: a registry has a dozen tools and a trajectory a few
// dozen steps, where a linear scan is cheaper than building and collecting a hash table.
export function collectFacts(rollout: Rollout): Facts {
  const registry = rollout.tool_registry;
  const steps = rollout.trajectory.steps;
  const toolSteps: ToolStepFact[] = [];
  let handoff = false;
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i];
    if (s.type !== "tool") continue;
    const ok = s.status === "success";
    let kind: RegistryKind | undefined;
    for (let j = 0; j < registry.length; j++) {
      if (registry[j].name === s.name) {
        kind = registry[j].kind;
        break;
      }
    }
    toolSteps.push({ index: i, name: s.name, args: s.input, ok, kind });
    if (ok && kind === "handoff") handoff = true;
  }

  const sandboxWrites = rollout.sandbox.writes;
  const writes: WriteFact[] = new Array(sandboxWrites.length);
  for (let index = 0; index < sandboxWrites.length; index++) {
    const w = sandboxWrites[index];
    const args = w.args ?? {};
    writes[index] = {
      index,
      tool: w.tool,
      args,
      position: positionOf(w.step, w.tool, args, toolSteps, steps.length),
      at: w.at,
    };
  }
  return { stepCount: steps.length, toolSteps, handoff, writes, tables: rollout.sandbox.tables ?? {} };
}

/**
 * Position of a sandbox write: its `step` when given; otherwise the first successful tool step with the same tool
 * and equal args (eq both ways); otherwise after the last step.
 */
function positionOf(
  step: number | undefined,
  tool: string,
  args: Record<string, unknown>,
  toolSteps: ToolStepFact[],
  stepCount: number,
): number {
  if (step !== undefined) return step;
  for (const t of toolSteps) if (t.ok && t.name === tool && sameValue(t.args, args)) return t.index;
  return stepCount;
}

/** Index of the first successful step satisfying the requirement, or undefined. */
export function firstSatisfied(req: ReadReq, facts: Facts): number | undefined {
  const names = req.names;
  for (const t of facts.toolSteps) {
    if (!t.ok) continue;
    for (let j = 0; j < names.length; j++) if (names[j] === t.name) return t.index;
  }
  return undefined;
}

/** Satisfied strictly before `position` (Infinity: anywhere in the trajectory). */
export function satisfiedBefore(req: ReadReq, facts: Facts, position: number): boolean {
  const i = firstSatisfied(req, facts);
  return i !== undefined && i < position;
}

/** A compact reference to a sandbox write for guardrail evidence. */
export function writeRef(w: WriteFact): {
  index: number;
  tool: string;
  args: Record<string, unknown>;
  position: number;
} {
  return { index: w.index, tool: w.tool, args: w.args, position: w.position };
}
