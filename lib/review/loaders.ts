// Page data of the annotation page. BLIND BY CONSTRUCTION: loadAnnotation selects rollout and case fields only —
// never the ledger row, never rollout.claims (a bundle's claims are what the ledger scored), never the item's
// stratum or inclusion probability (both derive from the ledger's deciding guardrail). Whatever this returns may
// reach the annotator's browser before they submit; keep it that way.
import { renewLease } from "@/lib/review/leases.ts";
import { db, type Db } from "@/lib/db/client.ts";
import type { ClaimSlots } from "@/lib/review/claim-answers.ts";
import type { ScoringConfig } from "@/lib/review/human-reward.ts";
import {
  caseViewSelect,
  registryToolsOf,
  rolloutViewSelect,
  toRolloutView,
  type RegistryTool,
  type RolloutView,
} from "@/lib/review/rollout-view.ts";
import { parseDraft, type DraftBody } from "@/lib/review/schema.ts";
import { DEFAULT_CONFIG, parseVerifierConfig } from "@/lib/verifier/config.ts";
import { isPointer, resolvePointer, UNRESOLVED } from "@/lib/verifier/pointers.ts";

type Spec = { must_mention?: { key: string; value?: unknown }[]; forbidden?: string[] };

export type MentionOption = { key: string; expected: unknown; hasExpected: boolean };

export type AnnotationView = RolloutView & {
  itemId: string;
  batchId: number;
  batchName: string;
  leaseExpiresAt: string;
  writeTools: string[];
  mentions: MentionOption[];
  forbidden: string[];
  config: ScoringConfig;
  draft: DraftBody;
  secondsSpent: number;
};

export type AnnotationPage =
  | { state: "annotate"; view: AnnotationView }
  | { state: "reviewed" }
  | { state: "not_leased" }
  | { state: "done" }
  | { state: "not_found" }
  /** A pair of a pairwise batch: annotated on /pairwise. */
  | { state: "pairwise" };

/** The claim slots of an item's form: its rollout's write tools, its case's must-mention keys and forbidden codes. */
function claimSlotsOf(tools: readonly RegistryTool[], spec: Spec): ClaimSlots {
  return {
    writeTools: tools.filter((t) => t.kind === "write").map((t) => t.name),
    mentionKeys: (spec.must_mention ?? []).map((m) => m.key),
    forbidden: spec.forbidden ?? [],
  };
}

/** The claim slots an item's form asks about, read as loadAnnotation reads them; null for an unknown item. */
export async function loadClaimSlots(itemId: bigint, client: Db = db()): Promise<ClaimSlots | null> {
  const item = await client.auditItem.findUnique({
    where: { id: itemId },
    select: { ticketId: true, rollout: { select: rolloutViewSelect } },
  });
  if (!item) return null;
  const caseDoc = await client.case.findUnique({ where: { ticketId: item.ticketId }, select: { verifierSpec: true } });
  return claimSlotsOf(registryToolsOf(item.rollout), (caseDoc?.verifierSpec ?? {}) as Spec);
}

/** The scoring part of a batch's verifier config (the stored one, else the default of verifier.md). */
export function scoringConfigOf(body: unknown | null): ScoringConfig {
  const parsed = body ? parseVerifierConfig(body) : null;
  const c = parsed?.ok ? parsed.config : DEFAULT_CONFIG;
  return { weights: { ...c.weights }, guardrails: structuredClone(c.guardrails) };
}

/**
 * What the annotator needs to score one item blind, after (re-)taking its lease. The state tells the page what to
 * show instead when the user already reviewed it (the reveal), it is not leased to them (released, expired and taken by someone else), or it is complete.
 */
export async function loadAnnotation(
  itemId: bigint,
  userId: number,
  now = new Date(),
  client: Db = db(),
): Promise<AnnotationPage> {
  const item = await client.auditItem.findUnique({
    where: { id: itemId },
    select: {
      id: true,
      status: true,
      trajectoryId: true,
      ticketId: true,
      trajectoryBId: true,
      batch: { select: { id: true, name: true, config: { select: { body: true } } } },
      rollout: { select: rolloutViewSelect },
      reviews: { where: { reviewerId: userId }, select: { id: true }, take: 1 },
      drafts: { where: { userId }, select: { body: true, secondsSpent: true } },
    },
  });
  if (!item) return { state: "not_found" };
  if (item.trajectoryBId !== null) return { state: "pairwise" };
  if (item.reviews.length > 0) return { state: "reviewed" };
  if (item.status === "done") return { state: "done" };
  const expires = await renewLease(itemId, userId, now, client);
  if (!expires) return { state: "not_leased" };

  const caseDoc = await client.case.findUnique({ where: { ticketId: item.ticketId }, select: caseViewSelect });
  const spec = (caseDoc?.verifierSpec ?? {}) as Spec;
  const slots = claimSlotsOf(registryToolsOf(item.rollout), spec);
  const snapshot = caseDoc?.envSnapshot ?? {};
  const draft = item.drafts[0];
  return {
    state: "annotate",
    view: {
      ...toRolloutView(item.rollout, caseDoc),
      itemId: item.id.toString(),
      batchId: item.batch.id,
      batchName: item.batch.name,
      leaseExpiresAt: expires.toISOString(),
      writeTools: [...slots.writeTools],
      mentions: (spec.must_mention ?? []).map((m) => {
        const hasExpected = m.value !== undefined;
        const v = hasExpected && isPointer(m.value) ? resolvePointer(m.value, snapshot) : m.value;
        return { key: m.key, hasExpected, expected: v === UNRESOLVED ? null : (v ?? null) };
      }),
      forbidden: [...slots.forbidden],
      config: scoringConfigOf(item.batch.config?.body ?? null),
      draft: draft ? parseDraft(draft.body) : parseDraft(null),
      secondsSpent: draft?.secondsSpent ?? 0,
    },
  };
}
