// Creating a pairwise batch: draw the pairs, store the batch with its manifest and one item per pair (rollout A as
// the item's rollout, rollout B beside it, the side B is shown on), and log it — one transaction (storeBatch).
import { type CreatedBatch, emptyDraw, refuseMissingRun, SAMPLER_VERSION, storeDraw } from "@/lib/audit/mutations.ts";
import { previewPairBatch, type PairBatchPreview } from "@/lib/audit/pair-data.ts";
import { DEFAULT_DELTA, DEFAULT_NEAR_TIE_RATE } from "@/lib/audit/pair-sampler.ts";
import type { ResolvedBatchParams } from "@/lib/audit/schema.ts";
import type { ActivityActor } from "@/lib/auth/activity-log.ts";
import { db } from "@/lib/db/client.ts";
import type { Prisma, PrismaClient } from "@/lib/generated/prisma/client.ts";

/** Pairwise sampler version on the manifest, apart from the ticket sampler's. */
export const PAIR_SAMPLER_VERSION = "pairwise-1";

/** Everything needed to redraw and check the pairs. */
export function buildPairManifest(
  p: ResolvedBatchParams,
  preview: PairBatchPreview,
  configHash: string | null,
): Prisma.InputJsonObject {
  const { sample } = preview;
  return {
    sampler_version: PAIR_SAMPLER_VERSION,
    ticket_sampler_version: SAMPLER_VERSION,
    kind: "pairwise",
    params: {
      run_id: p.runId,
      step_from: p.stepFrom,
      step_to: p.stepTo,
      rate: p.rate,
      salt: p.salt,
      delta: p.delta ?? DEFAULT_DELTA,
      near_tie_rate: p.nearTieRate ?? DEFAULT_NEAR_TIE_RATE,
      min_per_stratum: p.minPerStratum ?? null,
      overlap_rate: p.overlapRate,
    },
    config_hash: configHash,
    population: preview.population,
    expected: sample.expected,
    strata: sample.strata.map((s) => ({
      stratum: s.stratum,
      groups: s.tickets,
      rollouts: s.rollouts,
      base_groups: s.baseTickets,
      sampled_groups: s.sampledTickets,
      topped_up: s.toppedUp,
      group_inclusion_prob: s.ticketInclusionProb,
    })),
    items: sample.pairs.length,
    near_ties: sample.nearTies,
    overlap_items: sample.overlapItems,
    items_hash: sample.itemsHash,
  };
}

/** Draws the pairs and stores the batch. Refuses an empty sample, naming why it is empty. */
export async function createPairBatch(
  params: ResolvedBatchParams,
  actor: ActivityActor,
  client: PrismaClient = db(),
): Promise<CreatedBatch<PairBatchPreview>> {
  const missing = await refuseMissingRun(params, client);
  if (missing) return missing;
  const preview = await previewPairBatch(params, client);
  const { population: pop, sample } = preview;
  if (sample.pairs.length === 0)
    return emptyDraw(
      params,
      pop.rollouts === 0
        ? "no rollouts"
        : pop.groups === 0
          ? { lacking: "GRPO group with two scored rollouts" }
          : "rate",
    );
  const { batchId, manifest } = await storeDraw(
    client,
    params,
    {
      itemsHash: sample.itemsHash,
      manifest: (configHash) => buildPairManifest(params, preview, configHash),
      items: sample.pairs.map((x) => ({
        rolloutId: x.a.rolloutId,
        ledgerId: x.a.ledgerId,
        trajectoryId: x.a.trajectoryId,
        ticketId: x.a.ticketId,
        rolloutBId: x.b.rolloutId,
        ledgerBId: x.b.ledgerId,
        trajectoryBId: x.b.trajectoryId,
        bOnLeft: x.bOnLeft,
        stratum: x.stratum,
        inclusionProb: x.inclusionProb,
        reviewsNeeded: x.reviewsNeeded,
      })),
    },
    actor,
  );
  return { ok: true, batchId, items: sample.pairs.length, overlapItems: sample.overlapItems, manifest, preview };
}
