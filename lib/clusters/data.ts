// The clustering reads: deliberate SQL, one named function per query, each returning small aggregates (never one
// row per rollout). Level 1, the co-fired sets and the blind spot are exact; level 2 and 3 are counted on a
// deterministic per-cluster sample of at most SIGNATURE_SAMPLE entries (every entry when the cluster is smaller),
// because joining every entry's reasons costs ~0.6 M reason rows per million rollouts (3–10 s; see docs/benchmarks.md).
import { Prisma, type PrismaClient } from "@/lib/generated/prisma/client.ts";
import { db } from "@/lib/db/client.ts";
import type { StepCount } from "@/lib/clusters/bins.ts";
import type { ClusterWindow } from "@/lib/clusters/schema.ts";
import { binSql, blindSpotWhere, KEY_SQL, populationWhere, REMOVED_SQL } from "@/lib/clusters/sql.ts";

/** Entries per level-1 cluster whose reasons are read for levels 2 and 3. */
export const SIGNATURE_SAMPLE = 1500;
/** Sampling is by a 20-bit hash of the ledger id: deterministic, and uniform within a cluster. */
export const HASH_SPACE = 1 << 20;

type Client = PrismaClient;

function stepBounds(w: ClusterWindow, col: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`${w.from === undefined ? Prisma.empty : Prisma.sql`and ${col} >= ${w.from}`} ${w.to === undefined ? Prisma.empty : Prisma.sql`and ${col} <= ${w.to}`}`;
}

/**
 * Runs one aggregate with 32 MB of work_mem (the default 4 MB spills the (·, ticket) grouping sets of a
 * million-rollout run to disk) and without parallel workers: the report already runs its three queries side by side,
 * and on a busy server workers only add CPU (1.10 → 0.87 CPU-s per report at 1M rollouts). SET LOCAL ends with the
 * transaction, so the pooled connection is unchanged.
 */
async function withWorkMem<T>(client: Client, query: Prisma.Sql, opts: { hashOnly?: boolean } = {}): Promise<T[]> {
  // Prisma's default 5 s transaction timeout is not a statement timeout: on a busy server a read may take longer.
  return client.$transaction(
    async (tx) => {
      await tx.$executeRaw`set local work_mem = '32MB'`;
      await tx.$executeRaw`set local max_parallel_workers_per_gather = 0`;
      if (opts.hashOnly) await tx.$executeRaw`set local enable_sort = off`;
      return tx.$queryRaw<T[]>(query);
    },
    { maxWait: 10_000, timeout: 120_000 },
  );
}

/**
 * Current entries per step of the window: the denominators of every share. From step_rollups (O(steps)); when the
 * run has no rollup rows at all (a ledger written around the ingest path) they are counted from the ledger.
 */
export async function readWindowSteps(w: ClusterWindow, client: Client = db()): Promise<StepCount[]> {
  const rollups = await client.$queryRaw<{ step: number; rollouts: number }[]>`
    select step, rollouts from step_rollups
     where run_id = ${w.runId} ${stepBounds(w, Prisma.sql`step`)} and rollouts > 0 order by step`;
  if (rollups.length) return rollups;
  const any = await client.$queryRaw<
    { any: boolean }[]
  >`select exists (select 1 from step_rollups where run_id = ${w.runId}) as any`;
  if (any[0].any) return [];
  return client.$queryRaw<{ step: number; rollouts: number }[]>`
    select l.step, count(*)::int as rollouts from ledger l
     where l.run_id = ${w.runId} and l.is_current ${stepBounds(w, Prisma.sql`l.step`)} group by l.step order by l.step`;
}

export type LevelOneCell = {
  key: string;
  mask: number;
  category: string | null;
  bin: number;
  n: number;
  rewardSum: number;
  removedSum: number;
};
export type LevelOneFacts = {
  cells: LevelOneCell[];
  ticketsByKey: Map<string, number>;
  ticketsByMask: Map<number, number>;
};

/**
 * The population counted by (level-1 key, guardrail mask, category, bin), with the distinct tickets of every key and
 * of every mask, in one pass over ledger_clusters_idx: first grouped by all five (a hash aggregate whose groups are
 * a few thousand however large the run), then the grouping sets over those groups; the (·, ticket) sets are folded
 * into counts before they leave the database. The planner guesses the groups from the columns' statistics (867,160
 * at 10 M entries for 7,822) and would sort the population for them, spilling 146 MB to disk (5.8 s at 10 M); sorts
 * are off for this query (readLevelOneFacts), so it hashes (0.98 s), and a hash aggregate larger than work_mem
 * spills as a sort would.
 */
export function levelOneQuery(w: ClusterWindow, edges: readonly number[]): Prisma.Sql {
  return Prisma.sql`
    with pre as (
      select key, mask, category, bin, ticket_id, count(*) as n, sum(reward) as reward_sum, sum(removed) as removed_sum
        from (select ${KEY_SQL} as key, l.guardrail_mask as mask, l.category, l.ticket_id, l.reward,
                     ${REMOVED_SQL} as removed, ${binSql(edges)} as bin
                from ledger l where ${populationWhere(w)}) p
       group by key, mask, category, bin, ticket_id
    ), g as (
      select key, mask, category, bin, grouping(key, mask, category, bin, ticket_id) as gs,
             sum(n)::int as n, sum(reward_sum) as reward_sum, sum(removed_sum) as removed_sum
        from pre
       group by grouping sets ((key, mask, category, bin), (key, ticket_id), (mask, ticket_id))
    )
    select 0 as part, key, mask, category, bin, n, reward_sum, removed_sum from g where gs = 1
    union all select 1, key, null, null, null, count(*)::int, null, null from g where gs = 14 group by key
    union all select 2, null, mask, null, null, count(*)::int, null, null from g where gs = 22 group by mask`;
}

export async function readLevelOneFacts(
  w: ClusterWindow,
  edges: readonly number[],
  client: Client = db(),
): Promise<LevelOneFacts> {
  const rows = await withWorkMem<{
    part: number;
    key: string | null;
    mask: number | null;
    category: string | null;
    bin: number | null;
    n: number;
    reward_sum: number | null;
    removed_sum: number | null;
  }>(client, levelOneQuery(w, edges), { hashOnly: true });
  const facts: LevelOneFacts = { cells: [], ticketsByKey: new Map(), ticketsByMask: new Map() };
  for (const r of rows) {
    if (r.part === 0) {
      facts.cells.push({
        key: r.key!,
        mask: r.mask!,
        category: r.category,
        bin: r.bin!,
        n: r.n,
        rewardSum: r.reward_sum ?? 0,
        removedSum: r.removed_sum ?? 0,
      });
    } else if (r.part === 1) facts.ticketsByKey.set(r.key!, r.n);
    else facts.ticketsByMask.set(r.mask!, r.n);
  }
  return facts;
}

export type SignatureCell = {
  key: string;
  code: string;
  tool: string | null;
  field: string | null;
  category: string | null;
  bin: number;
  /** Sampled entries carrying the signature (each entry once, however many reasons share the signature). */
  n: number;
  rewardSum: number;
  removedSum: number;
};
export type SignatureFacts = {
  cells: SignatureCell[];
  /** Distinct tickets per "key|code|tool|field", for fully read (rate 1) clusters only. */
  tickets: Map<string, number>;
  /** Per level-1 key: the target share of its entries that were read (1 = all of them). */
  rates: Map<string, number>;
  /** Per level-1 key: entries actually read. Estimates scale by sampled / size, the realised rate. */
  sampled: Map<string, number>;
};

export const signatureTicketKey = (key: string, code: string, tool: string | null, field: string | null) =>
  JSON.stringify([key, code, tool, field]);

export function signatureSampleQuery(
  w: ClusterWindow,
  edges: readonly number[],
  sample = SIGNATURE_SAMPLE,
): Prisma.Sql {
  return Prisma.sql`
    with sizes as materialized (
      select ${KEY_SQL} as key, count(*)::int as size from ledger l where ${populationWhere(w)} group by 1
    ), s as materialized (
      select l.id, ${KEY_SQL} as key, l.category, l.ticket_id, l.reward, ${REMOVED_SQL} as removed, ${binSql(edges)} as bin
        from ledger l join sizes z on z.key = ${KEY_SQL}
       where ${populationWhere(w)} and (hashint8(l.id) & ${HASH_SPACE - 1})::float8 < ${sample}::float8 * ${HASH_SPACE} / z.size
    ), g as (
      select s.key, x.code, x.tool, x.field, s.category, s.bin, s.ticket_id,
             grouping(s.key, x.code, x.tool, x.field, s.category, s.bin, s.ticket_id) as gs,
             count(*)::int as n, sum(s.reward) as reward_sum, sum(s.removed) as removed_sum
        from s cross join lateral (select distinct r.code, r.tool, r.field from ledger_reasons r where r.run_id = ${w.runId} and r.ledger_id = s.id) x
       group by grouping sets ((s.key, x.code, x.tool, x.field, s.category, s.bin), (s.key, x.code, x.tool, x.field, s.ticket_id))
    )
    select gs, key, code, tool, field, category, bin, n, reward_sum, removed_sum, null::int as size from g where gs = 1
    union all select 6, key, code, tool, field, null, null, count(*)::int, null, null, null from g where gs = 6 group by key, code, tool, field
    union all select 0, z.key, null, null, null, null, null, (select count(*)::int from s where s.key = z.key), null, null, z.size from sizes z`;
}

/**
 * The reason signatures (code, tool, field) of the population by level-1 key, category and bin, read on a sample
 * (the clusters' sizes counted in one pass, the sample kept in a second; keeping the whole population to sample it
 * wrote it out, 158 MB at 10 M entries: 2.1 s, now 1.1 s):
 * an entry of a cluster of `size` entries is read when a 20-bit hash of its id falls below sample / size (every
 * entry of a cluster of at most `sample`), so each cluster contributes ~`sample` entries whatever its size and the
 * read is bounded at any scale. Self-contained (it counts the clusters itself) so that it runs beside
 * readLevelOneFacts on another connection instead of after it.
 */
export async function readSignatureSample(
  w: ClusterWindow,
  edges: readonly number[],
  client: Client = db(),
  sample = SIGNATURE_SAMPLE,
): Promise<SignatureFacts> {
  const rows = await withWorkMem<{
    gs: number;
    key: string;
    code: string;
    tool: string | null;
    field: string | null;
    category: string | null;
    bin: number | null;
    n: number;
    reward_sum: number | null;
    removed_sum: number | null;
    size: number | null;
  }>(client, signatureSampleQuery(w, edges, sample));
  const facts: SignatureFacts = { cells: [], tickets: new Map(), rates: new Map(), sampled: new Map() };
  for (const r of rows) {
    if (r.gs !== 0) continue;
    facts.rates.set(r.key, Math.min(1, sample / Math.max(1, r.size!)));
    facts.sampled.set(r.key, r.n);
  }
  for (const r of rows) {
    if (r.gs === 1) {
      facts.cells.push({
        key: r.key,
        code: r.code,
        tool: r.tool,
        field: r.field,
        category: r.category,
        bin: r.bin!,
        n: r.n,
        rewardSum: r.reward_sum ?? 0,
        removedSum: r.removed_sum ?? 0,
      });
    } else if (r.gs === 6 && facts.rates.get(r.key) === 1)
      facts.tickets.set(signatureTicketKey(r.key, r.code, r.tool, r.field), r.n);
  }
  return facts;
}

export type BlindSpotCell = {
  category: string | null;
  bin: number;
  n: number;
  rewarded: number;
  rewardSum: number;
  removedSum: number;
};
export type BlindSpotFacts = { cells: BlindSpotCell[]; tickets: number };

/** The blind-spot cluster by category and bin, with its distinct tickets (ledger_handoffs_idx ⋈ rollouts_no_writes_idx). */
export function blindSpotQuery(w: ClusterWindow, edges: readonly number[]): Prisma.Sql {
  return Prisma.sql`
    with g as (
      select category, bin, ticket_id, grouping(category, bin, ticket_id) as gs, count(*)::int as n,
             count(reward)::int as rewarded, sum(reward) as reward_sum, sum(removed) as removed_sum
        from (select l.category, ${binSql(edges)} as bin, l.ticket_id, l.reward, ${REMOVED_SQL} as removed
                from ledger l where ${blindSpotWhere(w)}) b
       group by grouping sets ((category, bin), (ticket_id))
    )
    select gs, category, bin, n, rewarded, reward_sum, removed_sum from g where gs = 1
    union all select 6, null, null, count(*)::int, 0, null, null from g where gs = 6`;
}

export async function readBlindSpotFacts(
  w: ClusterWindow,
  edges: readonly number[],
  client: Client = db(),
): Promise<BlindSpotFacts> {
  const rows = await withWorkMem<{
    gs: number;
    category: string | null;
    bin: number | null;
    n: number;
    rewarded: number;
    reward_sum: number | null;
    removed_sum: number | null;
  }>(client, blindSpotQuery(w, edges));
  const facts: BlindSpotFacts = { cells: [], tickets: 0 };
  for (const r of rows) {
    if (r.gs === 1)
      facts.cells.push({
        category: r.category,
        bin: r.bin!,
        n: r.n,
        rewarded: r.rewarded,
        rewardSum: r.reward_sum ?? 0,
        removedSum: r.removed_sum ?? 0,
      });
    else facts.tickets = r.n;
  }
  return facts;
}
