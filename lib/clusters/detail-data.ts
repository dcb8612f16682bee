// Reads about one cluster (its example rollouts, a sample of its replies, its tickets, cases and reason signatures
// for the backlog export), the runs the page can choose from, and the leads' triage states. Members are always
// selected exactly (sql.ts memberWhere), never from the level-2 sample.
import type { PrismaClient } from "@/lib/generated/prisma/client.ts";
import { db } from "@/lib/db/client.ts";
import type { ClusterKey } from "@/lib/clusters/keys.ts";
import type { ClusterStatus, ClusterWindow } from "@/lib/clusters/schema.ts";
import { HASH_SPACE } from "@/lib/clusters/data.ts";
import { memberWhere } from "@/lib/clusters/sql.ts";

type Client = PrismaClient;

export type ClusterExample = {
  trajectoryId: string;
  step: number;
  ticketId: string;
  reward: number | null;
  rawReward: number | null;
  decidingGuardrail: string | null;
};

/** A member as the examples' queries select it. */
type ExampleRow = {
  trajectory_id: string;
  step: number;
  ticket_id: string;
  reward: number | null;
  raw_reward: number | null;
  deciding_guardrail: string | null;
};

const exampleOf = (r: ExampleRow): ClusterExample => ({
  trajectoryId: r.trajectory_id,
  step: r.step,
  ticketId: r.ticket_id,
  reward: r.reward,
  rawReward: r.raw_reward,
  decidingGuardrail: r.deciding_guardrail,
});

/** A cluster's members with the lowest reward first (ties by ledger id), up to `limit`. */
export async function listClusterExamples(
  w: ClusterWindow,
  key: ClusterKey,
  limit = 5,
  client: Client = db(),
): Promise<ClusterExample[]> {
  // The inner query reads ledger_clusters_idx in (reward, id) order and stops at `limit` members; only those
  // rows are then fetched from the heap for their trajectory id.
  const rows = await client.$queryRaw<ExampleRow[]>`
    select e.trajectory_id, e.step, e.ticket_id, e.reward, e.raw_reward, e.deciding_guardrail
      from (select l.id, l.reward from ledger l where ${memberWhere(w, key)} order by l.reward, l.id limit ${limit}) x
      join ledger e on e.run_id = ${w.runId} and e.id = x.id
     order by x.reward, x.id`;
  return rows.map(exampleOf);
}

export type ClusterReply = { trajectoryId: string; reply: string };

/**
 * Final replies of a uniform sample of about `limit` members (hash of the ledger id below limit / size), for the
 * phrasing groups. `size` is the cluster's size when known (else every member is eligible and the first `limit`
 * in index order are taken).
 */
export async function sampleClusterReplies(
  w: ClusterWindow,
  key: ClusterKey,
  size: number | null,
  limit = 2000,
  client: Client = db(),
): Promise<ClusterReply[]> {
  const below = size && size > limit ? Math.ceil((limit / size) * HASH_SPACE) : HASH_SPACE;
  const rows = await client.$queryRaw<{ trajectory_id: string; final_reply: string }[]>`
    select e.trajectory_id, r.final_reply
      from (select l.id from ledger l where ${memberWhere(w, key)} and (hashint8(l.id) & ${HASH_SPACE - 1}) < ${below}
             limit ${limit}) x
      join ledger e on e.run_id = ${w.runId} and e.id = x.id
      join rollouts r on r.run_id = e.run_id and r.id = e.rollout_id
     order by x.id`;
  return rows.map((r) => ({ trajectoryId: r.trajectory_id, reply: r.final_reply }));
}

export type ClusterTicket = { ticketId: string; category: string | null; rollouts: number; meanReward: number | null };

/** Every ticket with members in the cluster, most members first. */
export async function listClusterTickets(
  w: ClusterWindow,
  key: ClusterKey,
  client: Client = db(),
): Promise<ClusterTicket[]> {
  const rows = await client.$queryRaw<
    { ticket_id: string; category: string | null; n: number; mean_reward: number | null }[]
  >`
    select l.ticket_id, max(l.category) as category, count(*)::int as n, avg(l.reward) as mean_reward
      from ledger l where ${memberWhere(w, key)}
     group by l.ticket_id order by n desc, l.ticket_id`;
  return rows.map((r) => ({ ticketId: r.ticket_id, category: r.category, rollouts: r.n, meanReward: r.mean_reward }));
}

export type SignatureCount = { code: string; tool: string | null; field: string | null; rollouts: number };

/** Every reason signature of the cluster's members with the number of members carrying it (exact). */
export async function listClusterSignatures(
  w: ClusterWindow,
  key: ClusterKey,
  client: Client = db(),
): Promise<SignatureCount[]> {
  const rows = await client.$queryRaw<{ code: string; tool: string | null; field: string | null; n: number }[]>`
    select r.code, r.tool, r.field, count(distinct l.id)::int as n
      from ledger l join ledger_reasons r on r.run_id = l.run_id and r.ledger_id = l.id
     where ${memberWhere(w, key)}
     group by r.code, r.tool, r.field order by n desc, r.code, r.tool nulls first, r.field nulls first`;
  return rows.map((r) => ({ code: r.code, tool: r.tool, field: r.field, rollouts: r.n }));
}

export type CaseRow = {
  ticketId: string;
  category: string;
  ticket: unknown;
  envSnapshot: unknown;
  verifierSpec: unknown;
};

export async function listCases(ticketIds: readonly string[], client: Client = db()): Promise<CaseRow[]> {
  if (!ticketIds.length) return [];
  const rows = await client.case.findMany({
    where: { ticketId: { in: [...ticketIds] } },
    orderBy: { ticketId: "asc" },
  });
  return rows.map((c) => ({
    ticketId: c.ticketId,
    category: c.category,
    ticket: c.ticket,
    envSnapshot: c.envSnapshot,
    verifierSpec: c.verifierSpec,
  }));
}

export type ExportExample = ClusterExample & { finalReply: string | null; reasons: unknown };

/** The `limit` lowest-reward members with their final reply and structured reasons (for the backlog file). */
export async function listExportExamples(
  w: ClusterWindow,
  key: ClusterKey,
  limit = 20,
  client: Client = db(),
): Promise<ExportExample[]> {
  const rows = await client.$queryRaw<(ExampleRow & { final_reply: string | null; reasons: unknown })[]>`
    select e.trajectory_id, e.step, e.ticket_id, e.reward, e.raw_reward, e.deciding_guardrail, r.final_reply, e.reasons
      from (select l.id, l.reward from ledger l where ${memberWhere(w, key)} order by l.reward, l.id limit ${limit}) x
      join ledger e on e.run_id = ${w.runId} and e.id = x.id
      left join rollouts r on r.run_id = e.run_id and r.id = e.rollout_id
     order by x.reward, x.id`;
  return rows.map((r) => ({ ...exampleOf(r), finalReply: r.final_reply, reasons: r.reasons }));
}

export type ClusterRun = { id: string; firstStep: number | null; lastStep: number | null; rollouts: number };

/** Runs for the selector, newest first, with their step range from the rollups (O(steps), no ledger scan). */
export async function listClusterRuns(client: Client = db()): Promise<ClusterRun[]> {
  const rows = await client.$queryRaw<
    { id: string; first_step: number | null; last_step: number | null; rollouts: number | null }[]
  >`
    select r.id, s.first_step, s.last_step, s.rollouts
      from runs r
      -- grouped and joined rather than a lateral per run: on Citus (docs/scale.md) the rollups are on the workers and
      -- runs is a reference table, beside which Citus plans no lateral outer join
      left join (select run_id, min(step) as first_step, max(step) as last_step, sum(rollouts)::int as rollouts
                   from step_rollups where rollouts > 0 group by run_id) s on s.run_id = r.id
     order by r.created_at desc, r.id`;
  return rows.map((r) => ({ id: r.id, firstStep: r.first_step, lastStep: r.last_step, rollouts: r.rollouts ?? 0 }));
}

export async function runExists(runId: string, client: Client = db()): Promise<boolean> {
  return (await client.run.count({ where: { id: runId } })) > 0;
}

export type ClusterStateView = {
  key: string;
  pinned: boolean;
  status: ClusterStatus;
  note: string;
  updatedAt: Date;
  updatedBy: string | null;
};

export async function listClusterStates(runId: string, client: Client = db()): Promise<Map<string, ClusterStateView>> {
  const rows = await client.clusterState.findMany({
    where: { runId },
    include: { updatedBy: { select: { email: true } } },
  });
  return new Map(
    rows.map((s) => [
      s.key,
      {
        key: s.key,
        pinned: s.pinned,
        status: s.status,
        note: s.note,
        updatedAt: s.updatedAt,
        updatedBy: s.updatedBy?.email ?? null,
      },
    ]),
  );
}
