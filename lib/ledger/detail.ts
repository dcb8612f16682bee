import { readDb } from "@/lib/db/read-client.ts";
import { codesOfMask } from "@/lib/verifier/guardrail-mask.ts";
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

/** Whether loadTrajectoryDetail has something to show: a stored trajectory with a current ledger entry (its 404). */
export async function trajectoryShown(trajectoryId: string): Promise<boolean> {
  const t = await readDb().trajectory.findUnique({ where: { trajectoryId }, select: { runId: true } });
  if (!t) return false;
  const current = await readDb().ledgerEntry.findFirst({
    where: { runId: t.runId, trajectoryId, isCurrent: true },
    select: { id: true },
  });
  return current !== null;
}

/**
 * Everything the rollout detail page shows: the current entry, its rollout and case, weights and history. Three
 * round trips deep: the trajectory's run (one key lookup, so every read after it touches that run's partitions
 * only); then the trajectory's ledger entries (its history, the current one among them, through the partition's
 * trajectory index) beside its rollout (by the run's trajectory key); then the case, the tool registry and a stored
 * config's weights together. Read entry → rollout → registry → case one after another, it was five deep.
 */
export async function loadTrajectoryDetail(trajectoryId: string) {
  const run = await readDb().trajectory.findUnique({ where: { trajectoryId }, select: { runId: true } });
  if (!run) return null;
  const runId = run.runId;
  const [entries, stored] = await Promise.all([
    readDb().ledgerEntry.findMany({ where: { runId, trajectoryId }, orderBy: { id: "asc" } }),
    readDb().rollout.findUnique({ where: { runId_trajectoryId: { runId, trajectoryId } } }),
  ]);
  const current = entries.find((e) => e.isCurrent);
  if (!current) return null;
  // The entry's own rollout: an entry written before its rollout arrived keeps rollout_id null, and shows none.
  const rollout = stored && stored.id === current.rolloutId ? stored : null;
  const [caseDoc, registry, weights] = await Promise.all([
    readDb().case.findUnique({ where: { ticketId: current.ticketId } }),
    rollout ? readDb().toolRegistry.findUnique({ where: { id: rollout.registryId } }) : null,
    weightsFor(current.configHash),
  ]);
  const entry = { ...current, rollout: rollout && registry ? { ...rollout, registry } : null };
  return {
    entry,
    caseDoc,
    weights,
    history: entries.map((h) => ({
      id: h.id,
      createdAt: h.createdAt,
      status: h.status,
      reward: h.reward,
      configHash: h.configHash,
      verifierVersion: h.verifierVersion,
      claimsSource: h.claimsSource,
      isCurrent: h.isCurrent,
      decidingGuardrail: h.decidingGuardrail,
      guardrailMask: h.guardrailMask,
      outcome: h.outcome,
      policy: h.policy,
      evidence: h.evidence,
      efficiency: h.efficiency,
      communication: h.communication,
      guardrails: codesOfMask(h.guardrailMask),
    })),
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
