// Try it: one version (stored, or a draft from the editor) on one rollout, storing nothing: each component's value,
// and for a judge the exact prompt and the raw answer, for code its stdout and stderr (in each component's detail).
import type pg from "pg";
import type { RewardOutcome } from "@/lib/rewards/evaluate.ts";
import { loadRolloutByTrajectory } from "@/lib/rewards/rollouts.ts";
import { openVersion, type RuntimeOptions } from "@/lib/rewards/runtime.ts";
import type { VersionDocument } from "@/lib/rewards/schema.ts";

export type TryResult =
  | {
      ok: true;
      outcome: RewardOutcome;
      rollout: { trajectoryId: string; runId: string; step: number; ticketId: string };
    }
  | { ok: false; error: string };

export async function tryVersion(
  pool: pg.Pool,
  doc: VersionDocument,
  trajectoryId: string,
  opts: RuntimeOptions = {},
): Promise<TryResult> {
  const r = await loadRolloutByTrajectory(pool, trajectoryId);
  if (!r) return { ok: false, error: `there is no rollout ${JSON.stringify(trajectoryId)}` };
  const open = await openVersion(pool, doc, { codeWorkers: 1, ...opts });
  try {
    const outcome = await open.compiled.evaluate(r.input);
    return {
      ok: true,
      outcome,
      rollout: { trajectoryId: r.trajectoryId, runId: r.runId, step: r.step, ticketId: r.ticketId },
    };
  } finally {
    await open.close();
  }
}
