// A generated leaderboard input for the tests: audited items with blind human judgements, guardrails and categories,
// GRPO groups with pairwise judgements, and four candidates — the ledger (close to the humans), a regex rule, a
// judge that errs and times out and costs money, and a code reward with rollouts it was not run on or gave no
// valid output for — plus probe and retest pairs. Deterministic in its seed.

import type {
  AuditedItem,
  Candidate,
  CandidateResult,
  LeaderboardInput,
  PairwiseJudgement,
  RerunPair,
} from "@/lib/leaderboard/input.ts";
import { mulberry32, type Rng } from "@/lib/stats/prng.ts";

const GUARDRAILS = ["G1_no_write", "G3_false_claim", "G7_handoff"];
const CATEGORIES = ["refund", "cancel", "address", null];

const clamp = (x: number) => Math.round(Math.min(1, Math.max(0, x)) * 1000) / 1000;

function items(rng: Rng, n: number, groupSize: number): AuditedItem[] {
  return Array.from({ length: n }, (_, i) => {
    const reward = clamp(rng() < 0.7 ? 0.85 + rng() * 0.15 : rng() * 0.8);
    const guardrails = GUARDRAILS.filter(() => rng() < 0.2);
    return {
      itemId: `item-${i}`,
      rolloutId: `r-${i}`,
      groupId: `g-${Math.floor(i / groupSize)}`,
      human: { verdict: reward >= 0.9 ? "pass" : "fail", reward },
      guardrails,
      category: CATEGORIES[Math.floor(rng() * CATEGORIES.length)],
    };
  });
}

type Profile = {
  noise: number;
  /** Bias toward passing a failed item (a hackable reward). */
  lenient: number;
  failures: [CandidateResult["status"], number][];
  notRun: number;
  cost: (rng: Rng) => number | null;
  latency: (rng: Rng) => number | null;
};

function results(rng: Rng, its: readonly AuditedItem[], extra: readonly string[], p: Profile) {
  const out: Record<string, CandidateResult> = {};
  const score = (human: number) => clamp(human + (rng() - 0.5) * 2 * p.noise + (human < 0.9 ? p.lenient * rng() : 0));
  const one = (rollout: string, human: number) => {
    if (rng() < p.notRun) return;
    const costUsd = p.cost(rng);
    const latencyMs = p.latency(rng);
    let u = rng();
    for (const [status, share] of p.failures) {
      if (u < share) {
        out[rollout] = { reward: null, status, costUsd, latencyMs };
        return;
      }
      u -= share;
    }
    const reward = score(human);
    out[rollout] = { reward, status: "ok", costUsd, latencyMs, components: { outcome: reward, tone: clamp(rng()) } };
  };
  for (const it of its) one(it.rolloutId, it.human.reward);
  for (const r of extra) one(r, rng());
  return out;
}

function pairwise(rng: Rng, its: readonly AuditedItem[], groupSize: number): PairwiseJudgement[] {
  const out: PairwiseJudgement[] = [];
  for (let g = 0; g * groupSize < its.length; g++) {
    const members = its.slice(g * groupSize, (g + 1) * groupSize);
    if (members.length < 2 || rng() < 0.3) continue;
    const [l, r] = members;
    const d = l.human.reward - r.human.reward;
    const preferred = Math.abs(d) < 0.02 ? "tie" : d > 0 !== rng() < 0.1 ? "left" : "right";
    out.push({ groupId: l.groupId!, left: l.rolloutId, right: r.rolloutId, preferred, inclusionProb: 0.5 });
  }
  return out;
}

/**
 * `n` pairs, one per rollout, or (`lines`) a probe's: `lines` to a rollout, the rollout's lines moved alike (by a
 * share of `move` that is the rollout's), so that counting them as independent would overstate the precision.
 */
function reruns(rng: Rng, n: number, move: number, noise: number, lines?: number): RerunPair[] {
  return Array.from({ length: n }, (_, i) => {
    const rollout = lines ? Math.floor(i / lines) : undefined;
    const alike = rollout === undefined ? 1 : (rollout % 4) / 2;
    const first = i % 17 === 5 ? null : clamp(rng());
    const second = first === null ? clamp(rng()) : clamp(first + move * alike * rng() + (rng() - 0.5) * noise);
    return rollout === undefined ? { first, second } : { first, second, rollout: `p-${rollout}` };
  });
}

/** The generated input: `n` audited items in groups of `groupSize`. */
export function leaderboardInput(seed = 1, n = 160, groupSize = 4): LeaderboardInput {
  const rng = mulberry32(seed);
  const its = items(rng, n, groupSize);
  const free = () => 0;
  const none = () => null;
  const candidates: Candidate[] = [
    {
      id: "ledger",
      label: "ledger reward",
      kind: "ledger",
      results: results(rng, its, [], {
        noise: 0.05,
        lenient: 0.15,
        failures: [],
        notRun: 0,
        cost: none,
        latency: none,
      }),
      probe: reruns(rng, 40, 0, 0.02, 8),
    },
    {
      id: "rule-v1",
      label: "refund regex v1",
      kind: "rule",
      threshold: 0.8,
      results: results(rng, its, [], {
        noise: 0.2,
        lenient: 0,
        failures: [["error", 0.02]],
        notRun: 0.05,
        cost: free,
        latency: (r) => 1 + Math.floor(r() * 5),
      }),
    },
    {
      id: "judge-v3",
      label: "LLM judge v3",
      kind: "judge",
      results: results(rng, its, [], {
        noise: 0.1,
        lenient: 0.6,
        failures: [
          ["error", 0.04],
          ["timeout", 0.05],
        ],
        notRun: 0.02,
        cost: (r) => Math.round((0.002 + r() * 0.004) * 1e6) / 1e6,
        latency: (r) => 800 + Math.floor(r() * 2400),
      }),
      probe: reruns(rng, 40, 0.5, 0.1, 8),
      retest: reruns(rng, 50, 0, 0.3),
    },
    {
      id: "code-v2",
      label: "code reward v2",
      kind: "code",
      results: results(rng, its, [], {
        noise: 0.08,
        lenient: 0.05,
        failures: [
          ["invalid_output", 0.03],
          ["unavailable", 0.02],
        ],
        notRun: 0.1,
        cost: free,
        latency: (r) => 20 + Math.floor(r() * 40),
      }),
    },
  ];
  return { items: its, candidates, pairwise: pairwise(rng, its, groupSize) };
}
