// Reads of the shadow audit for leads: the sampling population, batches and their progress per annotator.
// Nothing here is shown to annotators (the blind queue reads through lib/review/leases.ts and lib/review/loaders.ts).
import type { ResolvedBatchParams } from "@/lib/audit/schema.ts";
import { sampleBatch, type PopulationRow, type SampleResult } from "@/lib/audit/sampler.ts";
import { db, type Db } from "@/lib/db/client.ts";
import { Prisma } from "@/lib/generated/prisma/client.ts";
import { browseConditions, queryKind } from "@/lib/ledger/browse.ts";
import { withSearchTimeout } from "@/lib/search/data.ts";

/** A population row with what the pairwise sampler also needs (its GRPO group and its ledger reward). */
export type PopulationEntry = PopulationRow & {
  ledgerId: bigint;
  rolloutId: bigint;
  step: number;
  groupId: string | null;
  reward: number;
};
export type Population = { rows: PopulationEntry[]; excluded: number };

/**
 * The current ledger entries of a run's step window that can be shadow-scored: with a reward (a spec or input
 * error has nothing to compare with) and with their rollout stored (an external record without one has nothing to
 * show). Walks the run partition's (step, id) index (020). One row per rollout, a few dozen bytes each. `matching`,
 * when given, is a condition on the entry `l` that narrows the window to a search's matches (populationFilter).
 */
export async function loadPopulation(
  runId: string,
  stepFrom: number,
  stepTo: number,
  client: Db = db(),
  matching: Prisma.Sql = Prisma.sql`true`,
): Promise<Population> {
  const rows = await client.$queryRaw<
    {
      ledger_id: bigint;
      rollout_id: bigint | null;
      trajectory_id: string;
      ticket_id: string;
      deciding_guardrail: string | null;
      step: number;
      group_id: string | null;
      reward: number | null;
      scorable: boolean;
    }[]
  >`
    select l.id as ledger_id, l.rollout_id, l.trajectory_id, l.ticket_id, l.deciding_guardrail, l.step, l.group_id,
           l.reward,
           (l.reward is not null and l.rollout_id is not null) as scorable
      from ledger l
     where l.run_id = ${runId} and l.step between ${stepFrom} and ${stepTo} and l.is_current and ${matching}`;
  const out: PopulationEntry[] = [];
  let excluded = 0;
  for (const r of rows) {
    if (!r.scorable) {
      excluded++;
      continue;
    }
    out.push({
      ledgerId: BigInt(r.ledger_id),
      rolloutId: BigInt(r.rollout_id!),
      trajectoryId: r.trajectory_id,
      ticketId: r.ticket_id,
      decidingGuardrail: r.deciding_guardrail,
      step: r.step,
      groupId: r.group_id,
      reward: r.reward!,
    });
  }
  return { rows: out, excluded };
}

export type BatchPreview = {
  population: { tickets: number; rollouts: number; excluded: number };
  sample: SampleResult<PopulationEntry>;
};

/**
 * The condition on the entry `l` of a batch drawn from the trajectory browser's matches ("Audit these"): the
 * browser's own conditions (search box included) in the batch's run, so the population is exactly the rows the
 * browser lists inside the batch's window. Every entry when the batch has no filter.
 */
export async function populationFilter(
  p: ResolvedBatchParams,
  client: Db,
): Promise<{ matching: Prisma.Sql; search: boolean }> {
  if (!p.filter) return { matching: Prisma.sql`true`, search: false };
  const filter = { ...p.filter, run: p.runId };
  const q = await queryKind(filter, client);
  return { matching: Prisma.join(browseConditions(filter, { q }), " and "), search: q?.kind === "search" };
}

/**
 * The sample that creating the batch would draw (the sampler is deterministic, so preview and create agree). A
 * search in the batch's filters that its statement timeout stops is thrown as SearchTimeoutError.
 */
export async function previewBatch(p: ResolvedBatchParams, client: Db = db()): Promise<BatchPreview> {
  const { matching, search } = await populationFilter(p, client);
  const load = (c: Db) => loadPopulation(p.runId, p.stepFrom, p.stepTo, c, matching);
  // a search reads under its statement timeout, as the browser's reads do (stopped: SearchTimeoutError)
  const pop = search && "$connect" in client ? await withSearchTimeout(client, load) : await load(client);
  const sample = sampleBatch(pop.rows, {
    rate: p.rate,
    salt: p.salt,
    pick: p.pick,
    minPerStratum: p.minPerStratum ?? null,
    overlapRate: p.overlapRate,
  });
  return { population: { ...sample.population, excluded: pop.excluded }, sample };
}

export type RunWindow = { id: string; firstStep: number | null; lastStep: number | null };

/** Runs per statement of listRunWindows: each branch binds three parameters, and a statement holds at most 65,535. */
export const RUN_WINDOWS_PER_STATEMENT = 1000;

/**
 * Runs with their first and last ledger step (two index probes per run), for the batch form. Each run's probes are a
 * branch of their own naming the run (a UNION ALL, not subqueries correlated with runs): on Citus (docs/scale.md)
 * each branch is read on the worker that holds the run, where a subquery from runs, a reference table, into the
 * ledger cannot be planned. `perStatement` runs' branches go in one statement (a console of many runs reads them in
 * several).
 */
export async function listRunWindows(
  client: Db = db(),
  perStatement = RUN_WINDOWS_PER_STATEMENT,
): Promise<RunWindow[]> {
  const runs = await client.$queryRaw<{ id: string }[]>`select id from runs order by created_at desc, id`;
  const window = (run: string) => Prisma.sql`(
    select ${run}::text as id,
           (select l.step from ledger l where l.run_id = ${run} order by l.step asc limit 1) as first_step,
           (select l.step from ledger l where l.run_id = ${run} order by l.step desc limit 1) as last_step)`;
  const byRun = new Map<string, { first_step: number | null; last_step: number | null }>();
  for (let i = 0; i < runs.length; i += perStatement) {
    const rows = await client.$queryRaw<{ id: string; first_step: number | null; last_step: number | null }[]>`
      select w.id, w.first_step, w.last_step from (${Prisma.join(
        runs.slice(i, i + perStatement).map((r) => window(r.id)),
        " union all ",
      )}) w`;
    for (const r of rows) byRun.set(r.id, r);
  }
  return runs.map(({ id }) => ({
    id,
    firstStep: byRun.get(id)?.first_step ?? null,
    lastStep: byRun.get(id)?.last_step ?? null,
  }));
}

export type BatchSummary = {
  id: number;
  name: string;
  /** "tickets" or "pairwise" (017). */
  kind: string;
  runId: string;
  stepFrom: number;
  stepTo: number;
  rate: number;
  pick: string;
  tolerance: number;
  createdAt: Date;
  items: number;
  done: number;
  reviews: number;
  reviewsNeeded: number;
  overlapItems: number;
  leasedNow: number;
  disputed: number;
  adjudicated: number;
};

/** Every shadow-audit batch with its progress, newest first. */
export async function listBatchSummaries(now = new Date(), client: Db = db()): Promise<BatchSummary[]> {
  const rows = await client.$queryRaw<
    {
      id: number;
      name: string;
      kind: string;
      run_id: string;
      step_from: number;
      step_to: number;
      rate: number;
      pick: string;
      tolerance: number;
      created_at: Date;
      items: bigint;
      done: bigint;
      reviews: bigint;
      needed: bigint;
      overlap: bigint;
      leased: bigint;
      disputed: bigint;
      adjudicated: bigint;
    }[]
  >`
    select b.id, b.name, b.kind, b.run_id, b.step_from, b.step_to, b.rate, b.pick, b.tolerance, b.created_at,
           coalesce(i.items, 0) as items, coalesce(i.done, 0) as done, coalesce(i.reviews, 0) as reviews,
           coalesce(i.needed, 0) as needed, coalesce(i.overlap, 0) as overlap, coalesce(i.leased, 0) as leased,
           coalesce(i.disputed, 0) as disputed, coalesce(i.adjudicated, 0) as adjudicated
      from audit_batches b
      left join lateral (
        select count(*) as items,
               count(*) filter (where status = 'done') as done,
               sum(reviews_done) as reviews,
               sum(reviews_needed) as needed,
               count(*) filter (where reviews_needed > 1) as overlap,
               count(*) filter (where status = 'open' and lease_user_id is not null and lease_expires_at > ${now}) as leased,
               count(*) filter (where disputed_at is not null) as disputed,
               count(*) filter (where exists (select 1 from adjudications a where a.item_id = audit_items.id)) as adjudicated
          from audit_items where batch_id = b.id
      ) i on true
     order by b.created_at desc, b.id desc`;
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    kind: r.kind,
    runId: r.run_id,
    stepFrom: r.step_from,
    stepTo: r.step_to,
    rate: r.rate,
    pick: r.pick,
    tolerance: r.tolerance,
    createdAt: r.created_at,
    items: Number(r.items),
    done: Number(r.done),
    reviews: Number(r.reviews),
    reviewsNeeded: Number(r.needed),
    overlapItems: Number(r.overlap),
    leasedNow: Number(r.leased),
    disputed: Number(r.disputed),
    adjudicated: Number(r.adjudicated),
  }));
}

export type AnnotatorProgress = {
  batchId: number;
  userId: number;
  email: string;
  reviews: number;
  leasedNow: number;
  medianSeconds: number | null;
  lastAt: Date | null;
};

/**
 * Per batch and annotator: reviews submitted (ticket reviews and pair judgements alike, current ones), items held
 * right now, median time per review, last activity.
 */
export async function listAnnotatorProgress(now = new Date(), client: Db = db()): Promise<AnnotatorProgress[]> {
  const rows = await client.$queryRaw<
    {
      batch_id: number;
      user_id: number;
      email: string;
      reviews: bigint;
      leased: bigint;
      median_seconds: number | null;
      last_at: Date | null;
    }[]
  >`
    with submitted as (
      select r.item_id, r.reviewer_id, r.seconds_spent, r.created_at from reviews r
       where not exists (select 1 from reviews s where s.supersedes_id = r.id)
      union all
      select p.item_id, p.reviewer_id, p.seconds_spent, p.created_at from pair_reviews p
       where not exists (select 1 from pair_reviews s where s.supersedes_id = p.id)
    ), r as (
      select i.batch_id, r.reviewer_id as user_id, count(*) as reviews,
             percentile_cont(0.5) within group (order by r.seconds_spent) as median_seconds, max(r.created_at) as last_at
        from submitted r join audit_items i on i.id = r.item_id
       group by i.batch_id, r.reviewer_id
    ), l as (
      select batch_id, lease_user_id as user_id, count(*) as leased
        from audit_items
       where status = 'open' and lease_user_id is not null and lease_expires_at > ${now}
       group by batch_id, lease_user_id
    )
    select coalesce(r.batch_id, l.batch_id) as batch_id, coalesce(r.user_id, l.user_id) as user_id, u.email,
           coalesce(r.reviews, 0) as reviews, coalesce(l.leased, 0) as leased, r.median_seconds, r.last_at
      from r full join l on l.batch_id = r.batch_id and l.user_id = r.user_id
      join users u on u.id = coalesce(r.user_id, l.user_id)
     order by 1 desc, u.email`;
  return rows.map((r) => ({
    batchId: r.batch_id,
    userId: r.user_id,
    email: r.email,
    reviews: Number(r.reviews),
    leasedNow: Number(r.leased),
    medianSeconds: r.median_seconds === null ? null : Number(r.median_seconds),
    lastAt: r.last_at,
  }));
}
