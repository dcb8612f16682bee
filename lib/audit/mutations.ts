// Creating a shadow-audit batch: draw the sample, store the batch with its manifest and its items, and log it —
// one transaction, so a batch never exists half-filled.
import { randomBytes } from "node:crypto";
import { DEFAULT_DELTA, DEFAULT_NEAR_TIE_RATE } from "@/lib/audit/pair-sampler.ts";
import { previewBatch, type BatchPreview } from "@/lib/audit/data.ts";
import { browseQuery } from "@/lib/ledger/browse-schema.ts";
import type { BatchParams, ResolvedBatchParams } from "@/lib/audit/schema.ts";
import { appendActivityLog, type ActivityActor } from "@/lib/auth/activity-log.ts";
import { db } from "@/lib/db/client.ts";
import type { Prisma, PrismaClient } from "@/lib/generated/prisma/client.ts";
import type { Result } from "@/lib/result.ts";

/** Sampler version written on the manifest: a change of the draw is a new version, never a silent change. */
export const SAMPLER_VERSION = "1";

/** A fresh salt when none is given: 64 random bits, hex. Stored on the batch, so the draw stays reproducible. */
export function newSalt(): string {
  return randomBytes(8).toString("hex");
}

export function resolveParams(p: BatchParams): ResolvedBatchParams {
  return { ...p, salt: p.salt ?? newSalt() };
}

/** What the batch stores as its manifest: everything needed to redraw and check the sample. */
export function buildManifest(
  p: ResolvedBatchParams,
  preview: BatchPreview,
  configHash: string | null,
): Prisma.InputJsonObject {
  const { sample } = preview;
  return {
    sampler_version: SAMPLER_VERSION,
    params: {
      run_id: p.runId,
      step_from: p.stepFrom,
      step_to: p.stepTo,
      rate: p.rate,
      salt: p.salt,
      pick: p.pick,
      min_per_stratum: p.minPerStratum ?? null,
      overlap_rate: p.overlapRate,
      tolerance: p.tolerance,
      // the browser's filters whose matches the population was narrowed to ("Audit these"), as its address's query
      ...(p.filter ? { filter: browseQuery(p.filter) } : {}),
    },
    config_hash: configHash,
    population: preview.population,
    expected: sample.expected,
    strata: sample.strata.map((s) => ({
      stratum: s.stratum,
      tickets: s.tickets,
      rollouts: s.rollouts,
      base_tickets: s.baseTickets,
      sampled_tickets: s.sampledTickets,
      items: s.items,
      topped_up: s.toppedUp,
      ticket_inclusion_prob: s.ticketInclusionProb,
    })),
    items: sample.items.length,
    overlap_items: sample.overlapItems,
    items_hash: sample.itemsHash,
  };
}

/** The verifier config the batch's human rewards use: the default one stored in the database, if any. */
export async function defaultConfig(client: PrismaClient): Promise<{ id: number; hash: string } | null> {
  return client.verifierConfig.findFirst({
    where: { isDefault: true },
    select: { id: true, hash: true },
    orderBy: { id: "desc" },
  });
}

function defaultName(p: ResolvedBatchParams): string {
  const matching = p.filter?.q ? ` matching ${JSON.stringify(p.filter.q).slice(0, 60)}` : p.filter ? " (filtered)" : "";
  return `${p.runId} steps ${p.stepFrom}–${p.stepTo}${p.kind === "pairwise" ? " (pairwise)" : ""}${matching}`;
}

/**
 * Stores a batch with its items and logs it, in one transaction. The items' batchId is filled in here.
 */
export async function storeBatch(
  client: PrismaClient,
  params: ResolvedBatchParams,
  stored: { configId: number | null; manifest: Prisma.InputJsonObject; itemsHash: string },
  items: Prisma.AuditItemCreateManyInput[],
  actor: ActivityActor,
): Promise<number> {
  const createdById = "userId" in actor ? actor.userId : null;
  const pairwise = params.kind === "pairwise";
  return client.$transaction(
    async (tx) => {
      const batch = await tx.auditBatch.create({
        data: {
          name: params.name ?? defaultName(params),
          runId: params.runId,
          stepFrom: params.stepFrom,
          stepTo: params.stepTo,
          rate: params.rate,
          salt: params.salt,
          pick: pairwise ? "pair" : params.pick,
          minPerStratum: params.minPerStratum ?? null,
          overlapRate: params.overlapRate,
          tolerance: params.tolerance,
          kind: pairwise ? "pairwise" : "tickets",
          delta: pairwise ? (params.delta ?? DEFAULT_DELTA) : null,
          nearTieRate: pairwise ? (params.nearTieRate ?? DEFAULT_NEAR_TIE_RATE) : null,
          configId: stored.configId,
          manifest: stored.manifest,
          createdById,
        },
        select: { id: true },
      });
      await tx.auditItem.createMany({ data: items.map((i) => ({ ...i, batchId: batch.id })) });
      await appendActivityLog(
        {
          actor,
          action: "audit.batch_create",
          target: { type: "audit_batch", id: batch.id },
          details: {
            run_id: params.runId,
            ...(pairwise
              ? {
                  kind: "pairwise",
                  delta: params.delta ?? DEFAULT_DELTA,
                  near_tie_rate: params.nearTieRate ?? DEFAULT_NEAR_TIE_RATE,
                }
              : {}),
            step_from: params.stepFrom,
            step_to: params.stepTo,
            ...(params.filter ? { filter: browseQuery(params.filter) } : {}),
            rate: params.rate,
            salt: params.salt,
            pick: pairwise ? "pair" : params.pick,
            items: items.length,
            items_hash: stored.itemsHash,
          },
        },
        tx,
      );
      return batch.id;
    },
    { timeout: 120_000 },
  );
}

type Refusal = { ok: false; error: string; field?: string };

/** The refusal of a batch whose run does not exist; null when it does. */
export async function refuseMissingRun(params: ResolvedBatchParams, client: PrismaClient): Promise<Refusal | null> {
  const run = await client.run.findUnique({ where: { id: params.runId }, select: { id: true } });
  return run ? null : { ok: false, field: "runId", error: `No run ${params.runId}.` };
}

/**
 * The refusal of an empty draw: the window holds no scored rollouts, or nothing of what the draw needs (`lacking`,
 * named in the window's terms), or the rate is too low to draw anything.
 */
export function emptyDraw(params: ResolvedBatchParams, why: "no rollouts" | "rate" | { lacking: string }): Refusal {
  const window = `in steps ${params.stepFrom}–${params.stepTo}`;
  if (why === "rate")
    return {
      ok: false,
      field: "rate",
      error: "The sample is empty at this rate: raise the rate or set a minimum per stratum.",
    };
  const lacking = why === "no rollouts" ? "scored rollouts" : why.lacking;
  return { ok: false, field: "stepTo", error: `Run ${params.runId} has no ${lacking} ${window}.` };
}

/**
 * Stores a draw as a batch of `params.runId` under the default verifier config (storeBatch), its manifest built with
 * that config's hash.
 */
export async function storeDraw(
  client: PrismaClient,
  params: ResolvedBatchParams,
  draw: {
    itemsHash: string;
    manifest: (configHash: string | null) => Prisma.InputJsonObject;
    items: Omit<Prisma.AuditItemCreateManyInput, "batchId" | "runId">[];
  },
  actor: ActivityActor,
): Promise<{ batchId: number; manifest: Prisma.InputJsonObject }> {
  const config = await defaultConfig(client);
  const manifest = draw.manifest(config?.hash ?? null);
  const items = draw.items.map((i) => ({ ...i, batchId: 0, runId: params.runId }));
  const stored = { configId: config?.id ?? null, manifest, itemsHash: draw.itemsHash };
  return { batchId: await storeBatch(client, params, stored, items, actor), manifest };
}

/** A stored batch (its id, how many items and overlap items, its manifest and the preview it was drawn from), or why not. */
export type CreatedBatch<Preview> = Result<{
  batchId: number;
  items: number;
  overlapItems: number;
  manifest: Prisma.InputJsonObject;
  preview: Preview;
}>;

/**
 * Draws the sample and stores the batch with its items (in hash order, so the queue hands them out in a random but
 * reproducible order). Refuses an empty sample: a batch with nothing to review is a mistake in the window or rate.
 */
export async function createBatch(
  params: ResolvedBatchParams,
  actor: ActivityActor,
  client: PrismaClient = db(),
): Promise<CreatedBatch<BatchPreview>> {
  const missing = await refuseMissingRun(params, client);
  if (missing) return missing;
  const preview = await previewBatch(params, client);
  if (preview.sample.items.length === 0)
    return emptyDraw(params, preview.population.rollouts === 0 ? "no rollouts" : "rate");
  const { batchId, manifest } = await storeDraw(
    client,
    params,
    {
      itemsHash: preview.sample.itemsHash,
      manifest: (configHash) => buildManifest(params, preview, configHash),
      items: preview.sample.items.map((i) => ({
        rolloutId: i.row.rolloutId,
        ledgerId: i.row.ledgerId,
        trajectoryId: i.row.trajectoryId,
        ticketId: i.row.ticketId,
        stratum: i.stratum,
        inclusionProb: i.inclusionProb,
        reviewsNeeded: i.reviewsNeeded,
      })),
    },
    actor,
  );
  return {
    ok: true,
    batchId,
    items: preview.sample.items.length,
    overlapItems: preview.sample.overlapItems,
    manifest,
    preview,
  };
}
