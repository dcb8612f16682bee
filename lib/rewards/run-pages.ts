// What one page of a reward run evaluates and stores, by the run's kind. A plain run scores each rollout once,
// reusing a stored result of the same content unless fresh. An injection probe (lib/rewards/probes.ts) scores each
// rollout as it is and again with each injected line appended to its final reply, in the same run, so the shift is
// the line's and not the drift between two runs. A retest scores each rollout again, reusing nothing, and pairs it
// with the latest stored result of the same content (a rollout with none, or every one when fresh, is scored twice:
// the stored result is the "cache" a fresh retest ignores). A page's rows are stored
// in one transaction, so a resumed run skips exactly the rollouts it finished.
import type pg from "pg";
import type { CaseCache } from "@/lib/ledger/store/case-cache.ts";
import type { RewardInput } from "@/lib/rewards/input.ts";
import type { RewardOutcome } from "@/lib/rewards/evaluate.ts";
import { PROBE_LINES, probedInput, type ProbeLine } from "@/lib/rewards/probes.ts";
import { loadRollouts, rolloutKeys, type LoadedRollout } from "@/lib/rewards/rollouts.ts";
import { latestResults, REUSABLE, storeResults, type ResultRow } from "@/lib/rewards/store.ts";

export const RUN_KINDS = ["plain", "probe", "retest"] as const;
export type RunKind = (typeof RUN_KINDS)[number];

export type PageContext = {
  pool: pg.Pool;
  run: { id: number; versionId: number; runId: string; fresh: boolean };
  ids: string[];
  cases: CaseCache;
  evaluate: (input: RewardInput) => Promise<RewardOutcome>;
  concurrency: number;
};

export type PageWork = {
  /** Results compared with nothing, or the first of a pair scored in this run: stored first. */
  firsts: ResultRow[];
  /**
   * Results compared with another: pairedWith is a stored result's id, or null for this page's first of the same
   * rollout (its id is known once it is stored).
   */
  seconds: ResultRow[];
  /** Rollouts whose stored result served instead of a new one (a retest's first). */
  reused: number;
  /** Rollouts this page finished, the reused ones included. */
  handled: number;
};

export async function mapLimit<T, R>(items: T[], limit: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < items.length; i = next++) out[i] = await fn(items[i]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return out;
}

function resultRow(ctx: PageContext, r: LoadedRollout, o: RewardOutcome): ResultRow {
  return {
    runId: r.runId,
    rewardRunId: ctx.run.id,
    versionId: ctx.run.versionId,
    rolloutId: r.id,
    step: r.step,
    ticketId: r.ticketId,
    reward: o.reward,
    components: o.components,
    status: o.status,
    error: o.error,
    latencyMs: o.latencyMs,
    judgeTokens: o.judgeTokens,
    cost: o.cost,
    inputHash: r.inputHash,
  };
}

async function load(ctx: PageContext, ids: string[]): Promise<LoadedRollout[]> {
  return ids.length ? loadRollouts(ctx.pool, ctx.run.runId, ids, ctx.cases) : [];
}

/** Each rollout once; a stored ok result of the same content is reused unless the run is fresh. */
async function plainPage(ctx: PageContext): Promise<PageWork> {
  const { run } = ctx;
  const latest = await latestResults(ctx.pool, run.runId, run.versionId, ctx.ids);
  const keys = await rolloutKeys(ctx.pool, run.runId, ctx.ids, ctx.cases);
  const todoKeys = keys.filter((k) => {
    const l = latest.get(k.id);
    if (!l) return true;
    if (l.reward_run_id === run.id) return false;
    return run.fresh || l.input_hash !== k.inputHash || !REUSABLE.has(l.status);
  });
  const todo = await load(
    ctx,
    todoKeys.map((k) => k.id),
  );
  const reused = keys.filter((k) => latest.get(k.id)?.reward_run_id !== run.id).length - todoKeys.length;
  const outcomes = await mapLimit(todo, ctx.concurrency, (r) => ctx.evaluate(r.input));
  return {
    firsts: todo.map((r, i) => resultRow(ctx, r, outcomes[i])),
    seconds: [],
    reused,
    handled: todo.length + reused,
  };
}

/** The rollouts of the page this run has not finished (its rows of a page are stored together). */
async function unfinished(ctx: PageContext) {
  const latest = await latestResults(ctx.pool, ctx.run.runId, ctx.run.versionId, ctx.ids);
  return { latest, ids: ctx.ids.filter((id) => latest.get(id)?.reward_run_id !== ctx.run.id) };
}

/** Each rollout as it is, then with each line appended to its final reply, each probed result paired with the first. */
async function probePage(ctx: PageContext, lines: readonly ProbeLine[]): Promise<PageWork> {
  const todo = await load(ctx, (await unfinished(ctx)).ids);
  const jobs = todo.flatMap((r) => [{ r, line: null }, ...lines.map((line) => ({ r, line }))]);
  const outcomes = await mapLimit(jobs, ctx.concurrency, (j) =>
    ctx.evaluate(j.line ? probedInput(j.r.input, j.line) : j.r.input),
  );
  const work: PageWork = { firsts: [], seconds: [], reused: 0, handled: todo.length };
  jobs.forEach((j, i) => {
    const row = resultRow(ctx, j.r, outcomes[i]);
    if (j.line) work.seconds.push({ ...row, probeLine: j.line.id, pairedWith: null });
    else work.firsts.push(row);
  });
  return work;
}

/**
 * Each rollout scored again, reusing nothing, paired with the latest stored result of the same content (whatever its
 * status: a failure on either side is counted apart by the report); a rollout without one, or every rollout of a
 * fresh retest, is scored twice.
 */
async function retestPage(ctx: PageContext): Promise<PageWork> {
  const { latest, ids } = await unfinished(ctx);
  const keys = await rolloutKeys(ctx.pool, ctx.run.runId, ids, ctx.cases);
  const firstOf = new Map<string, string>();
  for (const k of keys) {
    const l = latest.get(k.id);
    if (l && l.input_hash === k.inputHash && !ctx.run.fresh) firstOf.set(k.id, l.id);
  }
  const todo = await load(
    ctx,
    keys.map((k) => k.id),
  );
  const jobs = todo.flatMap((r) =>
    firstOf.has(r.id)
      ? [{ r, second: true }]
      : [
          { r, second: false },
          { r, second: true },
        ],
  );
  const outcomes = await mapLimit(jobs, ctx.concurrency, (j) => ctx.evaluate(j.r.input));
  const work: PageWork = { firsts: [], seconds: [], reused: firstOf.size, handled: todo.length };
  jobs.forEach((j, i) => {
    const row = resultRow(ctx, j.r, outcomes[i]);
    if (j.second) work.seconds.push({ ...row, pairedWith: firstOf.get(j.r.id) ?? null });
    else work.firsts.push(row);
  });
  return work;
}

export function evaluatePage(kind: RunKind, ctx: PageContext): Promise<PageWork> {
  if (kind === "probe") return probePage(ctx, PROBE_LINES);
  if (kind === "retest") return retestPage(ctx);
  return plainPage(ctx);
}

/** Stores the firsts, then the seconds with the ids of the firsts they pair with (inside the caller's transaction). */
export async function storePage(client: pg.PoolClient, rewardRunId: number, work: PageWork): Promise<void> {
  await storeResults(client, work.firsts);
  const open = work.seconds.filter((r) => r.pairedWith === null);
  if (open.length) {
    const { rows } = await client.query<{ id: string; rollout_id: string }>(
      `select x.id::text as id, x.rollout_id::text as rollout_id from reward_results x
        where x.run_id = $1 and x.reward_run_id = $2 and x.paired_with is null and x.rollout_id = any($3::bigint[])`,
      [open[0].runId, rewardRunId, [...new Set(open.map((r) => r.rolloutId))]],
    );
    const firstIds = new Map(rows.map((r) => [r.rollout_id, r.id]));
    for (const r of open) {
      const first = firstIds.get(r.rolloutId);
      if (!first)
        throw new Error(`reward run #${rewardRunId}: rollout ${r.rolloutId} has no first result to pair with`);
      r.pairedWith = first;
    }
  }
  await storeResults(client, work.seconds);
}
