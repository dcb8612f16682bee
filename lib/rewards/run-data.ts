// Reads of reward runs and their results: a run's progress (with rate and ETA from its own timestamps), the runs of
// a version or a training run, newest first, and a run's results a page at a time by id.
import type pg from "pg";
import type { RunScope } from "@/lib/rewards/schema.ts";
import { STALE_HEARTBEAT_SECONDS } from "@/lib/rewards/runs.ts";
import type { ComponentResult, ResultStatus } from "@/lib/rewards/evaluate.ts";
import type { RunKind } from "@/lib/rewards/run-pages.ts";

export type RewardRunRow = {
  id: number;
  versionId: number;
  functionName: string;
  version: number;
  runId: string;
  scope: RunScope;
  status: "running" | "done" | "cancelled" | "failed";
  /** A running run whose heartbeat stopped: its process died; starting it again resumes it. */
  interrupted: boolean;
  cancelRequested: boolean;
  done: number;
  total: number;
  reused: number;
  failed: number;
  judgeTokens: number;
  cost: number;
  fresh: boolean;
  /** plain, probe (the injection probe) or retest. */
  kind: RunKind;
  error: string | null;
  author: string | null;
  startedAt: Date;
  finishedAt: Date | null;
  /** Rollouts per second since the start (to the finish, or the last heartbeat). */
  rate: number;
  etaSeconds: number | null;
};

type Raw = {
  id: number;
  version_id: number;
  name: string;
  version: number;
  run_id: string;
  scope: RunScope;
  status: RewardRunRow["status"];
  stale: boolean;
  cancel: boolean;
  done: number;
  total: number;
  reused: number;
  failed: number;
  judge_tokens: string;
  cost: number;
  fresh: boolean;
  kind: RunKind;
  error: string | null;
  email: string | null;
  started_at: Date;
  finished_at: Date | null;
  heartbeat_at: Date;
};

const SELECT = `select r.id, r.version_id, f.name, v.version, r.run_id, r.scope, r.status,
       r.status = 'running' and r.heartbeat_at < now() - make_interval(secs => ${STALE_HEARTBEAT_SECONDS}) as stale,
       r.cancel_requested_at is not null as cancel, r.done, r.total, r.reused, r.failed, r.judge_tokens::text, r.cost,
       r.fresh, r.kind, r.error, u.email, r.started_at, r.finished_at, r.heartbeat_at
  from reward_runs r join reward_function_versions v on v.id = r.version_id join reward_functions f on f.id = v.function_id
  left join users u on u.id = r.created_by_id`;

function toRow(r: Raw): RewardRunRow {
  const end = (r.finished_at ?? r.heartbeat_at).getTime();
  const seconds = Math.max(0.001, (end - r.started_at.getTime()) / 1000);
  const rate = r.done / seconds;
  return {
    id: r.id,
    versionId: r.version_id,
    functionName: r.name,
    version: r.version,
    runId: r.run_id,
    scope: r.scope,
    status: r.status,
    interrupted: r.stale,
    cancelRequested: r.cancel,
    done: r.done,
    total: r.total,
    reused: r.reused,
    failed: r.failed,
    judgeTokens: Number(r.judge_tokens),
    cost: r.cost,
    fresh: r.fresh,
    kind: r.kind,
    error: r.error,
    author: r.email,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    rate,
    etaSeconds: r.status === "running" && rate > 0 ? (r.total - r.done) / rate : null,
  };
}

export async function rewardRun(q: pg.Pool, id: number): Promise<RewardRunRow | null> {
  const { rows } = await q.query<Raw>(`${SELECT} where r.id = $1`, [id]);
  return rows.length ? toRow(rows[0]) : null;
}

/** Newest first, `limit` at most, before the cursor id (keyset). */
export async function listRewardRuns(
  q: pg.Pool,
  filter: { functionName?: string; runId?: string; before?: number; limit?: number } = {},
): Promise<RewardRunRow[]> {
  const { rows } = await q.query<Raw>(
    `${SELECT} where ($1::text is null or f.name = $1) and ($2::text is null or r.run_id = $2)
        and ($3::int is null or r.id < $3) order by r.id desc limit $4`,
    [filter.functionName ?? null, filter.runId ?? null, filter.before ?? null, filter.limit ?? 50],
  );
  return rows.map(toRow);
}

export type StoredResult = {
  id: string;
  rolloutId: string;
  trajectoryId: string | null;
  step: number;
  ticketId: string;
  reward: number | null;
  status: ResultStatus;
  error: string | null;
  components: ComponentResult[];
  latencyMs: number;
  judgeTokens: number;
  cost: number;
};

/** A run's results in id order after the cursor, with each rollout's trajectory id. */
export async function runResults(
  q: pg.Pool,
  run: { id: number; runId: string },
  opts: { after?: string; limit?: number } = {},
): Promise<StoredResult[]> {
  const { rows } = await q.query(
    `select x.id::text, x.rollout_id::text, o.trajectory_id, x.step, x.ticket_id, x.reward, x.status, x.error,
            x.components, x.latency_ms, x.judge_tokens, x.cost
       from reward_results x left join rollouts o on o.run_id = x.run_id and o.id = x.rollout_id
      where x.run_id = $1 and x.reward_run_id = $2 and x.id > $3::bigint order by x.id limit $4`,
    [run.runId, run.id, opts.after ?? "0", opts.limit ?? 100],
  );
  return rows.map((r) => ({
    id: r.id,
    rolloutId: r.rollout_id,
    trajectoryId: r.trajectory_id,
    step: r.step,
    ticketId: r.ticket_id,
    reward: r.reward,
    status: r.status,
    error: r.error,
    components: r.components,
    latencyMs: r.latency_ms,
    judgeTokens: r.judge_tokens,
    cost: r.cost,
  }));
}
