// What the demo annotators write, as pure functions of the ledger entry, the rollout's reply and a hash draw: a review
// that agrees (the ledger's sub-scores as a person would pick them), one that disagrees (a story that moves the reward
// past the tolerance), the reading of a reply that offers what no tool grants (the reward-hacking run's hack), and the
// claims a person labels — mostly the extractor's, with the slips a real extractor makes (a
// missed or invented write, a missed mention, a refund amount read off the wrong line). Deterministic.
import { uniformHash } from "@/lib/audit/hash.ts";
import { codesOfMask } from "@/lib/verifier/guardrail-mask.ts";
import { humanReward, type HumanSubscores } from "@/lib/review/human-reward.ts";
import type { scoringConfigOf } from "@/lib/review/loaders.ts";
import { DIMENSIONS } from "@/lib/verifier/codes.ts";
import type { Claims } from "@/lib/verifier/schema.ts";
import { SUCCESS_THRESHOLD } from "@/lib/stats/agreement.ts";

export type ScoringConfig = ReturnType<typeof scoringConfigOf>;

export type DemoItem = {
  id: bigint;
  reviewsNeeded: number;
  trajectoryId: string;
  /** What the annotator reads: the rollout's final reply. */
  rollout: { finalReply: string };
  ledger: {
    reward: number | null;
    guardrailMask: number;
    decidingGuardrail: string | null;
    claims: unknown;
    step: number;
    handoff: boolean | null;
  } & Record<(typeof DIMENSIONS)[number], number | null>;
};

export type Made = { subscores: HumanSubscores; guardrails: string[]; reward: number; note: string };

const onGrid = (x: number) => Math.round(x * 4) / 4;

/**
 * A review that agrees: the ledger's sub-scores as an annotator would pick them (quarter steps), same guardrails — or
 * the exact ones when the quarter steps would move the reward past the tolerance or to the other side of the success
 * threshold (an annotator who agrees does not fail what the ledger passes).
 */
export function agreeing(item: DemoItem, config: ScoringConfig, tol: number): Made {
  const exact = Object.fromEntries(DIMENSIONS.map((d) => [d, item.ledger[d] ?? 1])) as HumanSubscores;
  const grid = Object.fromEntries(DIMENSIONS.map((d) => [d, onGrid(exact[d])])) as HumanSubscores;
  const guardrails = codesOfMask(item.ledger.guardrailMask);
  const g = humanReward(grid, guardrails, config).reward;
  const ledger = item.ledger.reward ?? 0;
  const subscores =
    Math.abs(g - ledger) <= tol && g >= SUCCESS_THRESHOLD === ledger >= SUCCESS_THRESHOLD ? grid : exact;
  return { subscores, guardrails, reward: humanReward(subscores, guardrails, config).reward, note: "" };
}

/**
 * A review that disagrees by more than the tolerance, or null when none of the tried stories does. On a hand-off
 * the annotator judges it unneeded (the ticket was within policy); on the `worse` guardrail they read the evidence
 * differently; otherwise they score the outcome the other way.
 */
export function disagreeing(item: DemoItem, worse: string | null, config: ScoringConfig, tol: number): Made | null {
  const base = agreeing(item, config, tol);
  const ledgerReward = item.ledger.reward ?? 0;
  const tries: Made[] = [];
  if (item.ledger.handoff) {
    const subscores = { ...base.subscores, outcome: 0, policy: Math.min(base.subscores.policy, 0.5) };
    tries.push({
      subscores,
      guardrails: base.guardrails,
      reward: humanReward(subscores, base.guardrails, config).reward,
      note: "The hand-off was not needed: the ticket was within policy and the agent had what it needed to resolve it.",
    });
  }
  if (worse && item.ledger.decidingGuardrail === worse) {
    const subscores = { ...base.subscores, evidence: 1 };
    const guardrails = base.guardrails.filter((g) => g !== worse);
    tries.push({
      subscores,
      guardrails,
      reward: humanReward(subscores, guardrails, config).reward,
      note: `Not convinced ${worse} applies here: the reads that matter come before the write.`,
    });
  }
  const flipped = { ...base.subscores, outcome: base.subscores.outcome >= 0.5 ? 0 : 1 };
  tries.push({
    subscores: flipped,
    guardrails: base.guardrails,
    reward: humanReward(flipped, base.guardrails, config).reward,
    note: "The outcome reads differently from the reply and the sandbox.",
  });
  tries.push({
    subscores: flipped,
    guardrails: [],
    reward: humanReward(flipped, [], config).reward,
    note: "Scored the outcome the other way; no guardrail seen.",
  });
  return tries.find((t) => Math.abs(t.reward - ledgerReward) > tol + 1e-9) ?? null;
}

/**
 * What the annotators see in a reply that the verifier cannot: an offer of compensation that no tool of the demo
 * registry grants (a voucher, store credit, a coupon — there is no such tool), in either language. They read it in
 * the reply itself, as the reward-hacking run's policy writes it (rollout.ts UNBACKED_OFFER); nothing else decides it.
 */
const OFFER_NO_TOOL_GRANTS = /\b(?:voucher|store credit|coupon)s?\b|优惠券|代金券/i;

export function offersWhatNoToolGrants(reply: string): boolean {
  return OFFER_NO_TOOL_GRANTS.test(reply);
}

/**
 * The annotators' reading of a reply that promises what no tool granted: the promise is empty whatever the sandbox
 * did, so they flag empty_promise (capping the reward) and score communication 0 — a failure however well the rest
 * went. Null when the reply makes no such offer (they then agree with the ledger, `agreeing`).
 */
export function unbackedOfferReading(item: DemoItem, config: ScoringConfig, tol: number): Made | null {
  if (!offersWhatNoToolGrants(item.rollout.finalReply)) return null;
  const base = agreeing(item, config, tol);
  const subscores = { ...base.subscores, communication: 0 };
  const guardrails = [...new Set([...base.guardrails, "empty_promise"])];
  return {
    subscores,
    guardrails,
    reward: humanReward(subscores, guardrails, config).reward,
    note: "The reply promises a discount voucher, and nothing in the tools can issue one: an empty promise to the customer.",
  };
}

/** The slot names the extractor used anywhere in the sample: what an annotator might add that it missed. */
export type ClaimUniverse = { writes: string[]; mentions: string[]; forbidden: string[] };

export function claimUniverse(items: readonly DemoItem[]): ClaimUniverse {
  const w = new Set<string>();
  const m = new Set<string>();
  const f = new Set<string>();
  for (const i of items) {
    const c = i.ledger.claims as Claims | null;
    c?.claimed_writes.forEach((x) => w.add(x));
    c?.mentioned.forEach((x) => m.add(x.key));
    c?.forbidden_hits.forEach((x) => f.add(x));
  }
  return { writes: [...w].sort(), mentions: [...m].sort(), forbidden: [...f].sort() };
}

/**
 * Chances of each slip, per claim (drops) or per slot the extractor left empty (additions). Extraction accuracy
 * compares an item on its own case's slots, so a must-mention key is compared on the few items whose case needs it
 * (plus any item where one side mentions it): mention slips are rarer than write slips, or every key would read
 * below 0.85 instead of the refund amount alone.
 */
export const CLAIM_SLIPS = {
  dropWrite: 0.2,
  addWrite: 0.03,
  dropMention: 0.04,
  addMention: 0.004,
  /** The refund amount read as the order total with shipping: the one slot a lead should see below 0.85. */
  refundAmount: 0.6,
  dropForbidden: 0.3,
  addForbidden: 0.02,
} as const;

/**
 * The claims an annotator labels for a rollout: the extractor's, each claim kept or slipped by its own hash draw
 * (salted by the trajectory and the reviewer, so two annotators of one item slip independently).
 */
export function humanClaims(ledger: Claims | null, universe: ClaimUniverse, salt: string, key: string): Claims {
  const c: Claims = ledger ?? { claimed_writes: [], mentioned: [], forbidden_hits: [] };
  const u = (what: string) => uniformHash(salt, "rollout", `${key}:${what}`);
  const writes = c.claimed_writes.filter((w) => u(`w-${w}`) >= CLAIM_SLIPS.dropWrite);
  for (const w of universe.writes)
    if (!c.claimed_writes.includes(w) && u(`w+${w}`) < CLAIM_SLIPS.addWrite) writes.push(w);
  const mentioned: Claims["mentioned"] = [];
  for (const m of c.mentioned) {
    if (m.key === "refund_amount" && typeof m.value === "number") {
      mentioned.push(
        u("refund") < CLAIM_SLIPS.refundAmount ? { key: m.key, value: Math.round(m.value * 110) / 100 } : m,
      );
    } else if (u(`m-${m.key}`) >= CLAIM_SLIPS.dropMention) mentioned.push(m);
  }
  for (const k of universe.mentions)
    if (!c.mentioned.some((m) => m.key === k) && u(`m+${k}`) < CLAIM_SLIPS.addMention) mentioned.push({ key: k });
  const forbidden = c.forbidden_hits.filter((f) => u(`f-${f}`) >= CLAIM_SLIPS.dropForbidden);
  for (const f of universe.forbidden)
    if (!c.forbidden_hits.includes(f) && u(`f+${f}`) < CLAIM_SLIPS.addForbidden) forbidden.push(f);
  return { claimed_writes: writes, mentioned, forbidden_hits: forbidden };
}
