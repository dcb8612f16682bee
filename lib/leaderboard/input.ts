// What the reward leaderboard is computed from: the audited items with the human's blind judgement, and for each
// candidate (the ledger's own reward, each reward-function version) its result on each rollout. The loader that reads
// these from the database produces exactly this shape; everything after it is pure. A rollout a candidate has no
// result for was not run on it; a result that is not "ok" carries its status and no reward. Nothing is dropped: every
// item missing from a candidate's figures is counted under its reason.

/** How a candidate's run on one rollout ended (reward_results.status); "ok" is the only one with a reward. */
export const RESULT_STATUSES = ["ok", "error", "timeout", "invalid_output", "unavailable"] as const;
export type ResultStatus = (typeof RESULT_STATUSES)[number];
/** Why an item has no reward from a candidate: no result at all, or a result that failed. */
export const MISSING_REASONS = ["not_run", "error", "timeout", "invalid_output", "unavailable"] as const;
export type MissingReason = (typeof MISSING_REASONS)[number];

export type CandidateResult = {
  /** In [0, 1] when status is "ok"; null otherwise. */
  reward: number | null;
  status: ResultStatus;
  /** Wall time of the call; null when not measured. */
  latencyMs?: number | null;
  /** What the call cost (a judge's tokens at its price); null when not measured, 0 for a free rule. */
  costUsd?: number | null;
  /** The function's own sub-scores, shown beside a disagreement; not used in any figure. */
  components?: Record<string, number> | null;
};

export type AuditedItem = {
  itemId: string;
  rolloutId: string;
  /** The GRPO group (ticket × step) of the rollout, for the link to it; null when unknown. */
  groupId: string | null;
  /** The primary blind review: its verdict and its reward in [0, 1]. */
  human: { verdict: "pass" | "fail"; reward: number };
  /** Guardrail codes of the item (the breakdown "per guardrail"); an item may carry several, or none. */
  guardrails: readonly string[];
  /** The item's category (the breakdown "per category"); null when it has none. */
  category: string | null;
};

/** Two rollouts of one GRPO group and the human's choice between them (a pairwise batch's judgement). */
export type PairwiseJudgement = {
  groupId: string;
  left: string;
  right: string;
  /** The side the human preferred, or "tie". */
  preferred: "left" | "right" | "tie";
  /** Inclusion probability of the pair in its batch; default 1. */
  inclusionProb?: number;
};

/** A reward and the same reward re-run (an injection probe's probed reply, a test–retest's second run). */
export type RerunPair = {
  first: number | null;
  second: number | null;
  /**
   * The rollout the pair is of: a probe's pairs of one rollout (one per injected line) are counted together by the
   * intervals; absent, the pair is a rollout of its own.
   */
  rollout?: string;
};

export type Candidate = {
  /** Stable key: "ledger", or a function version's id. */
  id: string;
  label: string;
  /** "ledger" marks the ledger's own reward (at most one); any other kind is a reward function's. */
  kind: "ledger" | "rule" | "judge" | "code";
  /** Pass threshold of the row's verdict (reward ≥ threshold passes); default 0.9. */
  threshold?: number;
  /** By rollout id. A rollout with no entry was not run. */
  results: Readonly<Record<string, CandidateResult>>;
  /** The injection probe on a sample: per rollout, the reward without and with the probe lines. */
  probe?: readonly RerunPair[];
  /** Test–retest on a sample: per rollout, the reward of the first and the second run. */
  retest?: readonly RerunPair[];
};

export type LeaderboardInput = {
  items: readonly AuditedItem[];
  candidates: readonly Candidate[];
  /** Human pairwise judgements inside GRPO groups; empty when the run has no pairwise batch. */
  pairwise: readonly PairwiseJudgement[];
};

export const DEFAULT_PASS_THRESHOLD = 0.9;

const isUnit = (x: unknown): x is number => typeof x === "number" && Number.isFinite(x) && x >= 0 && x <= 1;

/**
 * Refuses an input that cannot be: a reward outside [0, 1], an "ok" result without a reward or a failed one with
 * one, an unknown status, two candidates with one id, more than one ledger row, a threshold outside (0, 1]. The error
 * names the candidate, the rollout or the item. Throws RangeError.
 */
export function checkLeaderboardInput(input: LeaderboardInput): void {
  for (const it of input.items) {
    if (!isUnit(it.human.reward)) throw new RangeError(`item ${it.itemId}: the human reward must be in [0, 1]`);
    if (it.human.verdict !== "pass" && it.human.verdict !== "fail")
      throw new RangeError(`item ${it.itemId}: the human verdict must be "pass" or "fail"`);
  }
  const ids = new Set<string>();
  for (const c of input.candidates) {
    if (ids.has(c.id)) throw new RangeError(`candidate ${c.id} is listed twice`);
    ids.add(c.id);
    const t = c.threshold ?? DEFAULT_PASS_THRESHOLD;
    if (!(t > 0 && t <= 1)) throw new RangeError(`candidate ${c.id}: the pass threshold must be in (0, 1], got ${t}`);
    // the results by value, and their rollouts only to name a bad one: a pair array per result (Object.entries), a
    // key string per result (for…in over keys that are numbers) and a message per result were most of this check at
    // 20 versions × 10,000 items
    for (const r of Object.values(c.results))
      if (resultProblem(r) !== null)
        for (const rollout in c.results) {
          const problem = resultProblem(c.results[rollout]);
          if (problem !== null) throw new RangeError(`candidate ${c.id}, rollout ${rollout}: ${problem}`);
        }
  }
  if (input.candidates.filter((c) => c.kind === "ledger").length > 1)
    throw new RangeError("at most one candidate can be the ledger's reward");
}

/** What is wrong with a result, or null. */
function resultProblem(r: CandidateResult): string | null {
  if (!(RESULT_STATUSES as readonly string[]).includes(r.status)) return `unknown status ${JSON.stringify(r.status)}`;
  if (r.status === "ok" && !isUnit(r.reward)) return "an ok result needs a reward in [0, 1]";
  if (r.status !== "ok" && r.reward !== null) return `a ${r.status} result has no reward`;
  if (!isMeasure(r.latencyMs)) return "latencyMs must be a non-negative number";
  if (!isMeasure(r.costUsd)) return "costUsd must be a non-negative number";
  return null;
}

/** A latency or a cost: not measured, or a non-negative number. */
const isMeasure = (v: number | null | undefined) => v === undefined || v === null || (Number.isFinite(v) && v >= 0);

/** The reward of a candidate on a rollout, or why it has none. */
export function rewardOf(c: Candidate, rolloutId: string): { reward: number } | { missing: MissingReason } {
  const r = c.results[rolloutId];
  if (!r) return { missing: "not_run" };
  if (r.status === "ok") return { reward: r.reward! };
  return { missing: r.status };
}
