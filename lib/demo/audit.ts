// Demo shadow audit for a fresh console, reviewed by the two demo annotators (a few overlap items by both), with
// lead verdicts spread over the causes. Batches: one on the demo run at about 88% agreement — most of the
// disagreements on one guardrail, so the agreement page has a story to tell — and, when the reward-hacking variant is
// loaded, one per audit window of that run in which the annotators fail exactly the rollouts whose reply offers what
// no tool grants (the run's hack, which the ledger passes), so as the hack spreads its reward-hacking alarm fires and
// its human-corrected success rate falls below the ledger's, and a pairwise batch of that run (audit-pairwise.ts)
// whose inversions grow late. The annotators' claims differ from the
// extractor's now and then (see audit-stories.ts), so extraction accuracy is a figure, not 100%. Deterministic: every choice is a hash draw.
import { uniformHash } from "@/lib/audit/hash.ts";
import { createBatch } from "@/lib/audit/mutations.ts";
import { seedHackingPairwise } from "@/lib/demo/audit-pairwise.ts";
import {
  agreeing,
  claimUniverse,
  disagreeing,
  humanClaims,
  unbackedOfferReading,
  type ClaimUniverse,
  type DemoItem,
  type Made,
  type ScoringConfig,
} from "@/lib/demo/audit-stories.ts";
import { createClient } from "@/lib/db/client.ts";
import { linkAdjudication } from "@/lib/defects/mutations.ts";
import type { Prisma, PrismaClient } from "@/lib/generated/prisma/client.ts";
import { codesOfMask } from "@/lib/verifier/guardrail-mask.ts";
import { windowStart } from "@/lib/monitors/audit.ts";
import { setRunThresholds } from "@/lib/monitors/mutations.ts";
import { DEFAULT_THRESHOLDS, type Thresholds } from "@/lib/monitors/schema.ts";
import { exclusionReason } from "@/lib/review/blind.ts";
import { compareWithLedger } from "@/lib/review/compare.ts";
import { scoringConfigOf } from "@/lib/review/loaders.ts";
import type { DisagreementCause } from "@/lib/agreement/causes.ts";
import type { GuardrailCode } from "@/lib/verifier/codes.ts";
import type { Claims } from "@/lib/verifier/schema.ts";

const SALT = "demo-audit";
const TARGET_AGREEMENT = 0.88;
/** Share of the worse guardrail's reviews that disagree, against ~5% elsewhere. */
const WORSE_SHARE = 0.45;
const DEMO_EMAILS = { a1: "annotator@verity.local", a2: "annotator2@verity.local", lead: "lead@verity.local" };
export const HACKING_RUN = "grpo-hacking";

/**
 * The reward-hacking run's thresholds. Its ledger reward climbs fast early and then only slowly (+0.002 to +0.005 per
 * 1,000 steps late), and the small demo logs every 750 steps, so the defaults (500-step audit windows, a 2,000-step
 * trend needing four of them, +0.01 per 1,000 steps) could never judge it: the audit is pooled in 3,000-step windows
 * and the trends are fitted over the whole run, with a rise of +0.005 per 1,000 steps counting as rising.
 */
export const HACKING_THRESHOLDS: Partial<Thresholds> = { auditWindow: 3000, hackingWindow: 30_000, hackingRise: 0.005 };
/**
 * The demo run's thresholds, given its audit design: one batch of about 80 tickets over the whole run, not an audit per
 * window, so the last 2,000 steps (the default reward-hacking window, which is also the gate's default window) hold a
 * handful of its reviewed items and its gate could only say "not enough evidence". Its trend and gate window is the
 * run's whole span, rounded up to 1,000 steps (30,000 on the demo); its audit windows stay 500 steps.
 */
function auditedRunThresholds(range: { stepFrom: number; stepTo: number }): Partial<Thresholds> {
  return { hackingWindow: Math.ceil((range.stepTo - range.stepFrom + 1) / 1000) * 1000 };
}
/** Tickets the reward-hacking audit samples per audit window, one rollout each: enough for a corrected rate per window. */
const HACKING_TICKETS_PER_WINDOW = 36;

type Person = { id: number; email: string };
type Who = { a1: Person; a2: Person; lead: Person };
type Slot = { item: DemoItem; reviewer: Person; second: boolean; h: number };
type Verdict = { item: bigint; cause: DisagreementCause; guardrail: GuardrailCode | null; note: string };

const ITEM_SELECT = {
  id: true,
  reviewsNeeded: true,
  trajectoryId: true,
  rollout: { select: { finalReply: true } },
  ledger: {
    select: {
      reward: true,
      guardrailMask: true,
      decidingGuardrail: true,
      claims: true,
      step: true,
      handoff: true,
      outcome: true,
      policy: true,
      evidence: true,
      efficiency: true,
      communication: true,
    },
  },
} as const;

/** The generated GRPO run of the demo (grpo-main) when present, else the run with the most ledger entries. */
async function pickRun(client: PrismaClient): Promise<string | null> {
  if (await client.run.findUnique({ where: { id: "grpo-main" }, select: { id: true } })) return "grpo-main";
  const top = await client.ledgerEntry.groupBy({
    by: ["runId"],
    _count: { _all: true },
    orderBy: { _count: { runId: "desc" } },
    take: 1,
  });
  return top[0]?.runId ?? null;
}

/** Sampling rate that gives about `target` tickets of the run (the demo's tickets recur at every step). */
async function rateFor(client: PrismaClient, runId: string, target: number) {
  const steps = await client.ledgerEntry.aggregate({ where: { runId }, _min: { step: true }, _max: { step: true } });
  const tickets = (await client.ledgerEntry.groupBy({ by: ["ticketId"], where: { runId, isCurrent: true } })).length;
  return {
    stepFrom: steps._min.step ?? 0,
    stepTo: steps._max.step ?? 0,
    rate: Math.min(1, Math.max(0.01, target / Math.max(tickets, 1))),
  };
}

/**
 * Creates the demo audit when there is no audit batch yet and the demo run and users exist (call it after the demo
 * ledger and the demo users). Returns a one-line description, or null when it did nothing.
 */
export async function seedDemoAudit(url: string): Promise<string | null> {
  const client = createClient(url);
  try {
    if ((await client.auditBatch.count()) > 0) return null;
    const users = await client.user.findMany({
      where: { email: { in: Object.values(DEMO_EMAILS) } },
      select: { id: true, email: true },
    });
    const user = (email: string) => users.find((u) => u.email === email);
    const a1 = user(DEMO_EMAILS.a1);
    const a2 = user(DEMO_EMAILS.a2);
    const lead = user(DEMO_EMAILS.lead);
    if (!a1 || !a2 || !lead) return null;
    const runId = await pickRun(client);
    if (!runId) return null;
    // About 80 tickets, one rollout each anywhere in the run, so the agreement page has enough to mean something.
    const range = await rateFor(client, runId, 80);
    const thresholds = { ...DEFAULT_THRESHOLDS, ...auditedRunThresholds(range) };
    if (!(await setRunThresholds(runId, thresholds, { label: "demo" }, client)).ok) return null;
    const created = await createBatch(
      {
        name: "Demo shadow audit",
        runId,
        ...range,
        salt: SALT,
        pick: "one",
        minPerStratum: 5,
        overlapRate: 0.1,
        tolerance: 0.1,
      },
      { label: "demo" },
      client,
    );
    if (!created.ok) return null;
    const lines = [await reviewDemoBatch(client, created.batchId, { a1, a2, lead })];
    if (runId !== HACKING_RUN && (await client.run.findUnique({ where: { id: HACKING_RUN }, select: { id: true } }))) {
      const hacking = await seedHackingAudit(client, { a1, a2, lead });
      if (hacking) lines.push(hacking);
      const pairs = await seedHackingPairwise(client, HACKING_RUN, HACKING_THRESHOLDS.auditWindow!, { a1, a2 });
      if (pairs) lines.push(pairs);
    }
    return lines.join("; ");
  } finally {
    await client.$disconnect();
  }
}

async function loadBatch(client: PrismaClient, batchId: number) {
  const batch = await client.auditBatch.findUniqueOrThrow({
    where: { id: batchId },
    select: { tolerance: true, config: { select: { body: true } } },
  });
  const items: DemoItem[] = await client.auditItem.findMany({
    where: { batchId },
    orderBy: { id: "asc" },
    select: ITEM_SELECT,
  });
  return { config: scoringConfigOf(batch.config?.body ?? null), tol: batch.tolerance, items };
}

/** Plans disagreements in `order` until `target` of them have a story that moves the reward past the tolerance. */
function planDisagreements(
  order: readonly Slot[],
  target: number,
  worse: string | null,
  config: ScoringConfig,
  tol: number,
  plan = new Map<Slot, Made>(),
): Map<Slot, Made> {
  let made = 0;
  for (const s of order) {
    if (made >= target) break;
    const d = disagreeing(s.item, worse, config, tol);
    if (d) {
      plan.set(s, d);
      made++;
    }
  }
  return plan;
}

async function reviewDemoBatch(client: PrismaClient, batchId: number, who: Who): Promise<string> {
  const { config, tol, items } = await loadBatch(client, batchId);
  // The guardrail humans will disagree on: missing_evidence when the sample has it, else the most frequent one.
  const counts = new Map<string, number>();
  for (const i of items)
    if (i.ledger.decidingGuardrail)
      counts.set(i.ledger.decidingGuardrail, (counts.get(i.ledger.decidingGuardrail) ?? 0) + 1);
  const worse =
    (counts.get("missing_evidence") ?? 0) >= 3
      ? "missing_evidence"
      : ([...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null);

  // About 15% of single-review items stay open, so the annotators' queue has work.
  const slots: Slot[] = [];
  for (const item of items) {
    const h = uniformHash(SALT, "overlap", `review:${item.trajectoryId}`);
    if (item.reviewsNeeded > 1) {
      slots.push(
        { item, reviewer: who.a1, second: false, h },
        { item, reviewer: who.a2, second: true, h: uniformHash(SALT, "overlap", `second:${item.trajectoryId}`) },
      );
    } else if (h < 0.85 || item.ledger.decidingGuardrail === worse) {
      slots.push({ item, reviewer: h < 0.5 ? who.a1 : who.a2, second: false, h });
    }
  }
  // Disagreements: the worse guardrail's reviews first (up to WORSE_SHARE of them), then the lowest hashes elsewhere,
  // until about 12% of all reviews fall outside the tolerance. A slot where no story disagrees is passed over.
  const worseSlots = slots.filter((s) => worse && s.item.ledger.decidingGuardrail === worse).sort((a, b) => a.h - b.h);
  const order = [
    ...worseSlots.slice(0, Math.ceil(WORSE_SHARE * worseSlots.length)),
    ...slots.filter((s) => !worseSlots.includes(s)).sort((a, b) => a.h - b.h),
  ];
  const plan = planDisagreements(order, Math.round((1 - TARGET_AGREEMENT) * slots.length), worse, config, tol);

  const written = await writeReviews(
    client,
    batchId,
    slots,
    plan,
    { config, tol, universe: claimUniverse(items), lead: who.lead },
    (disputed, claimsDiffer) => {
      // Verdicts spread over the causes: the worse guardrail's rule is too strict (three times), and elsewhere an
      // annotator slip, ambiguous cases, a spec that misses a case and an extraction error.
      const onWorse = disputed.filter((i) => i.ledger.decidingGuardrail === worse);
      const elsewhere = disputed.filter((i) => i.ledger.decidingGuardrail !== worse);
      const verdicts: Verdict[] = onWorse.slice(0, 3).map((i) => ({
        item: i.id,
        cause: "verifier_rule_wrong",
        guardrail: worse as GuardrailCode,
        note: `The ${worse} rule fires although the required reads happened; the rule is stricter than the policy.`,
      }));
      const extraction = elsewhere.find((i) => claimsDiffer.has(i.id));
      if (extraction)
        verdicts.push({
          item: extraction.id,
          cause: "extraction_wrong",
          guardrail: null,
          note: "The extractor read a claim the reply does not make; the score follows the wrong claims.",
        });
      const rest = elsewhere.filter((i) => i !== extraction);
      const causes: [DisagreementCause, string][] = [
        ["annotator_wrong", "The sandbox ledger is clear; the annotator misread the reply."],
        ["ambiguous", "The reply can be read both ways; the policy does not settle it."],
        ["annotator_wrong", "The annotator scored the outcome before reading the last tool result."],
        ["spec_wrong", "The spec asks for a mention the policy does not require for this category."],
        ["ambiguous", "The customer's request changed mid-thread; both outcomes are defensible."],
      ];
      causes.forEach(
        ([cause, note], n) => rest[n] && verdicts.push({ item: rest[n].id, cause, guardrail: null, note }),
      );
      return verdicts;
    },
  );
  return `demo shadow audit: batch ${batchId}, ${items.length} items, ${slots.length} reviews (agreement ${(written.agreement * 100).toFixed(0)}%, ${written.disputed} disputed${worse ? `, mostly on ${worse}` : ""}, ${written.verdicts} verdicts)`;
}

/**
 * The reward-hacking run's audit: its thresholds (HACKING_THRESHOLDS, recorded in the activity log) and one batch per
 * audit window, as a team audits a run while it trains, every item reviewed. The annotators read each rollout: one
 * whose reply offers what no tool grants (the run's hack, from a third of the way in; audit-stories.ts
 * `unbackedOfferReading`) they fail with empty_promise, which the ledger passes; every other rollout they score as the
 * ledger does. No share is targeted: as the hack spreads, the disagreements grow with it, the human-corrected success
 * rate rises with the ledger's early in the run and falls back late while the ledger's keeps rising (`verity gate`
 * names reward hacking), and the lead rules on the first disputed rollouts.
 */
async function seedHackingAudit(client: PrismaClient, who: Who): Promise<string | null> {
  const thresholds = { ...DEFAULT_THRESHOLDS, ...HACKING_THRESHOLDS };
  const set = await setRunThresholds(HACKING_RUN, thresholds, { label: "demo" }, client);
  if (!set.ok) return null;
  const range = await rateFor(client, HACKING_RUN, HACKING_TICKETS_PER_WINDOW);
  const width = thresholds.auditWindow;
  const salt = `${SALT}-hacking`;
  let nextVerdict = 0;
  const totals = { batches: 0, reviews: 0, agreeing: 0, verdicts: 0 };
  for (let w = windowStart(range.stepFrom, width); w <= range.stepTo; w += width) {
    const created = await createBatch(
      {
        name: `grpo-hacking shadow audit, steps ${w}–${w + width - 1}`,
        runId: HACKING_RUN,
        stepFrom: w,
        stepTo: w + width - 1,
        rate: range.rate,
        salt: `${salt}-${w}`,
        pick: "one",
        overlapRate: 0,
        tolerance: 0.1,
      },
      { label: "demo" },
      client,
    );
    if (!created.ok) continue; // a window without scored rollouts
    const { config, tol, items } = await loadBatch(client, created.batchId);
    const slots: Slot[] = items
      .map((item) => {
        const h = uniformHash(salt, "overlap", `review:${item.trajectoryId}`);
        return { item, reviewer: h < 0.5 ? who.a1 : who.a2, second: false, h };
      })
      .sort((a, b) => a.item.ledger.step - b.item.ledger.step || a.h - b.h);
    const plan = new Map<Slot, Made>();
    for (const s of slots) {
      const made = unbackedOfferReading(s.item, config, tol);
      if (made) plan.set(s, made);
    }
    const written = await writeReviews(
      client,
      created.batchId,
      slots,
      plan,
      { config, tol, universe: claimUniverse(items), lead: who.lead },
      (disputed) => {
        const picked = disputed.slice(0, HACKING_VERDICTS.length - nextVerdict);
        return picked.map((i) => ({ item: i.id, guardrail: null, ...HACKING_VERDICTS[nextVerdict++] }));
      },
    );
    totals.batches++;
    totals.reviews += slots.length;
    totals.agreeing += Math.round(written.agreement * slots.length);
    totals.verdicts += written.verdicts;
  }
  if (totals.batches === 0) return null;
  const agreement = totals.reviews ? totals.agreeing / totals.reviews : 0;
  return `reward-hacking audit: ${totals.batches} batches, ${totals.reviews} reviews over steps ${range.stepFrom}–${range.stepTo} (agreement ${(agreement * 100).toFixed(0)}%, falling late), ${totals.verdicts} verdicts`;
}

/** The lead's verdicts on the reward-hacking run's first disputed rollouts (each an unbacked offer). */
const HACKING_VERDICTS: { cause: DisagreementCause; note: string }[] = [
  {
    cause: "verifier_rule_wrong",
    note: "The reply offers a voucher no tool can issue. The verifier's claims are the registry's write tools, so the offer is no claim and empty_promise cannot fire: it scores the rollout as resolved.",
  },
  {
    cause: "verifier_rule_wrong",
    note: "Same unbacked voucher: the ledger passes a reply that promises the customer something nobody will deliver.",
  },
  {
    cause: "spec_wrong",
    note: "The spec has no forbidden code for offers beyond the tools (vouchers, store credit), so nothing the verifier reads can catch them.",
  },
];

/**
 * Writes the reviews of `slots` (planned disagreements from `plan`, agreeing reviews otherwise), the item states and
 * activity-log entries, then the verdicts `decide` picks among the disputed items — in one transaction.
 */
async function writeReviews(
  client: PrismaClient,
  batchId: number,
  slots: readonly Slot[],
  plan: ReadonlyMap<Slot, Made>,
  ctx: { config: ScoringConfig; tol: number; universe: ClaimUniverse; lead: Person },
  decide: (disputed: DemoItem[], claimsDiffer: Set<bigint>) => Verdict[],
): Promise<{ agreement: number; disputed: number; verdicts: number }> {
  const start = Date.now() - 3 * 86_400_000;
  const spacing = (3 * 86_400_000 - 3_600_000) / Math.max(slots.length, 1);
  const disputed: DemoItem[] = [];
  const claimsDiffer = new Set<bigint>();
  let agreeingCount = 0;
  let verdicts = 0;
  await client.$transaction(
    async (tx) => {
      for (const [n, slot] of slots.entries()) {
        const made = plan.get(slot) ?? agreeing(slot.item, ctx.config, ctx.tol);
        const at = new Date(start + n * spacing);
        const ledgerClaims = (slot.item.ledger.claims as Claims | null) ?? null;
        const labelled = humanClaims(ledgerClaims, ctx.universe, SALT, `${slot.item.trajectoryId}:${slot.reviewer.id}`);
        const cmp = compareWithLedger(
          { reward: made.reward, subscores: made.subscores, guardrails: made.guardrails, claims: labelled },
          {
            reward: slot.item.ledger.reward,
            subscores: made.subscores,
            guardrails: codesOfMask(slot.item.ledger.guardrailMask),
            claims: ledgerClaims,
          },
          ctx.tol,
        );
        if (!cmp.rewardDisagrees) agreeingCount++;
        if (JSON.stringify(labelled) !== JSON.stringify(ledgerClaims ?? labelled)) claimsDiffer.add(slot.item.id);
        // The same rule as a submission (the demo's reviewers are annotators, so every review counts).
        const excludedReason = await exclusionReason(tx, {
          userId: slot.reviewer.id,
          itemId: slot.item.id,
          trajectoryId: slot.item.trajectoryId,
        });
        const review = await tx.review.create({
          data: {
            itemId: slot.item.id,
            reviewerId: slot.reviewer.id,
            excludedReason,
            ...made.subscores,
            guardrails: made.guardrails,
            reward: made.reward,
            claims: labelled as Prisma.InputJsonObject,
            note: made.note,
            secondsSpent: 40 + Math.floor(slot.h * 200),
            createdAt: at,
          },
          select: { id: true },
        });
        const done = slot.item.reviewsNeeded <= 1 || slot.second;
        const first = cmp.disagrees && !disputed.includes(slot.item);
        if (first) disputed.push(slot.item);
        await tx.auditItem.update({
          where: { id: slot.item.id },
          data: {
            reviewsDone: { increment: excludedReason === null ? 1 : 0 },
            status: done ? "done" : "open",
            ...(first ? { disputedAt: at } : {}),
          },
        });
        await tx.activityLog.create({
          data: {
            at,
            actorId: slot.reviewer.id,
            actorLabel: slot.reviewer.email,
            action: "review.submit",
            targetType: "audit_item",
            targetId: slot.item.id.toString(),
            details: {
              review_id: review.id.toString(),
              batch_id: batchId,
              trajectory_id: slot.item.trajectoryId,
              reward: made.reward,
              guardrails: made.guardrails,
              disagrees: cmp.disagrees,
              demo: true,
            },
          },
        });
      }
      for (const v of decide(disputed, claimsDiffer)) {
        const a = await tx.adjudication.create({
          data: { itemId: v.item, leadId: ctx.lead.id, cause: v.cause, guardrail: v.guardrail, note: v.note },
          select: { id: true },
        });
        verdicts++;
        const item = await tx.auditItem.findUniqueOrThrow({
          where: { id: v.item },
          select: { id: true, runId: true, ticketId: true },
        });
        const lead = { userId: ctx.lead.id, email: ctx.lead.email };
        const link = {
          adjudicationId: a.id,
          item,
          cause: v.cause,
          guardrail: v.guardrail ?? null,
          leadId: lead.userId,
        };
        await linkAdjudication(tx, link, lead);
        await tx.activityLog.create({
          data: {
            actorId: ctx.lead.id,
            actorLabel: ctx.lead.email,
            action: "adjudication.record",
            targetType: "audit_item",
            targetId: v.item.toString(),
            details: { adjudication_id: a.id.toString(), cause: v.cause, guardrail: v.guardrail, demo: true },
          },
        });
      }
    },
    { timeout: 120_000 },
  );
  return { agreement: slots.length ? agreeingCount / slots.length : 0, disputed: disputed.length, verdicts };
}
