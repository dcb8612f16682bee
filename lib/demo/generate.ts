// A synthetic GRPO run: N tickets over the six demo categories, S training steps, K rollouts per ticket per step,
// with behaviour that improves over training as curve.ts describes. Deterministic for a seed: every rollout has
// its own random stream, so the same arguments always give the same lines. Pure (a generator of wire objects).
import { buildTicket, CATEGORIES, type DemoTicket } from "@/lib/demo/catalog.ts";
import { drawFlaws, ratesAt, type Variant } from "@/lib/demo/curve.ts";
import { hashSeed, rng } from "@/lib/demo/rng.ts";
import { buildRollout } from "@/lib/demo/rollout.ts";
import type { Case, Rollout } from "@/lib/verifier/schema.ts";
import { scoreRollout } from "@/lib/verifier/score.ts";

export type DemoRunSpec = {
  runId: string;
  tickets: number;
  steps: number;
  /** Rollouts per ticket per step (the GRPO group size). */
  k: number;
  seed: string;
  variant: Variant;
  /** Training steps between two logged steps (default: the S logged steps span 30,000 training steps). */
  stride?: number;
};

/** The run's tickets. Ticket ids carry the seed, so runs generated with the same seed share their tickets. */
export function demoTickets(spec: Pick<DemoRunSpec, "tickets" | "seed">): DemoTicket[] {
  const tag = hashSeed("tickets", spec.seed).toString(36).slice(0, 4).toUpperCase();
  return Array.from({ length: spec.tickets }, (_, i) =>
    buildTicket(
      CATEGORIES[i % CATEGORIES.length],
      i,
      rng(hashSeed(spec.seed, "ticket", i)),
      `D${tag}-${String(i + 1).padStart(5, "0")}`,
    ),
  );
}

export function strideOf(spec: Pick<DemoRunSpec, "steps" | "stride">): number {
  return spec.stride ?? Math.max(1, Math.round(30_000 / spec.steps));
}

/**
 * Where the hacking variant's trainer starts optimizing the uncapped reward (a reward function that lost its
 * guardrail caps): from this fraction of training on, its trained reward is the verifier's raw reward, so every
 * capped rollout disagrees with the ledger. Before it, and throughout the normal variant, the trainer optimizes
 * exactly the ledger's reward.
 */
export const DEMO_CAPS_DROPPED_AT = 0.75;

/**
 * The trainer's own reward for a demo rollout (`trained_reward`): the verifier's reward under the default config, or
 * its raw reward once the hacking variant's trainer has dropped the caps. Scoring draws no random numbers, so the
 * run's other figures are what they were without it.
 */
export function demoTrainedReward(rollout: Record<string, unknown>, caseDoc: unknown, capsDropped: boolean): number {
  const record = scoreRollout(rollout as Rollout, caseDoc as Case);
  if (record.status !== "scored") return 0;
  return capsDropped ? record.raw_reward : record.reward;
}

/** Cases first, then every rollout, step by step: what `verity ingest` would read for this run. */
export function* demoRunValues(spec: DemoRunSpec): Generator<Record<string, unknown>> {
  const tickets = demoTickets(spec);
  for (const t of tickets) yield t.case;
  const stride = strideOf(spec);
  // Missing evidence cannot show on a ticket without a write; the other tickets carry its share.
  const withWrites = tickets.filter((t) => t.plan.writes.length > 0).length;
  const evidenceBoost = withWrites ? tickets.length / withWrites : 1;
  for (let s = 0; s < spec.steps; s++) {
    const step = s * stride;
    const at = spec.steps > 1 ? s / (spec.steps - 1) : 1;
    const rates = ratesAt(at, spec.variant);
    const capsDropped = spec.variant === "hacking" && at >= DEMO_CAPS_DROPPED_AT;
    for (let g = 0; g < tickets.length; g++) {
      const t = tickets[g];
      const groupId = `${spec.runId}/s${step}/g${g + 1}`;
      for (let k = 0; k < spec.k; k++) {
        const r = rng(hashSeed(spec.seed, spec.runId, step, g, k));
        const flaws = drawFlaws(rates, r.next, t.plan.writes.length ? evidenceBoost : 1);
        const rollout = buildRollout(
          t,
          flaws,
          { trajectory_id: `${groupId}/k${k}`, run_id: spec.runId, step, group_id: groupId, sample_index: k },
          r,
        );
        yield { ...rollout, trained_reward: demoTrainedReward(rollout, t.case, capsDropped) };
      }
    }
  }
}

export function describeDemoRun(spec: DemoRunSpec): string {
  const what =
    spec.variant === "hacking"
      ? "reward-hacking variant (hand-offs creep up; successes offer vouchers no tool grants)"
      : "GRPO run";
  return `Demo ${what}: ${spec.tickets} tickets × ${spec.steps} steps × K=${spec.k}, seed ${spec.seed}.`;
}
