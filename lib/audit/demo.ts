// Demo shadow audit for a fresh console: one batch on the demo run, reviewed by the two demo annotators (a few
// overlap items by both), about 12% of reviews outside the tolerance — most of them on one guardrail, so the
// agreement page has a story to tell — and a couple of lead verdicts. Deterministic: every choice is a hash draw.
import { uniformHash } from "@/lib/audit/hash.ts";
import { createBatch } from "@/lib/audit/mutations.ts";
import { createClient } from "@/lib/db/client.ts";
import type { Prisma, PrismaClient } from "@/lib/generated/prisma/client.ts";
import { codesOfMask } from "@/lib/ingest/rows.ts";
import { compareWithLedger } from "@/lib/review/compare.ts";
import { humanReward, type HumanSubscores } from "@/lib/review/human-reward.ts";
import { scoringConfigOf } from "@/lib/review/loaders.ts";
import { DIMENSIONS, type GuardrailCode } from "@/lib/verifier/codes.ts";
import type { Claims } from "@/lib/verifier/schema.ts";

const SALT = "demo-audit";
const TARGET_AGREEMENT = 0.88;
/** Share of the worse guardrail's reviews that disagree, against ~5% elsewhere. */
const WORSE_SHARE = 0.45;
const DEMO_EMAILS = { a1: "annotator@verity.local", a2: "annotator2@verity.local", lead: "lead@verity.local" };

type Item = {
  id: bigint;
  reviewsNeeded: number;
  trajectoryId: string;
  ledger: { reward: number | null; guardrailMask: number; decidingGuardrail: string | null; claims: unknown } & Record<(typeof DIMENSIONS)[number], number | null>;
};
type Slot = { item: Item; reviewer: { id: number; email: string }; second: boolean; h: number };
type Made = { subscores: HumanSubscores; guardrails: string[]; reward: number; note: string };

const onGrid = (x: number) => Math.round(x * 4) / 4;

/** A review that agrees: the ledger's sub-scores as an annotator would pick them (quarter steps), same guardrails. */
function agreeing(item: Item, config: ReturnType<typeof scoringConfigOf>, tol: number): Made {
  const exact = Object.fromEntries(DIMENSIONS.map((d) => [d, item.ledger[d] ?? 1])) as HumanSubscores;
  const grid = Object.fromEntries(DIMENSIONS.map((d) => [d, onGrid(exact[d])])) as HumanSubscores;
  const guardrails = codesOfMask(item.ledger.guardrailMask);
  const g = humanReward(grid, guardrails, config);
  const subscores = Math.abs(g.reward - (item.ledger.reward ?? 0)) <= tol ? grid : exact;
  return { subscores, guardrails, reward: humanReward(subscores, guardrails, config).reward, note: "" };
}

/** A review that disagrees by more than the tolerance, or null when none of the tried stories does. */
function disagreeing(item: Item, worse: string | null, config: ReturnType<typeof scoringConfigOf>, tol: number): Made | null {
  const base = agreeing(item, config, tol);
  const ledgerReward = item.ledger.reward ?? 0;
  const tries: Made[] = [];
  if (worse && item.ledger.decidingGuardrail === worse) {
    // The annotator reads the evidence differently: no guardrail, evidence full marks.
    const subscores = { ...base.subscores, evidence: 1 };
    const guardrails = base.guardrails.filter((g) => g !== worse);
    tries.push({ subscores, guardrails, reward: humanReward(subscores, guardrails, config).reward, note: `Not convinced ${worse} applies here: the reads that matter come before the write.` });
  }
  const flipped = { ...base.subscores, outcome: base.subscores.outcome >= 0.5 ? 0 : 1 };
  tries.push({ subscores: flipped, guardrails: base.guardrails, reward: humanReward(flipped, base.guardrails, config).reward, note: "The outcome reads differently from the reply and the sandbox." });
  tries.push({ subscores: flipped, guardrails: [], reward: humanReward(flipped, [], config).reward, note: "Scored the outcome the other way; no guardrail seen." });
  return tries.find((t) => Math.abs(t.reward - ledgerReward) > tol + 1e-9) ?? null;
}

/** The generated GRPO run of the demo (grpo-main) when present, else the run with the most ledger entries. */
async function pickRun(client: PrismaClient): Promise<string | null> {
  if (await client.run.findUnique({ where: { id: "grpo-main" }, select: { id: true } })) return "grpo-main";
  const top = await client.ledgerEntry.groupBy({ by: ["runId"], _count: { _all: true }, orderBy: { _count: { runId: "desc" } }, take: 1 });
  return top[0]?.runId ?? null;
}

/**
 * Creates the demo audit when there is no audit batch yet and the demo run and users exist (call it after the demo
 * ledger and the demo users). Returns a one-line description, or null when it did nothing.
 */
export async function seedDemoAudit(url: string): Promise<string | null> {
  const client = createClient(url);
  try {
    if ((await client.auditBatch.count()) > 0) return null;
    const users = await client.user.findMany({ where: { email: { in: Object.values(DEMO_EMAILS) } }, select: { id: true, email: true } });
    const user = (email: string) => users.find((u) => u.email === email);
    const a1 = user(DEMO_EMAILS.a1);
    const a2 = user(DEMO_EMAILS.a2);
    const lead = user(DEMO_EMAILS.lead);
    if (!a1 || !a2 || !lead) return null;
    const runId = await pickRun(client);
    if (!runId) return null;
    const steps = await client.ledgerEntry.aggregate({ where: { runId }, _min: { step: true }, _max: { step: true } });
    const tickets = (await client.ledgerEntry.groupBy({ by: ["ticketId"], where: { runId, isCurrent: true } })).length;
    // The demo's tickets recur at every step, so 1% of them is a handful: sample about 80 tickets (one rollout each,
    // anywhere in the window) so the agreement page has enough to mean something; 1% on a real-sized run.
    const rate = Math.min(1, Math.max(0.01, 80 / Math.max(tickets, 1)));
    const created = await createBatch(
      { name: "Demo shadow audit", runId, stepFrom: steps._min.step ?? 0, stepTo: steps._max.step ?? 0, rate, salt: SALT, pick: "one", minPerStratum: 5, overlapRate: 0.1, tolerance: 0.1 },
      { label: "demo" },
      client,
    );
    if (!created.ok) return null;
    return await reviewDemoBatch(client, created.batchId, { a1, a2, lead });
  } finally {
    await client.$disconnect();
  }
}

async function reviewDemoBatch(client: PrismaClient, batchId: number, who: { a1: { id: number; email: string }; a2: { id: number; email: string }; lead: { id: number; email: string } }): Promise<string> {
  const batch = await client.auditBatch.findUniqueOrThrow({ where: { id: batchId }, select: { tolerance: true, config: { select: { body: true } } } });
  const config = scoringConfigOf(batch.config?.body ?? null);
  const tol = batch.tolerance;
  const items: Item[] = await client.auditItem.findMany({
    where: { batchId },
    orderBy: { id: "asc" },
    select: {
      id: true, reviewsNeeded: true, trajectoryId: true,
      ledger: { select: { reward: true, guardrailMask: true, decidingGuardrail: true, claims: true, outcome: true, policy: true, evidence: true, efficiency: true, communication: true } },
    },
  });
  // The guardrail humans will disagree on: missing_evidence when the sample has it, else the most frequent one.
  const counts = new Map<string, number>();
  for (const i of items) if (i.ledger.decidingGuardrail) counts.set(i.ledger.decidingGuardrail, (counts.get(i.ledger.decidingGuardrail) ?? 0) + 1);
  const worse = (counts.get("missing_evidence") ?? 0) >= 3 ? "missing_evidence" : ([...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null);

  // About 15% of single-review items stay open, so the annotators' queue has work.
  const slots: Slot[] = [];
  for (const item of items) {
    const h = uniformHash(SALT, "overlap", `review:${item.trajectoryId}`);
    if (item.reviewsNeeded > 1) {
      slots.push({ item, reviewer: who.a1, second: false, h }, { item, reviewer: who.a2, second: true, h: uniformHash(SALT, "overlap", `second:${item.trajectoryId}`) });
    } else if (h < 0.85 || item.ledger.decidingGuardrail === worse) {
      slots.push({ item, reviewer: h < 0.5 ? who.a1 : who.a2, second: false, h });
    }
  }
  // Disagreements: the worse guardrail's reviews first (up to WORSE_SHARE of them), then the lowest hashes elsewhere,
  // until about 12% of all reviews fall outside the tolerance. A slot where no story disagrees is passed over.
  const target = Math.round((1 - TARGET_AGREEMENT) * slots.length);
  const worseSlots = slots.filter((s) => worse && s.item.ledger.decidingGuardrail === worse).sort((a, b) => a.h - b.h);
  const order = [...worseSlots.slice(0, Math.ceil(WORSE_SHARE * worseSlots.length)), ...slots.filter((s) => !worseSlots.includes(s)).sort((a, b) => a.h - b.h)];
  const plan = new Map<Slot, Made>();
  for (const s of order) {
    if (plan.size >= target) break;
    const made = disagreeing(s.item, worse, config, tol);
    if (made) plan.set(s, made);
  }

  const start = Date.now() - 3 * 86_400_000;
  const spacing = (3 * 86_400_000 - 3_600_000) / Math.max(slots.length, 1);
  const disputed: bigint[] = [];
  let agreeingCount = 0;
  await client.$transaction(
    async (tx) => {
      for (const [n, slot] of slots.entries()) {
        const made = plan.get(slot) ?? agreeing(slot.item, config, tol);
        const at = new Date(start + n * spacing);
        const claims = ((slot.item.ledger.claims as Claims | null) ?? { claimed_writes: [], mentioned: [], forbidden_hits: [] }) as Prisma.InputJsonObject;
        const cmp = compareWithLedger(
          { reward: made.reward, subscores: made.subscores, guardrails: made.guardrails, claims: null },
          { reward: slot.item.ledger.reward, subscores: made.subscores, guardrails: codesOfMask(slot.item.ledger.guardrailMask), claims: null },
          tol,
        );
        if (!cmp.rewardDisagrees) agreeingCount++;
        const review = await tx.review.create({
          data: { itemId: slot.item.id, reviewerId: slot.reviewer.id, ...made.subscores, guardrails: made.guardrails, reward: made.reward, claims, note: made.note, secondsSpent: 40 + Math.floor(slot.h * 200), createdAt: at },
          select: { id: true },
        });
        const done = slot.item.reviewsNeeded <= 1 || slot.second;
        const first = cmp.disagrees && !disputed.includes(slot.item.id);
        if (first) disputed.push(slot.item.id);
        await tx.auditItem.update({
          where: { id: slot.item.id },
          data: { reviewsDone: { increment: 1 }, status: done ? "done" : "open", ...(first ? { disputedAt: at } : {}) },
        });
        await tx.auditLogEntry.create({
          data: {
            at, actorId: slot.reviewer.id, actorLabel: slot.reviewer.email, action: "review.submit", targetType: "audit_item", targetId: slot.item.id.toString(),
            details: { review_id: review.id.toString(), batch_id: batchId, trajectory_id: slot.item.trajectoryId, reward: made.reward, guardrails: made.guardrails, disagrees: cmp.disagrees, demo: true },
          },
        });
      }
      // Two verdicts: the worse guardrail's rule is too strict, and one annotator slip elsewhere.
      const verdicts: { item: bigint; cause: "verifier_rule_wrong" | "annotator_wrong"; guardrail: GuardrailCode | null; note: string }[] = [];
      const onWorse = disputed.filter((id) => items.find((i) => i.id === id)?.ledger.decidingGuardrail === worse);
      const elsewhere = disputed.filter((id) => !onWorse.includes(id));
      if (onWorse[0] !== undefined) verdicts.push({ item: onWorse[0], cause: "verifier_rule_wrong", guardrail: worse as GuardrailCode, note: `The ${worse} rule fires although the required reads happened; the rule is stricter than the policy.` });
      if (elsewhere[0] !== undefined) verdicts.push({ item: elsewhere[0], cause: "annotator_wrong", guardrail: null, note: "The sandbox ledger is clear; the annotator misread the reply." });
      for (const v of verdicts) {
        const a = await tx.adjudication.create({ data: { itemId: v.item, leadId: who.lead.id, cause: v.cause, guardrail: v.guardrail, note: v.note }, select: { id: true } });
        await tx.auditLogEntry.create({
          data: { actorId: who.lead.id, actorLabel: who.lead.email, action: "adjudication.record", targetType: "audit_item", targetId: v.item.toString(), details: { adjudication_id: a.id.toString(), cause: v.cause, guardrail: v.guardrail, demo: true } },
        });
      }
    },
    { timeout: 120_000 },
  );
  const agreement = slots.length ? agreeingCount / slots.length : 0;
  return `demo shadow audit: batch ${batchId}, ${items.length} items, ${slots.length} reviews (agreement ${(agreement * 100).toFixed(0)}%, ${disputed.length} disputed${worse ? `, mostly on ${worse}` : ""})`;
}
