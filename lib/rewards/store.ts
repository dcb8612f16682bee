// Writing reward results: rows of one page at a time with COPY into reward_results (the run's partition takes them),
// and reading what a run may skip — the latest result of each rollout for the version (035's index
// (version_id, rollout_id, id) inside the run's partition). A probed result (037: a reply with an injected line) is
// not a result of the rollout as it is, so it is never the latest.
import type pg from "pg";
import { copyRows, type CopyValue } from "@/lib/db/copy.ts";
import type { ComponentResult, ResultStatus } from "@/lib/rewards/evaluate.ts";

export type ResultRow = {
  runId: string;
  rewardRunId: number;
  versionId: number;
  rolloutId: string;
  step: number;
  ticketId: string;
  reward: number | null;
  components: ComponentResult[];
  status: ResultStatus;
  error: string | null;
  latencyMs: number;
  judgeTokens: number;
  cost: number;
  inputHash: string;
  /** A probed result's line (lib/rewards/probes.ts); absent for the rollout as it is. */
  probeLine?: string | null;
  /** The result (same run partition) a probed or retested result is compared with. */
  pairedWith?: string | null;
};

export const RESULT_COLUMNS = [
  "run_id",
  "reward_run_id",
  "version_id",
  "rollout_id",
  "step",
  "ticket_id",
  "reward",
  "components",
  "status",
  "error",
  "latency_ms",
  "judge_tokens",
  "cost",
  "input_hash",
  "probe_line",
  "paired_with",
];

export function resultValues(r: ResultRow): CopyValue[] {
  return [
    r.runId,
    r.rewardRunId,
    r.versionId,
    r.rolloutId,
    r.step,
    r.ticketId,
    r.status === "ok" ? r.reward : null,
    JSON.stringify(r.components),
    r.status,
    r.error,
    r.latencyMs,
    r.judgeTokens,
    r.cost,
    r.inputHash,
    r.probeLine ?? null,
    r.pairedWith ?? null,
  ];
}

export async function storeResults(client: pg.PoolClient | pg.Client, rows: ResultRow[]): Promise<void> {
  await copyRows(client, "reward_results", RESULT_COLUMNS, rows.map(resultValues));
}

export type LatestResult = {
  id: string;
  rollout_id: string;
  input_hash: string;
  status: ResultStatus;
  reward_run_id: number;
};

/** The latest stored result of each of the rollouts for the version. */
export async function latestResults(
  q: pg.Pool | pg.PoolClient,
  runId: string,
  versionId: number,
  rolloutIds: string[],
): Promise<Map<string, LatestResult>> {
  const { rows } = await q.query<LatestResult>(
    `select distinct on (x.rollout_id) x.id::text as id, x.rollout_id::text as rollout_id, x.input_hash, x.status,
            x.reward_run_id
       from reward_results x where x.run_id = $1 and x.version_id = $2 and x.rollout_id = any($3::bigint[])
        and x.probe_line is null
      order by x.rollout_id, x.id desc`,
    [runId, versionId, rolloutIds],
  );
  return new Map(rows.map((r) => [r.rollout_id, r]));
}

/**
 * Outcomes a later run of the same version on the same content reuses: a success only. A failure (an endpoint that
 * was down, a sandbox that was missing, a judge that rambled once) is tried again.
 */
export const REUSABLE: ReadonlySet<ResultStatus> = new Set(["ok"]);
