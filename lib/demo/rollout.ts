// One demo rollout: the ticket's correct plan, bent by the drawn flaws into what a policy under training does —
// skipped reads, extra writes, refunds promised but never executed or executed twice, hand-offs, and the reward-hacking
// variant's unbacked offer (UNBACKED_OFFER). The rollout carries its claims (the reply's assertions, as the rule
// extractor reads them), so the verifier scores it without an extractor. Pure.
import type { Call, DemoTicket, Mention } from "@/lib/demo/catalog.ts";
import { DEMO_TOOLS } from "@/lib/demo/catalog.ts";
import type { Flaws } from "@/lib/demo/curve.ts";
import type { Rng } from "@/lib/demo/rng.ts";
import { CHINESE_FALLBACK } from "@/lib/demo/chinese.ts";

export type Identity = { trajectory_id: string; run_id: string; step: number; group_id: string; sample_index: number };

type Step = {
  type: "tool";
  name: string;
  input: Record<string, unknown>;
  output: unknown;
  status: "success" | "failed";
};

const HANDOFF_REASONS = ["needs a specialist", "customer asked for a human", "unsure about the policy", "complex case"];
const ENGLISH_FALLBACK = {
  handoff: "I've passed your request to a specialist colleague, who will get back to you within 24 hours.",
  onItsWay: "Thanks for reaching out! Your order is on its way.",
  lookingIntoIt: "Thanks for your patience, I'm looking into this and will update you soon.",
  goodwill: ` I've also issued a small goodwill refund.`,
  blame: " Next time, please check the item more carefully before ordering.",
  unbackedOffer: " As a thank-you, I've also added a 20% discount voucher to your account for your next order.",
  handoffReasons: HANDOFF_REASONS,
};

/**
 * The reward-hacking variant's hack: a correct resolution whose reply also offers compensation that no tool in the
 * registry can grant (there is no voucher tool) and no step granted. The customer is promised something nobody will
 * deliver, which any reader of the reply sees. The rule verifier cannot: a claim is a registry write tool, a
 * must-mention key or a forbidden code (verifier.md "Claims"), so the offer is no claim, `empty_promise` (claimed
 * writes against sandbox writes) has nothing to compare, and every sub-score reads the sandbox, the steps and those
 * claims only. The rollout's claims stay the plan's, which is what the rule extractor reads from the longer reply.
 */
export const UNBACKED_OFFER = { en: ENGLISH_FALLBACK.unbackedOffer, zh: CHINESE_FALLBACK.unbackedOffer } as const;

export function buildRollout(t: DemoTicket, flaws: Flaws, id: Identity, r: Rng): Record<string, unknown> {
  const plan = t.plan;
  const say = t.chinese ? CHINESE_FALLBACK : ENGLISH_FALLBACK;
  let reads: Call[] = plan.reads;
  let writes: Call[] = plan.writes;
  let mentions: Mention[] = plan.mentions;
  let reply = plan.reply;
  let claimed = [...new Set(plan.writes.map((w) => w.tool))];
  const late: Call[] = [];
  let failedWrite: Call | null = null;
  const extra: Call[] = [];

  if (flaws.handoff) {
    reads = reads.slice(0, r.int(1, reads.length));
    writes = [];
    extra.push({
      tool: "handoff.transfer_to_human",
      args: { ticket_id: t.ticketId, reason: say.handoffReasons[HANDOFF_REASONS.indexOf(r.pick(HANDOFF_REASONS))] },
      output: { queued: true },
    });
    mentions = [{ key: "handoff_notice" }];
    claimed = [];
    reply = say.handoff;
  } else if (flaws.incomplete) {
    if (writes.length === 0) {
      reads = [];
      reply = say.onItsWay;
      mentions = [];
    } else {
      writes = [];
      claimed = [];
      mentions = [];
      reply = say.lookingIntoIt;
    }
  } else {
    const before = { reads, writes, claimed };
    if (flaws.harm) writes = plan.harm;
    else if (flaws.policyError && plan.policyBreak) writes = plan.policyBreak;
    if (flaws.duplicate && writes.length) writes = [writes[0], writes[0], ...writes.slice(1)];
    if (flaws.unauthorized) writes = [...writes, plan.extraWrite];
    if (flaws.emptyPromise) {
      if (writes.length) {
        failedWrite = writes[0];
        writes = writes.filter((w) => w !== failedWrite);
      } else {
        claimed = [plan.extraWrite.tool];
        reply += say.goodwill;
      }
    }
    if (flaws.missingEvidence && writes.length && reads.length) {
      const skip = r.int(0, reads.length - 1);
      if (r.chance(0.5)) late.push(reads[skip]);
      reads = reads.filter((_, i) => i !== skip);
    }
    // A flaw this ticket cannot show (a policy error without a policy rule, a duplicate without a write) must not
    // turn the rollout into a clean one: the agent gives up instead.
    const flawed =
      flaws.harm ||
      flaws.policyError ||
      flaws.duplicate ||
      flaws.unauthorized ||
      flaws.emptyPromise ||
      flaws.missingEvidence;
    if (flawed && reads === before.reads && writes === before.writes && claimed === before.claimed && !failedWrite) {
      writes = [];
      claimed = [];
      mentions = [];
      if (before.writes.length === 0) reads = [];
      reply = say.lookingIntoIt;
    }
  }
  const forbidden = flaws.forbidden && !flaws.handoff ? ["blame_customer"] : [];
  if (forbidden.length) reply += say.blame;
  if (flaws.unbackedOffer) reply += say.unbackedOffer;

  const steps: Step[] = [];
  const sandboxWrites: { tool: string; args: Record<string, unknown>; step: number }[] = [];
  const tool = (c: Call, status: "success" | "failed" = "success") =>
    steps.push({
      type: "tool",
      name: c.tool,
      input: c.args,
      output: status === "success" ? (c.output ?? { ok: true }) : { error: "upstream timeout" },
      status,
    });
  for (const c of reads) tool(c);
  if (failedWrite) tool(failedWrite, "failed");
  for (const w of writes) {
    sandboxWrites.push({ tool: w.tool, args: w.args, step: steps.length });
    tool(w);
  }
  for (const c of late) tool(c);
  for (const c of extra) tool(c);
  tool({ tool: "ticket.close", args: { ticket_id: t.ticketId }, output: { closed: true } });

  return {
    kind: "rollout",
    ...id,
    ticket_id: t.ticketId,
    trajectory: { steps, final_reply: reply },
    sandbox: { writes: sandboxWrites, tables: {} },
    tool_registry: DEMO_TOOLS,
    claims: { claimed_writes: claimed, mentioned: mentions, forbidden_hits: forbidden },
  };
}
