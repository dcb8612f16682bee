// The rollouts a reward run covers, in (step, id) order and in pages: a step range of the run, a reproducible sample
// (the N rollouts whose md5(salt:trajectory id) is smallest: the same N for the same salt whatever else the run
// holds, as the config dry run samples), a shadow-audit batch's items (both rollouts of a pairwise item), one
// ticket's rollouts, or the run's audited rollouts (ticket items a human reviewed), all or a reproducible sample of
// them: what the leaderboard compares, and what a probe or a retest runs on.
import type pg from "pg";
import type { RunScope } from "@/lib/rewards/schema.ts";

const RANGE_MAX = 2_147_483_647;

/** How many rollouts the scope covers. */
export async function scopeTotal(q: pg.Pool | pg.PoolClient, runId: string, scope: RunScope): Promise<number> {
  const sql: Record<RunScope["kind"], [string, unknown[]]> = {
    range: [
      "select count(*)::int as n from rollouts where run_id = $1 and step between $2 and $3",
      [runId, scope.kind === "range" ? (scope.from ?? 0) : 0, scope.kind === "range" ? (scope.to ?? RANGE_MAX) : 0],
    ],
    sample: [
      "select least(count(*), $2)::int as n from rollouts where run_id = $1",
      [runId, scope.kind === "sample" ? scope.n : 0],
    ],
    batch: [batchIdsSql("count(*)::int as n"), [runId, scope.kind === "batch" ? scope.batch : 0]],
    ticket: [
      "select count(*)::int as n from rollouts where run_id = $1 and ticket_id = $2",
      [runId, scope.kind === "ticket" ? scope.ticket : ""],
    ],
    audited: [
      `select least(count(*), $2)::int as n from (${AUDITED_IDS}) x`,
      [runId, scope.kind === "audited" ? (scope.n ?? RANGE_MAX) : 0],
    ],
  };
  const [text, params] = sql[scope.kind];
  const { rows } = await q.query<{ n: number }>(text, params);
  return rows[0].n;
}

/** The run's rollouts of ticket items with at least one review, in any of its batches. */
const AUDITED_IDS = `select distinct i.rollout_id from audit_items i
                      where i.run_id = $1 and i.rollout_b_id is null and i.reviews_done > 0`;

function batchIdsSql(select: string): string {
  return `select ${select} from (
            select rollout_id as id from audit_items where batch_id = $2 and run_id = $1
            union select rollout_b_id from audit_items where batch_id = $2 and run_id = $1 and rollout_b_id is not null) x`;
}

/** The scope's rollout ids (as text), page by page, in (step, id) order for a range and id order otherwise. */
export async function* scopePages(
  q: pg.Pool,
  runId: string,
  scope: RunScope,
  pageSize: number,
): AsyncGenerator<string[]> {
  if (scope.kind === "range") {
    let cursor = { step: -1, id: "0" };
    for (;;) {
      const { rows } = await q.query<{ id: string; step: number }>(
        // Ordered by the columns themselves (r.id), not by the text alias "id", which would sort "10" before "7".
        `select r.id::text as id, r.step from rollouts r where r.run_id = $1 and r.step between $2 and $3
            and (r.step, r.id) > ($4, $5::bigint) order by r.step, r.id limit $6`,
        [runId, scope.from ?? 0, scope.to ?? RANGE_MAX, cursor.step, cursor.id, pageSize],
      );
      if (rows.length === 0) return;
      cursor = rows[rows.length - 1];
      yield rows.map((r) => r.id);
    }
  }
  let ids: string[];
  if (scope.kind === "sample") {
    const { rows } = await q.query<{ id: string }>(
      `select r.id::text as id from rollouts r where r.run_id = $1 order by md5($2 || ':' || r.trajectory_id), r.id limit $3`,
      [runId, scope.salt, scope.n],
    );
    ids = rows.map((r) => r.id);
  } else if (scope.kind === "audited") {
    const { rows } = await q.query<{ id: string }>(
      `select r.id::text as id from rollouts r where r.run_id = $1 and r.id in (${AUDITED_IDS})
        order by md5($2 || ':' || r.trajectory_id), r.id limit $3`,
      [runId, scope.salt, scope.n ?? null],
    );
    ids = rows.map((r) => r.id);
  } else if (scope.kind === "batch") {
    const { rows } = await q.query<{ id: string }>(batchIdsSql("id::text"), [runId, scope.batch]);
    ids = rows.map((r) => r.id);
  } else {
    const { rows } = await q.query<{ id: string }>(
      "select r.id::text as id from rollouts r where r.run_id = $1 and r.ticket_id = $2 order by r.step, r.id",
      [runId, scope.ticket],
    );
    ids = rows.map((r) => r.id);
  }
  ids.sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0));
  for (let i = 0; i < ids.length; i += pageSize) yield ids.slice(i, i + pageSize);
}

/** The scope in words, for the pages and the CLI. */
export function describeScope(scope: RunScope): string {
  switch (scope.kind) {
    case "range":
      return scope.from === undefined && scope.to === undefined
        ? "every step"
        : `steps ${scope.from ?? 0}–${scope.to ?? "end"}`;
    case "sample":
      return `a sample of ${scope.n} (salt ${JSON.stringify(scope.salt)})`;
    case "batch":
      return `batch #${scope.batch}'s items`;
    case "ticket":
      return `ticket ${scope.ticket}`;
    case "audited":
      return scope.n === undefined
        ? "the audited rollouts"
        : `a sample of ${scope.n} audited rollouts (salt ${JSON.stringify(scope.salt)})`;
  }
}
