// What the reward leaderboard is computed from: the audited items with the human's blind judgement, and for each
// candidate (the ledger's own reward, each reward-function version) its result on each rollout, by rollout id or as
// columns (ResultColumns). The loader that reads these from the database produces exactly this shape, as columns;
// everything after it is pure. A rollout a candidate has no
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

/** The rollouts a ResultColumns is laid over: slot s holds the result on ids[s]. The loader's candidates share one. */
export type RolloutSlots = { readonly ids: readonly string[]; readonly slotOf: ReadonlyMap<string, number> };

/** The slots of the distinct rollouts among `ids`, in the order they first come. */
export function rolloutSlots(ids: Iterable<string>): RolloutSlots {
  const list: string[] = [];
  const slotOf = new Map<string, number>();
  for (const id of ids)
    if (!slotOf.has(id)) {
      slotOf.set(id, list.length);
      list.push(id);
    }
  return { ids: list, slotOf };
}

/** ResultColumns.status of a rollout without a result; a result's is 1 + its status's place in RESULT_STATUSES. */
export const NOT_RUN = 0;
/** ResultColumns.status of a result whose status is none of RESULT_STATUSES (checkLeaderboardInput refuses it). */
export const UNKNOWN_STATUS = 255;
/** ResultColumns.status of an ok result. */
export const OK_STATUS = 1 + RESULT_STATUSES.indexOf("ok");

/**
 * A candidate's results as columns over `rollouts` (slot s: the result on rollouts.ids[s]), a reward there is not and
 * a measure not taken being NaN: what the loader reads. 200,000 results at 20 versions × 10,000 items, each an object
 * keyed by its rollout's number-like id, were a good part of the page's read and of every row's build.
 */
export class ResultColumns {
  /** NOT_RUN, 1 + the status's place in RESULT_STATUSES, or UNKNOWN_STATUS. */
  readonly status: Uint8Array;
  /** The reward in [0, 1] of an ok result; NaN otherwise. */
  readonly reward: Float64Array;
  /** NaN: not measured. */
  readonly latencyMs: Float64Array;
  /** NaN: not measured. */
  readonly costUsd: Float64Array;
  /** The sub-scores by slot, where read (the loader reads those of the two rows compared head to head only). */
  readonly components = new Map<number, Record<string, number>>();

  constructor(readonly rollouts: RolloutSlots) {
    const n = rollouts.ids.length;
    this.status = new Uint8Array(n);
    this.reward = new Float64Array(n).fill(Number.NaN);
    this.latencyMs = new Float64Array(n).fill(Number.NaN);
    this.costUsd = new Float64Array(n).fill(Number.NaN);
  }

  /** The results given by rollout id as columns, over their own rollouts in the record's order. */
  static of(results: Readonly<Record<string, CandidateResult>>): ResultColumns {
    const ids = Object.keys(results);
    const columns = new ResultColumns(rolloutSlots(ids));
    ids.forEach((id, slot) => columns.set(slot, results[id]));
    return columns;
  }

  /** Puts a result in a slot (a null reward or measure as NaN). */
  set(slot: number, r: CandidateResult): void {
    const at = (RESULT_STATUSES as readonly string[]).indexOf(r.status);
    this.status[slot] = at < 0 ? UNKNOWN_STATUS : at + 1;
    this.reward[slot] = r.reward ?? Number.NaN;
    this.latencyMs[slot] = r.latencyMs ?? Number.NaN;
    this.costUsd[slot] = r.costUsd ?? Number.NaN;
    if (r.components) this.components.set(slot, r.components);
    else this.components.delete(slot);
  }

  /** The slot of a rollout; −1 when it has none (not run). */
  slotOf(rolloutId: string): number {
    return this.rollouts.slotOf.get(rolloutId) ?? -1;
  }

  /** The status of a slot's result; null when not run (or slot −1). */
  statusAt(slot: number): ResultStatus | "unknown" | null {
    const code = slot < 0 ? NOT_RUN : this.status[slot];
    return code === NOT_RUN ? null : (RESULT_STATUSES[code - 1] ?? "unknown");
  }

  /** The reward at a slot (−1: none), or why there is none. */
  rewardAt(slot: number): { reward: number } | { missing: MissingReason } {
    const code = slot < 0 ? NOT_RUN : this.status[slot];
    if (code === OK_STATUS) return { reward: this.reward[slot] };
    return { missing: code === NOT_RUN ? "not_run" : (this.statusAt(slot) as MissingReason) };
  }

  /** The result at a slot as a record; undefined when not run (or slot −1). */
  resultAt(slot: number): CandidateResult | undefined {
    const status = this.statusAt(slot);
    if (status === null) return undefined;
    return {
      reward: orNull(this.reward[slot]),
      status: status as ResultStatus,
      latencyMs: orNull(this.latencyMs[slot]),
      costUsd: orNull(this.costUsd[slot]),
      components: this.components.get(slot) ?? null,
    };
  }
}

const orNull = (x: number) => (Number.isNaN(x) ? null : x);

/** A candidate's results as columns: the loader's own, or those given by rollout id laid out. */
export function columnsOf(results: Candidate["results"]): ResultColumns {
  return results instanceof ResultColumns ? results : ResultColumns.of(results);
}

/** Each item's slot in `rollouts` (−1: none): a candidate's columns read in the items' order. */
export function itemSlots(items: readonly AuditedItem[], rollouts: RolloutSlots): Int32Array {
  return slotsOf(rollouts, items.length, (i) => items[i].rolloutId);
}

/** The slots in `rollouts` of each judgement's left and right rollout (−1: none). */
export function pairSlots(pairwise: readonly PairwiseJudgement[], rollouts: RolloutSlots) {
  return {
    left: slotsOf(rollouts, pairwise.length, (k) => pairwise[k].left),
    right: slotsOf(rollouts, pairwise.length, (k) => pairwise[k].right),
  };
}

function slotsOf(rollouts: RolloutSlots, n: number, rolloutAt: (i: number) => string): Int32Array {
  const slots = new Int32Array(n);
  for (let i = 0; i < n; i++) slots[i] = rollouts.slotOf.get(rolloutAt(i)) ?? -1;
  return slots;
}

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
  /**
   * By rollout id (a rollout with no entry was not run), or the same as columns (ResultColumns: what the loader reads,
   * no object per result). Readers take either through columnsOf.
   */
  results: ResultColumns | Readonly<Record<string, CandidateResult>>;
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
    const results = c.results;
    if (results instanceof ResultColumns) {
      for (let slot = 0; slot < results.status.length; slot++) {
        const problem = slotProblem(results, slot);
        if (problem !== null)
          throw new RangeError(`candidate ${c.id}, rollout ${results.rollouts.ids[slot]}: ${problem}`);
      }
      continue;
    }
    // the results by value, and their rollouts only to name a bad one: a pair array per result (Object.entries), a
    // key string per result (for…in over keys that are numbers) and a message per result were most of this check
    for (const r of Object.values(results))
      if (resultProblem(r) !== null)
        for (const rollout in results) {
          const problem = resultProblem(results[rollout]);
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

/** resultProblem of a slot of columns (NaN: no reward, not measured), read in place. */
function slotProblem(c: ResultColumns, slot: number): string | null {
  const code = c.status[slot];
  if (code === NOT_RUN) return null;
  if (code > RESULT_STATUSES.length) return "unknown status";
  const reward = c.reward[slot];
  if (code === OK_STATUS && !isUnit(reward)) return "an ok result needs a reward in [0, 1]";
  if (code !== OK_STATUS && !Number.isNaN(reward)) return `a ${RESULT_STATUSES[code - 1]} result has no reward`;
  if (!isMeasured(c.latencyMs[slot])) return "latencyMs must be a non-negative number";
  if (!isMeasured(c.costUsd[slot])) return "costUsd must be a non-negative number";
  return null;
}

/** A latency or a cost in columns: not measured (NaN), or a non-negative number. */
const isMeasured = (v: number) => Number.isNaN(v) || (Number.isFinite(v) && v >= 0);
