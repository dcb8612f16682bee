// The rollouts a reward function reads, with their cases: loaded by id from the run's partition (with the content
// hash a result is reused by), or one rollout by its trajectory id for Try it.
import crypto from "node:crypto";
import type pg from "pg";
import { CaseCache } from "@/lib/ledger/store/case-cache.ts";
import type { RolloutRowDb } from "@/lib/ledger/store/rows.ts";
import { rolloutFromColumns } from "@/lib/ledger/store/rows.ts";
import type { RewardInput } from "@/lib/rewards/input.ts";

const COLUMNS = `r.id::text as id, r.trajectory_id, r.run_id, r.step, r.group_id, r.sample_index, r.ticket_id, r.steps,
                 r.final_reply, r.sandbox, r.claims, t.tools, r.trained_reward, r.content_hash`;

export type LoadedRollout = {
  id: string;
  trajectoryId: string;
  runId: string;
  step: number;
  ticketId: string;
  input: RewardInput;
  /** sha256 of the rollout's content hash and its case's: what a stored result is reused by. */
  inputHash: string;
};

type Row = RolloutRowDb & { content_hash: string };

function inputHash(rolloutHash: string, caseHash: string | null): string {
  return crypto
    .createHash("sha256")
    .update(`${rolloutHash}:${caseHash ?? "-"}`)
    .digest("hex");
}

async function withCases(q: pg.Pool | pg.PoolClient, rows: Row[], cases: CaseCache): Promise<LoadedRollout[]> {
  await cases.load(
    q,
    rows.map((r) => r.ticket_id),
  );
  return rows.map((r) => {
    const known = cases.get(r.ticket_id);
    return {
      id: r.id,
      trajectoryId: r.trajectory_id,
      runId: r.run_id,
      step: r.step,
      ticketId: r.ticket_id,
      input: { rollout: rolloutFromColumns(r), caseDoc: known?.doc ?? null },
      inputHash: inputHash(r.content_hash, known?.hash ?? null),
    };
  });
}

/** The run's rollouts of these ids, in the order given. */
export async function loadRollouts(
  q: pg.Pool | pg.PoolClient,
  runId: string,
  ids: string[],
  cases: CaseCache,
): Promise<LoadedRollout[]> {
  const { rows } = await q.query<Row>(
    `select ${COLUMNS} from rollouts r join tool_registries t on t.id = r.registry_id
      where r.run_id = $1 and r.id = any($2::bigint[])`,
    [runId, ids],
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  return withCases(
    q,
    ids.flatMap((id) => byId.get(id) ?? []),
    cases,
  );
}

export type RolloutKey = { id: string; step: number; ticketId: string; inputHash: string };

/**
 * The rollouts' keys without their content: what a run needs to decide reuse before it reads a rollout whole (a
 * re-run of a version over a run it already scored reads no rollout JSON at all).
 */
export async function rolloutKeys(
  q: pg.Pool | pg.PoolClient,
  runId: string,
  ids: string[],
  cases: CaseCache,
): Promise<RolloutKey[]> {
  const { rows } = await q.query<{ id: string; step: number; ticket_id: string; content_hash: string }>(
    "select r.id::text as id, r.step, r.ticket_id, r.content_hash from rollouts r where r.run_id = $1 and r.id = any($2::bigint[])",
    [runId, ids],
  );
  await cases.load(
    q,
    rows.map((r) => r.ticket_id),
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => {
    const r = byId.get(id);
    if (!r) return [];
    return [
      {
        id,
        step: r.step,
        ticketId: r.ticket_id,
        inputHash: inputHash(r.content_hash, cases.get(r.ticket_id)?.hash ?? null),
      },
    ];
  });
}

/** One rollout by its trajectory id (the id a user sees), or null. */
export async function loadRolloutByTrajectory(
  q: pg.Pool | pg.PoolClient,
  trajectoryId: string,
): Promise<LoadedRollout | null> {
  const { rows } = await q.query<Row>(
    `select ${COLUMNS} from trajectories j join rollouts r on r.run_id = j.run_id and r.trajectory_id = j.trajectory_id
       join tool_registries t on t.id = r.registry_id where j.trajectory_id = $1`,
    [trajectoryId],
  );
  if (rows.length === 0) return null;
  return (await withCases(q, rows, new CaseCache()))[0];
}
