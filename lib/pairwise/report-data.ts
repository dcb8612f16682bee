// Reads of the pairwise report: every judged pair of one run's pairwise batches (or of one batch), with both
// rollouts' ledger entries as recorded on the pair and as they are now, every current judgement and the pair's
// current adjudication. Leads, admins and researchers only (the pages and routes ask for "ledger.read" first): this
// carries ledger rewards. One run's partition; a pairwise sample is thousands of pairs, and the read stops at
// MAX_REPORT_PAIRS (the report then says it is truncated).
import { CURRENT_ADJUDICATION } from "@/lib/audit/adjudication-data.ts";
import { DEFAULT_DELTA } from "@/lib/audit/pair-sampler.ts";
import type { Db } from "@/lib/db/client.ts";
import { readDb } from "@/lib/db/read-client.ts";
import { rows as rowsOf } from "@/lib/db/rows.ts";
import { currentLedgerOfItems } from "@/lib/defects/agreement-now.ts";
import { Prisma } from "@/lib/generated/prisma/client.ts";
import type { PairReportFilter } from "@/lib/pairwise/report-schema.ts";

export const MAX_REPORT_PAIRS = 20_000;

/** One rollout's ledger entry, reduced to what ordering needs. */
export type PairLedger = { ledgerId: bigint; reward: number | null; decidingGuardrail: string | null };

export type PairJudgementRow = {
  reviewId: bigint;
  reviewerId: number;
  reviewerEmail: string;
  choice: "left" | "right" | "tie";
  /** The rollout preferred (null for a tie). */
  preferredTrajectoryId: string | null;
  reason: string | null;
  /** Why it does not count (lib/review/blind.ts); null: it counts. */
  excludedReason: string | null;
  createdAt: Date;
};

export type PairSideRow = { trajectoryId: string; reviewed: PairLedger; now: PairLedger | null };

export type PairReportItem = {
  itemId: bigint;
  batchId: number;
  ticketId: string;
  step: number;
  category: string | null;
  /** The pair's deciding guardrails, most severe first ("empty_promise+none"). */
  stratum: string | null;
  inclusionProb: number;
  bOnLeft: boolean;
  disputedAt: Date | null;
  a: PairSideRow;
  b: PairSideRow;
  /** Current judgements (none superseded), oldest first, counted or not. */
  judgements: PairJudgementRow[];
  adjudication: { cause: string; guardrail: string | null } | null;
};

export type PairReportScope = {
  runId: string;
  batch: { id: number; name: string; delta: number | null } | null;
  /** The pairwise batches of the scope (one when a batch is named). */
  batches: { id: number; name: string }[];
  /** δ of the gap bins: the batch's, or the run's batches' when they share one, else the default. */
  delta: number;
};

export type PairReportData =
  | { ok: true; scope: PairReportScope; items: PairReportItem[]; truncated: boolean }
  | { ok: false; status: 400 | 404; error: string };

const toLedger = (l: { id: bigint; reward: number | null; decidingGuardrail: string | null }): PairLedger => ({
  ledgerId: l.id,
  reward: l.reward,
  decidingGuardrail: l.decidingGuardrail,
});

/** The scope named by the filter: a pairwise batch (its run implied), or a run with its pairwise batches. */
async function resolveScope(f: PairReportFilter, client: Db): Promise<PairReportData | PairReportScope> {
  if (f.batch !== undefined) {
    const b = await client.auditBatch.findUnique({
      where: { id: f.batch },
      select: { id: true, name: true, runId: true, kind: true, delta: true },
    });
    if (!b) return { ok: false, status: 404, error: `batch: no audit batch #${f.batch}` };
    if (b.kind !== "pairwise")
      return { ok: false, status: 400, error: `batch: #${f.batch} is a tickets batch; its report is /agreement` };
    if (f.run !== undefined && f.run !== b.runId)
      return { ok: false, status: 400, error: `run: batch #${f.batch} is of run ${b.runId}, not ${f.run}` };
    return {
      runId: b.runId,
      batch: { id: b.id, name: b.name, delta: b.delta },
      batches: [{ id: b.id, name: b.name }],
      delta: b.delta ?? DEFAULT_DELTA,
    };
  }
  const runId = f.run!;
  const run = await client.run.findUnique({ where: { id: runId }, select: { id: true } });
  if (!run) return { ok: false, status: 404, error: `run: no run ${runId}` };
  const batches = await client.auditBatch.findMany({
    where: { runId, kind: "pairwise" },
    orderBy: { id: "asc" },
    select: { id: true, name: true, delta: true },
  });
  const deltas = new Set(batches.map((b) => b.delta ?? DEFAULT_DELTA));
  return {
    runId,
    batch: null,
    batches: batches.map((b) => ({ id: b.id, name: b.name })),
    delta: deltas.size === 1 ? [...deltas][0] : DEFAULT_DELTA,
  };
}

export type PairLoadOptions = {
  /**
   * false: the rollouts' current entries are not looked up (each side's `now` is null, as for a rollout without one):
   * for a reader of the judgements and the entries recorded on the pairs alone (the reward leaderboard). Each lookup
   * reads the full entries of every pair's rollout.
   */
  current?: boolean;
};

/** Every judged pair of the scope, oldest item first, with both ledgers of each rollout. */
export async function loadPairReportItems(
  f: PairReportFilter,
  client: Db = readDb(),
  options: PairLoadOptions = {},
): Promise<PairReportData> {
  const scope = await resolveScope(f, client);
  if ("ok" in scope) return scope;
  const ledgerSelect = { id: true, reward: true, decidingGuardrail: true, step: true, category: true } as const;
  const rows = await client.auditItem.findMany({
    where: {
      runId: scope.runId,
      rolloutBId: { not: null },
      ...(scope.batch ? { batchId: scope.batch.id } : {}),
      pairReviews: { some: { supersededBy: { is: null } } },
    },
    orderBy: { id: "asc" },
    take: MAX_REPORT_PAIRS + 1,
    select: {
      id: true,
      batchId: true,
      ticketId: true,
      stratum: true,
      inclusionProb: true,
      bOnLeft: true,
      disputedAt: true,
      rolloutId: true,
      rolloutBId: true,
      trajectoryId: true,
      trajectoryBId: true,
      ledger: { select: ledgerSelect },
      ledgerB: { select: ledgerSelect },
      pairReviews: {
        where: { supersededBy: { is: null } },
        orderBy: { id: "asc" },
        select: {
          id: true,
          reviewerId: true,
          choice: true,
          preferredTrajectoryId: true,
          reason: true,
          excludedReason: true,
          createdAt: true,
          reviewer: { select: { email: true } },
        },
      },
      adjudications: {
        where: CURRENT_ADJUDICATION,
        orderBy: { id: "desc" },
        take: 1,
        select: { cause: true, guardrail: true },
      },
    },
  });
  const truncated = rows.length > MAX_REPORT_PAIRS;
  const kept = truncated ? rows.slice(0, MAX_REPORT_PAIRS) : rows;
  const current = options.current ?? true;
  const [nowA, nowB] = await Promise.all([
    current &&
      currentLedgerOfItems(
        kept.map((r) => ({ itemId: r.id, runId: scope.runId, rolloutId: r.rolloutId, trajectoryId: r.trajectoryId })),
        client,
      ),
    current &&
      currentLedgerOfItems(
        kept.map((r) => ({
          itemId: r.id,
          runId: scope.runId,
          rolloutId: r.rolloutBId!,
          trajectoryId: r.trajectoryBId!,
        })),
        client,
      ),
  ]);
  const now = (l: { ledgerId: bigint; reward: number | null; decidingGuardrail: string | null } | undefined) =>
    l ? { ledgerId: l.ledgerId, reward: l.reward, decidingGuardrail: l.decidingGuardrail } : null;
  const items = kept.map((r): PairReportItem => ({
    itemId: r.id,
    batchId: r.batchId,
    ticketId: r.ticketId,
    step: r.ledger.step,
    category: r.ledger.category,
    stratum: r.stratum,
    inclusionProb: r.inclusionProb,
    bOnLeft: r.bOnLeft!,
    disputedAt: r.disputedAt,
    a: { trajectoryId: r.trajectoryId, reviewed: toLedger(r.ledger), now: nowA ? now(nowA.get(r.id)) : null },
    b: { trajectoryId: r.trajectoryBId!, reviewed: toLedger(r.ledgerB!), now: nowB ? now(nowB.get(r.id)) : null },
    judgements: r.pairReviews.map((p) => ({
      reviewId: p.id,
      reviewerId: p.reviewerId,
      reviewerEmail: p.reviewer.email,
      choice: p.choice as PairJudgementRow["choice"],
      preferredTrajectoryId: p.preferredTrajectoryId,
      reason: p.reason,
      excludedReason: p.excludedReason,
      createdAt: p.createdAt,
    })),
    adjudication: r.adjudications[0] ?? null,
  }));
  return { ok: true, scope, items, truncated };
}

/** A judged pair's first counted judgement, with the pair's two rollouts and the GRPO group of the first. */
export type PrimaryJudgement = {
  itemId: bigint;
  /** The step of the pair's (first rollout's) ledger entry, as PairReportItem.step. */
  step: number;
  rolloutA: string;
  rolloutB: string;
  groupId: string;
  trajectoryA: string;
  inclusionProb: number;
  /** The rollout the judgement preferred; null for a tie. */
  preferredTrajectoryId: string | null;
};

/**
 * The first counted judgement (excludedReason null, oldest first) of each of a run's judged pairs, as
 * loadPairReportItems reads them — the same pairs (a current judgement, counted or not; the first MAX_REPORT_PAIRS
 * by id) and the same first judgement — with the pairs' rollouts; a pair whose judgements none count is left out. For a
 * reader of the judgements alone (the reward leaderboard): a statement on the audit's tables, then one for the pairs'
 * steps and one for their groups (at once), where the report's read loads the pairs' entries, reviewers and
 * adjudications through Prisma (a tenth of the leaderboard's read at 1,800 pairs). Apart, because on Citus
 * (docs/scale.md) the audit's tables stay on the coordinator and the ledger and rollouts are on the run's worker: one
 * statement joining them cannot be planned.
 */
export async function loadPrimaryJudgements(runId: string, client: Db = readDb()): Promise<PrimaryJudgement[]> {
  const current = (p: string) =>
    Prisma.raw(`not exists (select 1 from pair_reviews s where s.supersedes_id = ${p}.id)`);
  const judged = await rowsOf<Omit<PrimaryJudgement, "step" | "groupId"> & { ledgerId: string }>(
    client,
    Prisma.sql`
    with pairs as materialized (
      select i.id, i.ledger_id, i.rollout_id, i.rollout_b_id, i.trajectory_id, i.inclusion_prob from audit_items i
       where i.run_id = ${runId} and i.rollout_b_id is not null
         and exists (select 1 from pair_reviews p where p.item_id = i.id and ${current("p")})
       order by i.id limit ${MAX_REPORT_PAIRS})
    select pr.id as "itemId", pr.ledger_id::text as "ledgerId", pr.rollout_id::text as "rolloutA",
           pr.rollout_b_id::text as "rolloutB", pr.trajectory_id as "trajectoryA", pr.inclusion_prob as "inclusionProb",
           j.preferred_trajectory_id as "preferredTrajectoryId"
      from pairs pr
      -- the first counted judgement: a pair without one is left out (after the limit, as the report counts pairs)
      cross join lateral (
        select p.preferred_trajectory_id from pair_reviews p
         where p.item_id = pr.id and p.excluded_reason is null and ${current("p")}
         order by p.id limit 1) j
     order by pr.id`,
  );
  if (judged.length === 0) return [];
  const [steps, groupOf] = await Promise.all([
    rowsOf<{ id: string; step: number }>(
      client,
      Prisma.sql`select l.id::text as id, l.step from ledger l
                  where l.run_id = ${runId} and l.id = any(${judged.map((j) => j.ledgerId)}::bigint[])`,
    ),
    rolloutGroups(
      runId,
      judged.map((j) => j.rolloutA),
      client,
    ),
  ]);
  const stepOf = new Map(steps.map((r) => [r.id, r.step]));
  const out: PrimaryJudgement[] = [];
  for (const { ledgerId, ...j } of judged) {
    const step = stepOf.get(ledgerId);
    const groupId = groupOf.get(j.rolloutA);
    // as the joins they stand for: a pair whose entry or rollout is gone is left out
    if (step !== undefined && groupId !== undefined) out.push({ ...j, step, groupId });
  }
  return out;
}

/** The GRPO group of each of a run's rollouts, by the rollout's id (one statement on the run's rollouts). */
export async function rolloutGroups(runId: string, rolloutIds: string[], client: Db): Promise<Map<string, string>> {
  if (rolloutIds.length === 0) return new Map();
  const found = await rowsOf<{ id: string; group_id: string }>(
    client,
    Prisma.sql`select ro.id::text as id, ro.group_id from rollouts ro
                where ro.run_id = ${runId} and ro.id = any(${rolloutIds}::bigint[])`,
  );
  return new Map(found.map((r) => [r.id, r.group_id]));
}
