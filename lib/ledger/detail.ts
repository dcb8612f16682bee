import { readDb } from "@/lib/db/read-client.ts";
import { codesOfMask } from "@/lib/ingest/rows.ts";
import { DEFAULT_CONFIG, configHash, parseVerifierConfig } from "@/lib/verifier/config.ts";
import type { Dimension } from "@/lib/verifier/codes.ts";

const DEFAULT_HASH = configHash(DEFAULT_CONFIG);

/** The weights a ledger entry was computed with: its config by hash, else the default config (flagged). */
async function weightsFor(hash: string | null): Promise<{ weights: Record<Dimension, number>; known: boolean }> {
  if (!hash || hash === DEFAULT_HASH) return { weights: DEFAULT_CONFIG.weights, known: hash === DEFAULT_HASH };
  const stored = await readDb().verifierConfig.findUnique({ where: { hash }, select: { body: true } });
  const parsed = stored ? parseVerifierConfig(stored.body) : null;
  return parsed?.ok
    ? { weights: parsed.config.weights, known: true }
    : { weights: DEFAULT_CONFIG.weights, known: false };
}

/** Everything the rollout detail page shows: the current entry, its rollout and case, weights and history. */
export async function loadTrajectoryDetail(trajectoryId: string) {
  // The trajectory's run first (one key lookup), so the reads below touch that run's partitions only.
  const run = await readDb().trajectory.findUnique({ where: { trajectoryId }, select: { runId: true } });
  if (!run) return null;
  const runId = run.runId;
  const entry = await readDb().ledgerEntry.findFirst({
    where: { runId, trajectoryId, isCurrent: true },
    include: { rollout: { include: { registry: true } } },
  });
  if (!entry) return null;
  const [caseDoc, history, weights] = await Promise.all([
    readDb().case.findUnique({ where: { ticketId: entry.ticketId } }),
    readDb().ledgerEntry.findMany({
      where: { runId, trajectoryId },
      orderBy: { id: "asc" },
      select: {
        id: true,
        createdAt: true,
        status: true,
        reward: true,
        configHash: true,
        verifierVersion: true,
        claimsSource: true,
        isCurrent: true,
        decidingGuardrail: true,
        guardrailMask: true,
        outcome: true,
        policy: true,
        evidence: true,
        efficiency: true,
        communication: true,
      },
    }),
    weightsFor(entry.configHash),
  ]);
  return {
    entry,
    caseDoc,
    weights,
    history: history.map((h) => ({ ...h, guardrails: codesOfMask(h.guardrailMask) })),
  };
}

export type TrajectoryDetail = NonNullable<Awaited<ReturnType<typeof loadTrajectoryDetail>>>;

/** Where a GRPO group is: its run (group ids are the trainer's, unique only inside a run) and, when known, its step. */
export type GroupAddress = { runId: string; groupId: string; step?: number };

/**
 * The K rollouts of a GRPO group (current entries), in sample order. Read from the run's own partition; with the step,
 * through the partition's (step, id) index instead of a scan of the run.
 */
export async function loadGroup({ runId, groupId, step }: GroupAddress) {
  return readDb().ledgerEntry.findMany({
    where: { runId, groupId, isCurrent: true, ...(step === undefined ? {} : { step }) },
    orderBy: [{ rollout: { sampleIndex: "asc" } }, { id: "asc" }],
    include: { rollout: { select: { sampleIndex: true, finalReply: true, toolSteps: true } } },
  });
}
