import { Prisma } from "@/lib/generated/prisma/client.ts";
import type { Db } from "@/lib/db/client.ts";
import { ledgerDistributed } from "@/lib/db/layout.ts";
import { readDb } from "@/lib/db/read-client.ts";
import { codesOfMask, guardrailMask } from "@/lib/verifier/guardrail-mask.ts";
import {
  type BrowseParams,
  type Cursor,
  type SortKey,
  decodeCursor,
  encodeCursor,
  parseReasonSignature,
} from "@/lib/ledger/browse-schema.ts";
import { DIMENSIONS, GUARDRAIL_CODES } from "@/lib/verifier/codes.ts";
import { parseSearch, type SearchQuery } from "@/lib/search/parse.ts";
import {
  matchCondition,
  pairMatchesSql,
  rangeMatchesSql,
  searchBlocksSql,
  type IndexedSearch,
  searchCondition,
  searchProbe,
} from "@/lib/search/sql.ts";
import {
  loadIndexedSearch,
  pageSnippets,
  SearchInputError,
  SearchTimeoutError,
  sharedTransaction,
  withSearchTimeout,
} from "@/lib/search/data.ts";
import type { Snippet } from "@/lib/search/snippet.ts";
import {
  keptFewMatches,
  keptMatchSet,
  matchSetHeld,
  runMatchSet,
  setInSteps,
  type Match,
} from "@/lib/search/match-set-data.ts";
import { keptSearchCount, keptSetOrder, type KeptOrder } from "@/lib/ledger/search-view-data.ts";
import { fingerprintOnce, type RunFingerprint } from "@/lib/db/run-fingerprint.ts";

// The trajectory browser's reads: current ledger entries under the URL's filters, sorted by one column with the id
// as tie-break, paged by key (the cursor is the last row's sort value and id — never an OFFSET scan).

export type BrowseRow = {
  id: string;
  trajectoryId: string;
  runId: string;
  /** The stored rollout's id; null for a score record from outside. */
  rolloutId: string | null;
  step: number;
  ticketId: string;
  groupId: string | null;
  category: string | null;
  status: string;
  source: string;
  reward: number | null;
  rawReward: number | null;
  /** The trainer's own reward, when the entry carries one. */
  trainedReward: number | null;
  outcome: number | null;
  policy: number | null;
  evidence: number | null;
  efficiency: number | null;
  communication: number | null;
  decidingGuardrail: string | null;
  guardrails: string[];
  capped: boolean;
  handoff: boolean | null;
  toolSteps: number | null;
  sampled: boolean;
  reviewed: boolean;
  /** When the view has a search: where it matched, each match marked (lib/search/snippet.ts). */
  snippets?: Snippet[];
};

// Nullable score columns sort as -1 so that error records (no reward) have a place in the key order.
const SORT_SQL: Record<SortKey, Prisma.Sql> = {
  id: Prisma.sql`l.id`,
  step: Prisma.sql`l.step`,
  reward: Prisma.sql`coalesce(l.reward, -1)`,
  raw_reward: Prisma.sql`coalesce(l.raw_reward, -1)`,
  outcome: Prisma.sql`coalesce(l.outcome, -1)`,
  policy: Prisma.sql`coalesce(l.policy, -1)`,
  evidence: Prisma.sql`coalesce(l.evidence, -1)`,
  efficiency: Prisma.sql`coalesce(l.efficiency, -1)`,
  communication: Prisma.sql`coalesce(l.communication, -1)`,
  tool_steps: Prisma.sql`coalesce(l.tool_steps, -1)`,
};

/**
 * The lowest of the five sub-scores by name (ties in verifier.md order; least() skips nulls), "unknown" when none is
 * set. The same expression as the clusters' level-1 key (lib/clusters/sql.ts KEY_SQL) when no guardrail decided.
 */
const WEAKEST_SQL = Prisma.sql`case least(l.outcome, l.policy, l.evidence, l.efficiency, l.communication)
    when l.outcome then 'outcome' when l.policy then 'policy' when l.evidence then 'evidence'
    when l.efficiency then 'efficiency' when l.communication then 'communication' else 'unknown' end`;

const ALL_GUARDRAILS = guardrailMask(GUARDRAIL_CODES);

/** `col = value`, or `col is null` when the value is null. */
const nullOr = (col: Prisma.Sql, value: string | null) =>
  value === null ? Prisma.sql`${col} is null` : Prisma.sql`${col} = ${value}`;

/**
 * What `q` is in the view's scope (queryKind asks the ledger): a trajectory's id (it then matches that
 * trajectory or a ticket of that id, as before there was search), only a ticket's id, or a search of the texts.
 */
export type QueryKind = { kind: "id" } | { kind: "ticket" } | { kind: "search"; query: IndexedSearch };

/**
 * The WHERE conditions of a browser state (without the cursor), `q` read as `opts.q` says (an id, unless told).
 */
export function browseConditions(p: BrowseParams, opts: { q?: QueryKind } = {}): Prisma.Sql[] {
  const c: Prisma.Sql[] = [Prisma.sql`l.is_current`];
  if (p.run) c.push(Prisma.sql`l.run_id = ${p.run}`);
  if (p.step_from !== undefined) c.push(Prisma.sql`l.step >= ${p.step_from}`);
  if (p.step_to !== undefined) c.push(Prisma.sql`l.step <= ${p.step_to}`);
  // one value is written as "=" (not "= any(array)") so that an index on the column can also deliver key order
  const oneOf = (col: Prisma.Sql, values: string[]) =>
    values.length === 1 ? Prisma.sql`${col} = ${values[0]}` : Prisma.sql`${col} = any(${values})`;
  if (p.category?.length) c.push(oneOf(Prisma.sql`l.category`, p.category));
  if (p.reward_min !== undefined) c.push(Prisma.sql`l.reward >= ${p.reward_min}`);
  if (p.reward_max !== undefined) c.push(Prisma.sql`l.reward <= ${p.reward_max}`);
  // strict, as the clusters' population is: ledger_clusters_idx (reward < 0.9) applies when the bound is below 0.9
  if (p.reward_below !== undefined) c.push(Prisma.sql`l.reward < ${p.reward_below}`);
  for (const d of DIMENSIONS) {
    const col = Prisma.raw(`l.${d}`);
    const min = p[`${d}_min`];
    const max = p[`${d}_max`];
    if (min !== undefined) c.push(Prisma.sql`${col} >= ${min}`);
    if (max !== undefined) c.push(Prisma.sql`${col} <= ${max}`);
  }
  if (p.weakest?.length) c.push(Prisma.sql`${WEAKEST_SQL} = any(${p.weakest})`);
  if (p.any?.length) c.push(Prisma.sql`(l.guardrail_mask & ${guardrailMask(p.any)}) <> 0`);
  if (p.all?.length) {
    const m = guardrailMask(p.all);
    c.push(Prisma.sql`(l.guardrail_mask & ${m}) = ${m}`);
  }
  if (p.none?.length) {
    const m = guardrailMask(p.none);
    // "none of every guardrail" is written as the partial index ledger_handoffs_idx writes it (the mask holds only
    // guardrail bits, so the two are the same set), which lets the blind-spot view read that index
    c.push(m === ALL_GUARDRAILS ? Prisma.sql`l.guardrail_mask = 0` : Prisma.sql`(l.guardrail_mask & ${m}) = 0`);
  }
  if (p.deciding?.length) {
    const codes = p.deciding.filter((d) => d !== "none");
    const parts: Prisma.Sql[] = [];
    if (codes.length) parts.push(oneOf(Prisma.sql`l.deciding_guardrail`, codes));
    if (p.deciding.includes("none")) parts.push(Prisma.sql`l.deciding_guardrail is null`);
    c.push(parts.length === 1 ? parts[0] : Prisma.sql`(${Prisma.join(parts, " or ")})`);
  }
  if (p.capped) c.push(p.capped === "yes" ? Prisma.sql`l.capped` : Prisma.sql`not l.capped`);
  // Written as ledger_trained_differs_idx's predicate says it (013), so that index serves "yes". Entries without a
  // trained reward, or without a ledger reward (error records), match neither.
  if (p.trained_differs)
    c.push(
      p.trained_differs === "yes"
        ? Prisma.sql`abs(l.trained_reward - l.reward) > 1e-6`
        : Prisma.sql`abs(l.trained_reward - l.reward) <= 1e-6`,
    );
  // "l.handoff" as ledger_handoffs_idx's predicate says it (same rows as "is true" in a WHERE)
  if (p.handoff === "yes") c.push(Prisma.sql`l.handoff`);
  else if (p.handoff === "credited") c.push(Prisma.sql`l.handoff and l.outcome > 0`);
  else if (p.handoff === "no") c.push(Prisma.sql`l.handoff is not true`);
  // A stored rollout whose sandbox recorded no write (or at least one). Entries without a stored rollout (external
  // records) match neither. With a run, "no" repeats rollouts_no_writes_idx's predicate so that index serves it.
  if (p.sandbox_write) {
    const wrote =
      p.sandbox_write === "yes"
        ? Prisma.sql`(r.sandbox -> 'writes') <> '[]'::jsonb`
        : Prisma.sql`(r.sandbox -> 'writes') = '[]'::jsonb`;
    c.push(
      p.run
        ? Prisma.sql`exists (select 1 from rollouts r where r.run_id = ${p.run} and r.id = l.rollout_id and ${wrote})`
        : Prisma.sql`exists (select 1 from rollouts r where r.run_id = l.run_id and r.id = l.rollout_id and ${wrote})`,
    );
  }
  // compared as the enum, not as text, so the (status, id) index applies (020)
  if (p.status?.length) c.push(Prisma.sql`l.status = any(${p.status}::"ScoreStatus"[])`);
  // Reasons as IN (not EXISTS) so the planner can start from the (code, step) reasons index (020) when a code is
  // rare; the step window is repeated inside for the same index. A signature also matches tool and field on the same
  // reason row (null meaning "the reason has none").
  const reasonsOf = (extra: Prisma.Sql) => {
    const parts = [extra];
    if (p.run) parts.unshift(Prisma.sql`r.run_id = ${p.run}`);
    if (p.step_from !== undefined) parts.push(Prisma.sql`r.step >= ${p.step_from}`);
    if (p.step_to !== undefined) parts.push(Prisma.sql`r.step <= ${p.step_to}`);
    return Prisma.sql`l.id in (select r.ledger_id from ledger_reasons r where ${Prisma.join(parts, " and ")})`;
  };
  if (p.reason) c.push(reasonsOf(Prisma.sql`r.code = ${p.reason}`));
  const sig = p.sig === undefined ? null : parseReasonSignature(p.sig);
  if (sig)
    // "= x" / "is null" rather than "is not distinct from": the planner estimates those from the column statistics
    // (it guessed 1 row for 66,580 with the latter and chose a plan 250× slower at a million entries)
    c.push(
      reasonsOf(
        Prisma.sql`r.code = ${sig.code} and ${nullOr(Prisma.sql`r.tool`, sig.tool)} and ${nullOr(Prisma.sql`r.field`, sig.field)}`,
      ),
    );
  // A term that is no trajectory's id names a ticket: "ticket_id = q" alone lets ledger (ticket_id, id) (026) give
  // the default order, so the first page reads a page of the ticket's entries, not all of them (12,000 of one ticket
  // at 3 M entries). Otherwise the id set first (two index lookups), so the planner never walks the whole key order
  // hoping for a match; with a run, in that run's partition only (a ticket has entries in every run that trains on
  // it: without it, a small run's search read the ticket's entries in every run, 4.7 s at p95 beside a run of a
  // million).
  const inRun = (alias: string) => (p.run ? Prisma.sql`${Prisma.raw(alias)}.run_id = ${p.run} and ` : Prisma.empty);
  if (p.q && opts.q?.kind === "search") c.push(searchCondition(opts.q.query, "l"));
  else if (p.q && opts.q?.kind === "ticket") c.push(Prisma.sql`l.ticket_id = ${p.q}`);
  else if (p.q)
    c.push(
      Prisma.sql`l.id in (select x.id from ledger x where ${inRun("x")}x.trajectory_id = ${p.q} union all select x.id from ledger x where ${inRun("x")}x.ticket_id = ${p.q})`,
    );
  // audit items are a 1% sample: IN lets the planner start from them when they are few, or walk the key order and
  // look each row up among them when they are many. With a run, that run's items, named by their own run_id: through
  // the run's batches the planner guessed 408 items for 110,117 (the batches' selectivity), started from them, and
  // read 100,050 entries to keep 100 (4.2 s at 10 M entries, 1% sampled); on run_id's statistics it walks the key
  // order (0.14 s).
  const items = p.run ? Prisma.sql`audit_items ai where ai.run_id = ${p.run}` : Prisma.sql`audit_items ai where true`;
  const sampled = Prisma.sql`l.trajectory_id in (select ai.trajectory_id from ${items})`;
  const reviewed = Prisma.sql`l.trajectory_id in (select ai.trajectory_id from ${items} and ai.reviews_done > 0)`;
  if (p.sampled) c.push(p.sampled === "yes" ? sampled : Prisma.sql`not ${sampled}`);
  if (p.reviewed) c.push(p.reviewed === "yes" ? reviewed : Prisma.sql`not ${reviewed}`);
  return c;
}

/**
 * What the view's `q` is: one word without quotes that some entry in the view's scope (its run, or every run) has as
 * its trajectory or ticket id is that id — two probes of ledger (trajectory_id) and (ticket_id, id) per partition in
 * scope; anything else is a search, and one that does not parse (a word too short to look up) is thrown as
 * SearchInputError.
 */
export async function queryKind(p: BrowseParams, client: Db = readDb()): Promise<QueryKind | undefined> {
  if (!p.q) return undefined;
  const search = parseSearch(p.q);
  const runs = p.run ? [p.run] : null;
  if (/[\s"]/u.test(p.q) && search.ok)
    return { kind: "search", query: await loadIndexedSearch(client, search.query, runs) };
  const inRun = p.run ? Prisma.sql`x.run_id = ${p.run} and ` : Prisma.empty;
  const [found] = await client.$queryRaw<{ trajectory: boolean; ticket: boolean }[]>`
    select exists (select 1 from ledger x where ${inRun}x.trajectory_id = ${p.q}) as trajectory,
           exists (select 1 from ledger x where ${inRun}x.ticket_id = ${p.q}) as ticket`;
  if (found.trajectory) return { kind: "id" };
  if (found.ticket) return { kind: "ticket" };
  if (!search.ok) throw new SearchInputError(search.error);
  return { kind: "search", query: await loadIndexedSearch(client, search.query, runs) };
}

/**
 * A view's conditions: the browser's filters (and cursor) in `where`, and its search apart when `q` is one, so that a
 * page can walk the filters' order and probe each row for the search (selectRows).
 */
export type BrowseView = {
  where: Prisma.Sql[];
  search?: IndexedSearch;
  /**
   * A page's view (browseLedger): its conditions without the cursor, and the cursor `where` holds (none on a first
   * page). A page read from a match set keeps the view's order from them (setPage).
   */
  page?: { base: Prisma.Sql[]; after?: Cursor };
};

function viewOf(p: BrowseParams, kind: QueryKind | undefined): BrowseView {
  if (kind?.kind !== "search") return { where: browseConditions(p, { q: kind }) };
  return { where: browseConditions({ ...p, q: undefined }), search: kind.query };
}

/** Every condition of a view, its search included, for one WHERE. */
function allConditions(v: BrowseView): Prisma.Sql[] {
  return v.search ? [...v.where, searchCondition(v.search, "l")] : v.where;
}

const withKey = (v: BrowseView, key: Prisma.Sql): BrowseView => ({ ...v, where: [...v.where, key] });

function keyCondition(p: BrowseParams, cursor: Cursor): Prisma.Sql {
  const expr = SORT_SQL[p.sort];
  const op = Prisma.raw(p.dir === "desc" ? "<" : ">");
  if (p.sort === "id") return Prisma.sql`l.id ${op} ${BigInt(cursor.id)}`;
  return Prisma.sql`(${expr}, l.id) ${op} (${cursor.v ?? -1}, ${BigInt(cursor.id)})`;
}

type RawRow = {
  id: bigint;
  trajectory_id: string;
  run_id: string;
  rollout_id: bigint | null;
  step: number;
  ticket_id: string;
  group_id: string | null;
  category: string | null;
  status: string;
  source: string;
  reward: number | null;
  raw_reward: number | null;
  trained_reward: number | null;
  outcome: number | null;
  policy: number | null;
  evidence: number | null;
  efficiency: number | null;
  communication: number | null;
  deciding_guardrail: string | null;
  guardrail_mask: number;
  capped: boolean;
  handoff: boolean | null;
  tool_steps: number | null;
  sort_value: number | bigint | null;
  sampled: boolean;
  reviewed: boolean;
};

function toRow(r: RawRow): BrowseRow {
  return {
    id: r.id.toString(),
    trajectoryId: r.trajectory_id,
    runId: r.run_id,
    rolloutId: r.rollout_id === null ? null : r.rollout_id.toString(),
    step: r.step,
    ticketId: r.ticket_id,
    groupId: r.group_id,
    category: r.category,
    status: r.status,
    source: r.source,
    reward: r.reward,
    rawReward: r.raw_reward,
    trainedReward: r.trained_reward,
    outcome: r.outcome,
    policy: r.policy,
    evidence: r.evidence,
    efficiency: r.efficiency,
    communication: r.communication,
    decidingGuardrail: r.deciding_guardrail,
    guardrails: codesOfMask(r.guardrail_mask),
    capped: r.capped,
    handoff: r.handoff,
    toolSteps: r.tool_steps,
    sampled: r.sampled,
    reviewed: r.reviewed,
  };
}

const ROW_COLUMNS = Prisma.sql`l.id, l.trajectory_id, l.run_id, l.rollout_id, l.step, l.ticket_id, l.group_id, l.category,
           l.status::text as status, l.source::text as source, l.reward, l.raw_reward, l.trained_reward, l.outcome, l.policy,
           l.evidence, l.efficiency, l.communication, l.deciding_guardrail, l.guardrail_mask, l.capped, l.handoff,
           l.tool_steps`;

/** The rows of the view in its order, `limit` at most, as the page query reads them (without sampled/reviewed). */
function orderedRows(where: Prisma.Sql[], p: BrowseParams, dir: "asc" | "desc", limit: number): Prisma.Sql {
  const expr = SORT_SQL[p.sort];
  const d = Prisma.raw(dir);
  return Prisma.sql`select ${ROW_COLUMNS}, ${expr} as sort_value
              from ledger l
             where ${Prisma.join(where, " and ")}
             order by ${expr} ${d}, l.id ${d}
             limit ${limit}`;
}

type PageRow = Omit<RawRow, "sampled" | "reviewed">;

/**
 * A page's rows (`page`, in the view's order), with whether each is sampled or reviewed (`marks`; without, neither).
 * Two statements: the page, then the audit items of its trajectories. Asked inside the limited query, the planner
 * costed those lookups for every row the scan might pass and hashed all of audit_items for them instead of probing
 * its index 100 times (a scan of 110,117 items twice per page, ~40 ms, whatever the run's size); asked around the
 * page, on Citus (docs/scale.md) the page is planned apart from the items, which stay on the coordinator, and its
 * rows are shipped back as an intermediate result before the join: 20–60 ms more per page than the page's own
 * single-shard statement and this lookup.
 */
async function markPage(page: Prisma.Sql, client: Db, marks = true): Promise<RawRow[]> {
  return markRows(await client.$queryRaw<PageRow[]>(page), client, marks);
}

/** A page's rows marked as sampled or reviewed (markPage), with one read of their audit items. */
async function markRows(rows: PageRow[], client: Db, marks: boolean): Promise<RawRow[]> {
  if (!marks || rows.length === 0) return rows.map((r) => ({ ...r, sampled: false, reviewed: false }));
  const items = await client.$queryRaw<{ trajectory_id: string; reviewed: boolean }[]>`
    select ai.trajectory_id, bool_or(ai.reviews_done > 0) as reviewed
      from audit_items ai
     where ai.trajectory_id = any(${[...new Set(rows.map((r) => r.trajectory_id))]})
     group by ai.trajectory_id`;
  const reviewed = new Map(items.map((i) => [i.trajectory_id, i.reviewed]));
  return rows.map((r) => ({
    ...r,
    sampled: reviewed.has(r.trajectory_id),
    reviewed: reviewed.get(r.trajectory_id) === true,
  }));
}

/**
 * Rows of a search's view walked in the browser's order: the first `walk` rows under the other filters, each probed
 * for the search by its search row's key (searchProbe), stopping at `limit` matches. When the walk read `walk` rows
 * without filling the page, what it found and the key of the last row it read (`last`), where a longer walk goes on
 * or, for a rare search, the index takes over.
 */
async function walkedRows(
  v: BrowseView & { search: IndexedSearch },
  p: BrowseParams,
  dir: "asc" | "desc",
  limit: number,
  walk: number,
  client: Db = readDb(),
): Promise<RawRow[] | { found: RawRow[]; last: Cursor }> {
  // The walk's own LIMIT keeps the probe out of its scan (no qual is pushed below a LIMIT), and nothing between the
  // walk and the page's LIMIT reorders rows, so the page stops at its last match.
  const walked = orderedRows(v.where, p, dir, walk);
  const page =
    p.run === undefined && (await ledgerDistributed(readDb()))
      ? walkJoined(walked, v.search, dir, limit)
      : Prisma.sql`select w.* from (${walked}) w where ${searchProbe(v.search, "w", p.run)} limit ${limit}`;
  const rows = await markPage(page, client);
  if (rows.length >= limit) return rows;
  // Fewer matches than the page: the walk holds all of them only if it read the whole view (it has no last row).
  const [last] = await client.$queryRaw<Pick<RawRow, "id" | "sort_value">[]>`
    select w.id, w.sort_value from (${orderedRows(v.where, p, dir, walk)}) w offset ${walk - 1}`;
  return last ? { found: rows, last: cursorKey(last) } : rows;
}

/**
 * A walk over every run on Citus, its rows joined to their search rows: Citus merges the runs' walks on the
 * coordinator, and cannot then probe the workers' search rows from it row by row (a subquery correlated with a
 * subquery); a join of the walk's rows with them, by run and rollout, it sends to every worker.
 */
function walkJoined(walked: Prisma.Sql, search: SearchQuery, dir: "asc" | "desc", limit: number): Prisma.Sql {
  const d = Prisma.raw(dir);
  return Prisma.sql`select w.* from (${walked}) w
      join rollout_search s on s.run_id = w.run_id and s.rollout_id = w.rollout_id and ${matchCondition(search, "s")}
     order by w.sort_value ${d}, w.id ${d}
     limit ${limit}`;
}

/**
 * Rows a search's page walks in the browser's order before it leaves the search to the index (walkedRows). A search
 * on more than one row in 100 fills a page of 100 within it, at one key probe per row walked (a few ms per
 * thousand); a rarer one is found by its index, after this many probes.
 */
const WALK_ROWS = 10_000;

/**
 * The lowest and the highest id of a run's step range's entries: no entry of the range lies outside them. Found one
 * step at a time by the (run_id, step, id) index — a loose scan, three key lookups per step of the range that has
 * entries, whatever its number of rows. Null when the range has no entries.
 */
export async function stepRangeIdBounds(
  run: string,
  range: { from?: number; to?: number },
  client: Db = readDb(),
): Promise<{ low: bigint; high: bigint } | null> {
  const from = range.from ?? -2147483648;
  const to = range.to ?? 2147483647;
  const [{ low, high }] = await client.$queryRaw<{ low: bigint | null; high: bigint | null }[]>`
    with recursive st(step) as (
      (select l.step from ledger l where l.run_id = ${run} and l.step >= ${from} and l.step <= ${to} order by l.step limit 1)
      union all
      select (select l.step from ledger l where l.run_id = ${run} and l.step > st.step and l.step <= ${to}
               order by l.step limit 1)
        from st where st.step is not null)
    select min((select l.id from ledger l where l.run_id = ${run} and l.step = st.step order by l.id limit 1)) as low,
           max((select l.id from ledger l where l.run_id = ${run} and l.step = st.step order by l.id desc limit 1)) as high
      from st where st.step is not null`;
  return low === null || high === null ? null : { low, high };
}

/**
 * A step range's view held to its entries' ids (stepRangeIdBounds), for the walk in id order: walked from the run's
 * end, the view passed every entry of the later steps before its first (0.1–0.2 s at 200,000 rollouts, a range in
 * the middle of the run), and past the range's last entry it read the rest of the run looking for more — a next page
 * past a Chinese phrase's last match in a range of 100 steps was stopped by the search's timeout at 1 M rollouts
 * (docs/benchmarks.md, "Search"). Ids follow the ingest, so a range's entries are mostly together in id order; the
 * bounds only drop rows of other steps, so the view's rows are the same. Null when the walk does not need them (no
 * run, another order, no range) or the range is empty.
 */
async function walkFromStepRange(v: BrowseView, p: BrowseParams, client: Db) {
  if (!p.run || p.sort !== "id" || (p.step_from === undefined && p.step_to === undefined)) return null;
  const bounds = await stepRangeIdBounds(p.run, { from: p.step_from, to: p.step_to }, client);
  if (bounds === null) return null;
  return withKey(v, Prisma.sql`l.id >= ${bounds.low} and l.id <= ${bounds.high}`);
}

/**
 * Blocks (rollout_search_blocks) of a run holding a search's words up to which the search's matches are found first
 * (fewMatches): each block's rollouts (16) read by key and checked, at most 2,048 rollouts, about as many as the
 * walk's first try probes, and read together.
 */
const FEW_BLOCKS = 128;
/**
 * Rows up to which a search of Chinese terms only (nothing for the blocks) is found first by its pairs' index: each
 * row found is read and checked, which for a frequent term the walk does only until its page is full.
 */
const FEW_ROWS = 256;

/**
 * How a search's page is read (selectRows): `walk` rows walked in the browser's order at most (0: no walk),
 * `fewBlocks` blocks (`fewRows` rows by the pairs' index) up to which its matches in one run are found first
 * (fewMatches; 0: never), and whether its matches in one run are gathered and kept (lib/search/match-set-data.ts)
 * where the index would otherwise answer, and its few matches kept (`matchSets`, by default). Tests set them to hold
 * each way to the others' rows.
 */
export type SearchPlan = {
  walk?: number;
  fewBlocks?: number;
  fewRows?: number;
  matchSets?: boolean;
  memo?: SearchMemo;
};

/**
 * What a browser page's page and count share of their search (fewMatches' answer, and the number of the view's
 * entries when the page was read from a match set): given to both, the count reads what the page has read, not again.
 */
export type SearchMemo = { kind?: Promise<QueryKind | undefined>; few?: Promise<Match[] | null>; setTotal?: number };

/** The view's `q` read (queryKind) once for a browser page's page and count: given their memo, they share it. */
const kindOf = (p: BrowseParams, memo?: SearchMemo) => (memo ? (memo.kind ??= queryKind(p)) : queryKind(p));

/**
 * The rollouts of one run that match a search, when its index says they are few: the run's blocks that hold its
 * words, if there are at most `fewBlocks`, each one's rollouts checked; or, for a search whose only terms the blocks
 * cannot look up are Chinese, the rows its pairs' index finds, if at most `fewRows`. Null when there are more (the
 * walk in the browser's order finds a page of a frequent search sooner), or when the search has no index to ask. Kept
 * at the run's highest rollout id (keptFewMatches), where every view of a frequent term asked again.
 */
async function fewMatches(
  search: IndexedSearch,
  run: string,
  client: Db,
  { fewBlocks = FEW_BLOCKS, fewRows = FEW_ROWS, matchSets, memo }: SearchPlan = {},
  fingerprint = fingerprintOnce(run, client),
): Promise<Match[] | null> {
  if (memo) return (memo.few ??= fewMatches(search, run, client, { fewBlocks, fewRows, matchSets }, fingerprint));
  const find = async () => {
    const blocks = searchBlocksSql(search, run, fewBlocks + 1);
    if (blocks) {
      if (fewBlocks < 1) return null;
      const ranges = await client.$queryRaw<{ first_id: bigint; last_id: bigint }[]>(blocks);
      if (ranges.length > fewBlocks) return null;
      if (ranges.length === 0) return [];
      const spans = ranges.map((r) => ({ first: r.first_id, last: r.last_id }));
      return client.$queryRaw<Match[]>(rangeMatchesSql(search, run, spans));
    }
    const pairs = pairMatchesSql(search, run, fewRows + 1);
    if (!pairs || fewRows < 1) return null;
    const found = await client.$queryRaw<Match[]>(pairs);
    return found.length > fewRows ? null : found;
  };
  return matchSets === false ? find() : keptFewMatches(search, run, `${fewBlocks}/${fewRows}`, fingerprint, find);
}

/**
 * The view's entries of the given rollouts (fewMatches'), for a WHERE in place of the search's condition: found by
 * their trajectory ids' index, and held to the rollouts. By `rollout_id` alone, which no index of the ledger leads
 * with, the planner walked the run's entries in id order for them (0.7–6.5 s for 100–2,000 rollouts at 1 M).
 */
const ofRollouts = (few: Match[]) =>
  Prisma.sql`l.trajectory_id = any(${few.map((m) => m.trajectory_id)}::text[])
    and l.rollout_id = any(${few.map((m) => m.rollout_id)}::bigint[])`;

/**
 * A search's match set in the view's run (lib/search/match-set-data.ts), when the plan allows one: the one kept (`gather`
 * false), or the one kept or gathered now, its rollouts in the view's step range. Null when there is none, or the
 * search's matches are too many for one.
 */
async function matchSetOf(
  v: BrowseView,
  p: BrowseParams,
  client: Db,
  plan: SearchPlan,
  gather: boolean,
  fingerprint: () => Promise<RunFingerprint | null>,
) {
  if (!v.search || !p.run || plan.matchSets === false) return null;
  const set = gather
    ? await runMatchSet(v.search, p.run, client, { fingerprint })
    : await keptMatchSet(v.search, p.run, fingerprint);
  // the set's rollouts in the view's step range (the view's condition on the entries' steps stays)
  return set === null || "over" in set ? null : { ids: setInSteps(set, p.step_from, p.step_to) };
}

/**
 * The view's entries of a match set's rollouts, for a WHERE in place of the search's condition: each one key lookup
 * of the run's current entries by rollout (ledger_rollout_idx, 045).
 */
const ofMatchSet = (set: { ids: string }) => Prisma.sql`l.rollout_id = any(${set.ids}::bigint[])`;

/** A page of a view to read from a match set of its search (selectRows' arguments, and the set). */
type SetRead = {
  v: BrowseView;
  p: BrowseParams;
  dir: "asc" | "desc";
  limit: number;
  set: { ids: string };
  client: Db;
  marks: boolean;
  fingerprint: () => Promise<RunFingerprint | null>;
};

/**
 * A page of the view from a match set, and the number of the view's entries: from the view's order kept for the set
 * (keptSetOrder, lib/ledger/search-view-data.ts) when the view is a page's, else read (readSetPage).
 */
async function setPage(r: SetRead): Promise<{ rows: RawRow[]; total: number }> {
  const { v, p, dir, limit, set, client, marks, fingerprint } = r;
  const page = v.page;
  const order =
    page && p.run
      ? await keptSetOrder(
          { ...p, run: p.run },
          dir,
          () => sharedTransaction(readDb(), (tx) => readSetOrder(page.base, set, p, dir, tx)),
          fingerprint,
        )
      : null;
  if (!order) return readSetPage(r);
  const start = page?.after ? positionPast(order, page.after, p.sort === "id", dir) : 0;
  const ids = order.ids.subarray(start, start + limit);
  if (ids.length === 0) return { rows: [], total: order.ids.length };
  const read = await client.$queryRaw<PageRow[]>`
    select ${ROW_COLUMNS}, ${SORT_SQL[p.sort]} as sort_value
      from ledger l
     where l.run_id = ${p.run} and l.id = any(${`{${ids.join(",")}}`}::bigint[])`;
  const at = new Map(Array.from(ids, (id, i) => [id, i]));
  read.sort((a, b) => at.get(a.id)! - at.get(b.id)!);
  return { rows: await markRows(read, client, marks), total: order.ids.length };
}

/**
 * The view's entries of a match set's rollouts (its conditions without a cursor), their ids and sort values in the
 * view's order: read by key apart from the order (`offset 0`, readSetPage), aggregated into two arrays.
 */
async function readSetOrder(
  base: Prisma.Sql[],
  set: { ids: string },
  p: BrowseParams,
  dir: "asc" | "desc",
  client: Db,
): Promise<KeptOrder> {
  const d = Prisma.raw(dir);
  const [row] = await client.$queryRaw<{ ids: bigint[]; vals: number[] }[]>`
    select coalesce(array_agg(l.id order by l.sort_value ${d}, l.id ${d}), '{}') as ids,
           coalesce(array_agg(l.sort_value::float8 order by l.sort_value ${d}, l.id ${d}), '{}') as vals
      from (select l.id, ${SORT_SQL[p.sort]} as sort_value
              from ledger l
             where ${Prisma.join([...base, ofMatchSet(set)], " and ")}
            offset 0) l`;
  return { ids: BigInt64Array.from(row.ids), values: Float64Array.from(row.vals) };
}

/**
 * Where a page past `cursor` starts in a view's kept order: the first entry after it in the view's order, as
 * keyCondition says (the sort value, then the id; the id alone in id order; a cursor without a value as -1).
 */
export function positionPast(order: KeptOrder, cursor: Cursor, byId: boolean, dir: "asc" | "desc"): number {
  const v = cursor.v ?? -1;
  const id = BigInt(cursor.id);
  // whether entry i comes after the cursor in the view's order
  const past = (i: number) => {
    const c =
      byId || order.values[i] === v
        ? order.ids[i] === id
          ? 0
          : order.ids[i] < id
            ? -1
            : 1
        : order.values[i] < v
          ? -1
          : 1;
    return dir === "asc" ? c > 0 : c < 0;
  };
  let lo = 0;
  let hi = order.ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (past(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * A page of the view from a match set, read: every entry of the set's rollouts under the view's filters, read by key
 * (ofMatchSet), then the page's in the view's order, and how many there were (`count(*) over ()`, the same rows). The
 * entries are read apart from the order (`offset 0`): given the order and the limit, the planner walked the run's
 * whole partition in key order with the set as a filter, hoping to fill the page early — 0.66 s at 1 M rollouts for
 * a set of 15,375 of which the filter kept none, 0.10 s by key.
 */
async function readSetPage({
  v,
  p,
  dir,
  limit,
  set,
  client,
  marks,
}: SetRead): Promise<{ rows: RawRow[]; total: number }> {
  const expr = SORT_SQL[p.sort];
  const d = Prisma.raw(dir);
  const rows = await client.$queryRaw<(PageRow & { total: bigint })[]>`
    select l.*, count(*) over () as total
      from (select ${ROW_COLUMNS}, ${expr} as sort_value
              from ledger l
             where ${Prisma.join([...v.where, ofMatchSet(set)], " and ")}
            offset 0) l
     order by l.sort_value ${d}, l.id ${d}
     limit ${limit}`;
  const total = rows.length ? Number(rows[0].total) : 0;
  // (each row keeps its `total`, which toRow does not read)
  return { rows: await markRows(rows, client, marks), total };
}

/**
 * A page of the view. A search in one run whose index says its matches are few (fewMatches) has them found first,
 * and its page is the view's entries of those rollouts; one that finds none answers at once. Otherwise a search
 * walks the view's order (walkedRows): a frequent term fills its page in the
 * first rows, where the planner, seeing the index find its thousands of matches cheaply, hashed them all against a
 * scan of the run's whole partition and sorted. A rarer term, whose walk finds too few, is then answered by one query
 * with the search's EXISTS, which the planner starts from the index. A step range is walked between its entries'
 * lowest and highest ids (walkFromStepRange) when the view is in id order; in another order it goes to the index plan
 * at once: a walk in that order passes the rows of every step.
 */
async function selectRows(
  v: BrowseView,
  p: BrowseParams,
  dir: "asc" | "desc",
  limit: number,
  client: Db = readDb(),
  plan: SearchPlan = {},
  marks = true,
): Promise<RawRow[]> {
  const walk = plan.walk ?? WALK_ROWS;
  // the run's fingerprint, read once for the match set and the order kept with it (lib/db/run-fingerprint.ts)
  const fingerprint = p.run ? fingerprintOnce(p.run, client) : async () => null;
  const fromSet = async (set: { ids: string }) => {
    const page = await setPage({ v, p, dir, limit, set, client, marks, fingerprint });
    // the first page's view is the count's (the cursor is the only condition a later page adds)
    if (plan.memo && p.after === undefined) plan.memo.setTotal = page.total;
    return page.rows;
  };
  const kept = await matchSetOf(v, p, client, plan, false, fingerprint);
  if (kept) return fromSet(kept);
  const few = v.search && p.run ? await fewMatches(v.search, p.run, client, plan, fingerprint) : null;
  if (few?.length === 0) return [];
  if (few) return markPage(orderedRows([...v.where, ofRollouts(few)], p, dir, limit), client, marks);
  const stepRange = p.step_from !== undefined || p.step_to !== undefined;
  const walkable = v.search && limit < walk ? (stepRange ? await walkFromStepRange(v, p, client) : v) : null;
  if (walkable) {
    const search = { ...walkable, search: v.search! };
    // A first walk of a tenth: a search that matches fewer than a tenth of the page there is not expected to fill it
    // in the whole walk, and goes to the index at once (a failed walk of 10,000 rows cost 0.1–0.2 s at 200,000)
    const first = Math.max(limit, Math.floor(walk / 10));
    const tried = await walkedRows(search, p, dir, limit, first, client);
    if (Array.isArray(tried)) return tried;
    if (first < walk && tried.found.length * 10 >= limit) {
      // the rest of the walk goes on past the first try's last row, keeping what that found
      const rest = { ...withKey(search, keyCondition({ ...p, dir }, tried.last)), search: search.search };
      const walked = await walkedRows(rest, p, dir, limit - tried.found.length, walk - first, client);
      if (Array.isArray(walked)) return [...tried.found, ...walked];
    }
  }
  const set = await matchSetOf(v, p, client, plan, true, fingerprint);
  if (set) return fromSet(set);
  return markPage(orderedRows(allConditions(v), p, dir, limit), client, marks);
}

/**
 * The first row in the view's order past a key, for `neighbours`. A view of one run reads that run's partition in
 * key order. A view of every run is answered run by run (the best row of each, then the best of those): in one
 * query over all partitions no index gives the order — each partition's keys lead with run_id — so the ledger of
 * every run was read and sorted for one row, twice per detail page opened without a browser query. Each run's best
 * row is a branch of its own naming the run (a UNION ALL, not a lateral over runs): one partition's probe per run,
 * and on Citus (docs/scale.md) each branch one task on the worker that holds the run, where a lateral from the runs
 * into the ledger cannot be planned.
 */
async function firstPast(v: BrowseView, p: BrowseParams, dir: "asc" | "desc", client: Db) {
  if (p.run) return selectRows(v, p, dir, 1, client, {}, false);
  const runs = await client.$queryRaw<{ id: string }[]>`select id from runs order by id`;
  if (runs.length === 0) return [];
  const expr = SORT_SQL[p.sort];
  const d = Prisma.raw(dir);
  const where = allConditions(v);
  const best = (run: string) => Prisma.sql`(
        select l.id, l.trajectory_id, ${expr} as sort_value
          from ledger l
         where l.run_id = ${run} and ${Prisma.join(where, " and ")}
         order by ${expr} ${d}, l.id ${d}
         limit 1)`;
  return client.$queryRaw<Pick<RawRow, "trajectory_id">[]>`
    select x.trajectory_id
      from (${Prisma.join(
        runs.map((r) => best(r.id)),
        " union all ",
      )}) x
     order by x.sort_value ${d}, x.id ${d}
     limit 1`;
}

/** A row's place in its view's order, as a cursor holds it. */
function cursorKey(r: Pick<RawRow, "id" | "sort_value">): Cursor {
  return { v: r.sort_value === null ? null : Number(r.sort_value), id: r.id.toString() };
}

function cursorOf(r: RawRow): string {
  return encodeCursor(cursorKey(r));
}

/** Runs a read of the view: under the search's statement timeout when `q` is a search (withSearchTimeout). */
function readView<T>(kind: QueryKind | undefined, body: (client: Db) => Promise<T>): Promise<T> {
  return kind?.kind === "search" ? withSearchTimeout(readDb(), body) : body(readDb());
}

/**
 * One page of the browser. `nextCursor` is null on the last page. With a search, each row carries the snippets of
 * its matches. A search the statement timeout stops is thrown as SearchTimeoutError. `plan` says how a search's
 * page is read (selectRows; by default as the console reads it).
 */
export async function browseLedger(
  p: BrowseParams,
  limit = 100,
  opts: { snippets?: boolean; plan?: SearchPlan } = {},
): Promise<{ rows: BrowseRow[]; nextCursor: string | null }> {
  const kind = await kindOf(p, opts.plan?.memo);
  const view = viewOf(p, kind);
  view.page = { base: [...view.where] };
  if (p.after) {
    const cursor = decodeCursor(p.after);
    if (!cursor) throw new BrowseCursorError();
    view.where.push(keyCondition(p, cursor));
    view.page.after = cursor;
  }
  return readView(kind, async (client) => {
    const raw = await selectRows(view, p, p.dir, limit + 1, client, opts.plan);
    const more = raw.length > limit;
    const rows = (more ? raw.slice(0, limit) : raw).map(toRow);
    if (kind?.kind === "search" && opts.snippets !== false) {
      const snippets = await pageSnippets(client, kind.query, rows);
      rows.forEach((r, i) => (r.snippets = snippets[i]));
    }
    return { rows, nextCursor: more ? cursorOf(raw[limit - 1]) : null };
  });
}

/**
 * The first page of a search as the ordered walk alone answers it (selectRows' first try, a step range walked between
 * its entries' ids), null when the walk leaves it to the index; for tests that hold the walk to the index plan's page.
 */
export async function walkedPage(p: BrowseParams, limit: number, walk = WALK_ROWS): Promise<BrowseRow[] | null> {
  const kind = await queryKind(p);
  if (kind?.kind !== "search") throw new Error("walkedPage: q is not a search");
  const view = viewOf(p, kind);
  const stepRange = p.step_from !== undefined || p.step_to !== undefined;
  const rows = await withSearchTimeout(readDb(), async (client) => {
    const walkable = stepRange ? await walkFromStepRange(view, p, client) : view;
    return walkable ? walkedRows({ ...walkable, search: kind.query }, p, p.dir, limit, walk, client) : null;
  });
  return Array.isArray(rows) ? rows.map(toRow) : null;
}

export class BrowseCursorError extends Error {
  constructor() {
    super("after: not a cursor this browser produced");
  }
}

/**
 * The previous and next trajectory around one entry, in the order of the given browser state; none when its search
 * does not parse or its statement timeout stops it (the page is shown without them).
 */
export async function neighbours(
  p: BrowseParams,
  entry: { id: bigint; sortValue: number | null },
  client: Db = readDb(),
): Promise<{ prev: string | null; next: string | null }> {
  try {
    const kind = await queryKind(p, client);
    const base = viewOf(p, kind);
    const cursor: Cursor = { v: entry.sortValue, id: entry.id.toString() };
    const reversed: BrowseParams = { ...p, dir: p.dir === "desc" ? "asc" : "desc" };
    // Both at once: on Citus each is a round trip through the coordinator to the run's worker, and the detail page
    // waits for the later of the two instead of their sum (docs/benchmarks.md, "Citus").
    const around = async (c: Db) => {
      const [forward, backward] = await Promise.all([
        firstPast(withKey(base, keyCondition(p, cursor)), p, p.dir, c),
        firstPast(withKey(base, keyCondition(reversed, cursor)), reversed, reversed.dir, c),
      ]);
      return { prev: backward[0]?.trajectory_id ?? null, next: forward[0]?.trajectory_id ?? null };
    };
    return kind?.kind === "search" ? await withSearchTimeout(readDb(), around) : await around(client);
  } catch (err) {
    if (err instanceof SearchInputError || err instanceof SearchTimeoutError) return { prev: null, next: null };
    throw err;
  }
}

/** The value an entry sorts by under a browser state (for `neighbours`). */
export function sortValueOf(p: BrowseParams, e: Record<string, unknown>): number | null {
  if (p.sort === "id") return null;
  const key = p.sort === "raw_reward" ? "rawReward" : p.sort === "tool_steps" ? "toolSteps" : p.sort;
  const v = e[key];
  return typeof v === "number" ? v : -1;
}

const COUNT_CAP = 1_000;
/** Scopes (the run's partition, or the whole ledger) up to this many rows are counted exactly: a block sample of rows
 * clustered by step can be 10 % off, and one scan of this many rows is a bounded cost. */
const EXACT_SCOPE_ROWS = 500_000;
/** Rows a count's block sample aims at. */
const SAMPLE_ROWS = 10_000;
/**
 * Milliseconds a search's count may spend on the exact figure (from its start, the count to 1,000 included) before it
 * answers the block sample's estimate instead: an exact count of a frequent term reads every match, 0.7–1.5 s in a
 * run of 200,000 (docs/benchmarks.md, "Search"), and the estimate adds about a tenth of that.
 */
const SEARCH_COUNT_BUDGET_MS = 600;

export type LedgerCount = { count: number; exact: boolean; atLeast?: true };
/**
 * Where a count stops being exact and how large its sample is (the defaults above; tests make them small), and a
 * search's budget for the exact figure.
 */
export type CountOptions = {
  sampleRows?: number;
  exactScopeRows?: number;
  searchBudgetMs?: number;
  estimateFirstAt?: number;
  /** Up to how many blocks (or rows) a search's matches in one run are found and counted (fewCount). */
  plan?: Pick<SearchPlan, "fewBlocks" | "fewRows" | "matchSets" | "memo">;
  /**
   * The view's first page (browseLedger of the same filters, no cursor), read beside the count: a search whose page
   * holds every match (no next page) is counted from it, without reading its matches again.
   */
  firstPage?: Promise<{ rows: unknown[]; nextCursor: string | null }>;
};
/**
 * A search in a scope too large to count exactly is estimated first, and answered by the estimate at once when it
 * is at least this many: its count to 1,000 was answered by the plan the page no longer uses (every match hashed
 * against a scan of the run's partition), 3.2–3.9 s for a frequent Chinese term in a run of 1 M (docs/benchmarks.md,
 * "Search"). Twice the cap: a sample of 10,000 rows that estimates 2,000 saw about 20 matches, and one whose true
 * count is at most 1,000 (10 expected) sees that many about 3 times in 1,000.
 */
const ESTIMATE_FIRST_AT = 2 * COUNT_CAP;

/**
 * How many entries match: exact up to 1,000, and exact in a scope of up to 500,000 rows (the run's partition when the
 * filter names a run, else the ledger, by the partitions' statistics); above that an estimate from a block sample of
 * the scope (about `sampleRows` rows, REPEATABLE so the figure does not jitter between reloads), labelled as such.
 * An exact count over millions of rows would cost more than the page itself, and the planner's own estimate is no
 * use for the guardrail bitmask predicates. A search in one run whose index says its matches are few is counted
 * exactly from them (fewCount). Another search is counted exactly only within its budget
 * (SEARCH_COUNT_BUDGET_MS, a statement timeout on the exact count), else estimated the same way; in a scope too large
 * to count it is estimated first, and an estimate of at least ESTIMATE_FIRST_AT is the answer. When the sample sees
 * too few matches to estimate more than 1,000 (a rare filter in a large table), only the bound is known: `atLeast`
 * says the count is "more than 1,000", not an estimate.
 */
export async function countLedger(p: BrowseParams, opts: CountOptions = {}): Promise<LedgerCount> {
  const kind = await kindOf(p, opts.plan?.memo);
  // A search's view of one run, counted as the console counts it, is kept while the run's entries and rollouts are
  // unchanged (lib/ledger/search-view-data.ts)
  const { sampleRows, exactScopeRows, searchBudgetMs, estimateFirstAt, plan } = opts;
  const tuned = [sampleRows, exactScopeRows, searchBudgetMs, estimateFirstAt, plan?.fewBlocks, plan?.fewRows];
  if (kind?.kind === "search" && p.run && plan?.matchSets === undefined && tuned.every((x) => x === undefined))
    return keptSearchCount({ ...p, run: p.run }, () => countView(p, kind, opts));
  return countView(p, kind, opts);
}

/** countLedger's count of a view, its `q` read. */
async function countView(p: BrowseParams, kind: QueryKind | undefined, opts: CountOptions): Promise<LedgerCount> {
  const started = Date.now();
  const view = viewOf(p, kind);
  // A search whose first page holds every match is counted by it: its matches were found once, for the page (the
  // searches that find few read what the page reads again, 0.4–1.3 s for some at 1 M rollouts)
  if (kind?.kind === "search" && opts.firstPage && p.after === undefined) {
    const page = await opts.firstPage;
    if (page.nextCursor === null) return { count: page.rows.length, exact: true };
    const counted = opts.plan?.memo?.setTotal;
    if (counted !== undefined) return { count: counted, exact: true };
  }
  // A match set kept for the search in the run (lib/search/match-set-data.ts) counts it exactly, by its rollouts' entries
  const kept = await setCount(kind, view, p, opts.plan ?? {}, false);
  if (kept !== null) return { count: kept, exact: true };
  const few = view.search && p.run ? await fewCount(kind, view, p.run, opts.plan) : null;
  if (few !== null) return { count: few, exact: true };
  const where = Prisma.join(allConditions(view), " and ");
  const scopeRows = opts.exactScopeRows ?? EXACT_SCOPE_ROWS;
  const sampleRows = opts.sampleRows ?? SAMPLE_ROWS;
  const base = view.search ? await sampleBase(p.run) : undefined;
  const first = base === undefined ? null : await searchEstimate(view, p, base, scopeRows, sampleRows);
  if (first !== null && first >= (opts.estimateFirstAt ?? ESTIMATE_FIRST_AT)) return { count: first, exact: false };
  // Not estimated as many: its matches in the run gathered (or those the page is gathering) count it exactly
  const set = await setCount(kind, view, p, opts.plan ?? {}, true);
  if (set !== null) return { count: set, exact: true };
  const n = await readView(kind, async (client) => {
    const rows = await client.$queryRaw<{ n: bigint }[]>`
      select count(*) as n from (select 1 from ledger l where ${where} limit ${COUNT_CAP + 1}) s`;
    return Number(rows[0].n);
  });
  if (n <= COUNT_CAP) return { count: n, exact: true };
  const tuples = base ?? (await sampleBase(p.run));
  const exact = (client: Db) =>
    client.$queryRaw<{ n: bigint }[]>`select count(*) as n from ledger l where ${where}`.then(([all]): LedgerCount => ({
      count: Number(all.n),
      exact: true,
    }));
  if (tuples <= scopeRows) {
    if (kind?.kind !== "search") return exact(readDb());
    const counted = await withinBudget(exact, started + (opts.searchBudgetMs ?? SEARCH_COUNT_BUDGET_MS));
    if (counted) return counted;
  }
  const past = (e: number): LedgerCount =>
    e > COUNT_CAP ? { count: e, exact: false } : { count: COUNT_CAP, exact: false, atLeast: true };
  if (first !== null) return past(first);
  const estimate = (client: Db) =>
    estimateCount(sampledWhere(view), p.run, tuples, sampleRows, client, view.search !== undefined).then(past);
  // A search's page is found by then: a count past the cap that the timeout stops is "more than 1,000", not an error
  return readView(kind, estimate).catch((err: unknown) => {
    if (err instanceof SearchTimeoutError) return { count: COUNT_CAP, exact: false, atLeast: true } as const;
    throw err;
  });
}

/**
 * How many entries of a view of one run match its search, counted exactly when its index says its matches are few
 * (fewMatches): the view's entries of those rollouts. Null when they are not few.
 */
async function fewCount(kind: QueryKind | undefined, v: BrowseView, run: string, plan?: SearchPlan) {
  if (!v.search) return null;
  // the page's answer, when it asked (without a transaction of its own to wait for it in)
  const asked = plan?.memo?.few;
  const few = asked ? await asked : await readView(kind, (c) => fewMatches(v.search!, run, c, plan));
  if (few === null) return null;
  return few.length === 0 ? 0 : readView(kind, (c) => countOf([...v.where, ofRollouts(few)], c));
}

/**
 * How many entries of a view of one run match its search, counted from the search's match set in the run (one read:
 * the set's rollouts' entries under the view's filters): the set kept, or, with `gather`, kept or gathered now. Null
 * without one (nothing is read when no set of the search in the run is kept and `gather` is false).
 */
async function setCount(
  kind: QueryKind | undefined,
  v: BrowseView,
  p: BrowseParams,
  plan: SearchPlan,
  gather: boolean,
) {
  if (!v.search || !p.run || plan.matchSets === false || (!gather && !matchSetHeld(v.search, p.run))) return null;
  return readView(kind, async (c) => {
    const set = await matchSetOf(v, p, c, plan, gather, fingerprintOnce(p.run!, c));
    return set && countOf([...v.where, ofMatchSet(set)], c);
  });
}

/** The entries under some conditions, counted. */
async function countOf(where: Prisma.Sql[], client: Db): Promise<number> {
  const [{ n }] = await client.$queryRaw<{ n: bigint }[]>`
    select count(*) as n from ledger l where ${Prisma.join(where, " and ")}`;
  return Number(n);
}

/**
 * The view's conditions for a block sample's rows: a search's as a probe of each sampled row's search row by its key
 * (searchProbe), since the index's condition (searchCondition), evaluated once per sampled row, reads the index once per
 * row, and the planner would otherwise hash every match first.
 */
function sampledWhere(v: BrowseView): Prisma.Sql {
  return Prisma.join(v.search ? [...v.where, searchProbe(v.search, "l")] : v.where, " and ");
}

/**
 * A search's block-sample estimate (estimateCount) when its scope is too large to count exactly, each sampled row
 * probed for the search by its key (searchProbe: the planner would otherwise hash every match first); null in a
 * smaller scope, or when the search's timeout stops it.
 */
async function searchEstimate(v: BrowseView, p: BrowseParams, tuples: number, scopeRows: number, sampleRows: number) {
  if (!v.search || tuples <= scopeRows) return null;
  return withSearchTimeout(readDb(), (client) =>
    estimateCount(sampledWhere(v), p.run, tuples, sampleRows, client, true),
  ).catch((err: unknown) => {
    if (err instanceof SearchTimeoutError) return null;
    throw err;
  });
}

/** A read run under a statement timeout that ends at `deadline` (epoch ms); null when it is stopped, or already past. */
async function withinBudget<T>(body: (client: Db) => Promise<T>, deadline: number): Promise<T | null> {
  const left = deadline - Date.now();
  if (left < 1) return null;
  try {
    return await withSearchTimeout(readDb(), body, left);
  } catch (err) {
    if (err instanceof SearchTimeoutError) return null;
    throw err;
  }
}

/**
 * Matches in a quarter of a search's sample that give its share on their own (estimateCount's `early`): at 250 of
 * about 2,500 rows the share is at least a tenth, and its sampling error (binomial, before the blocks' clustering)
 * at most 6 %.
 */
const EARLY_MATCHES = 250;

/**
 * The matching share of a block sample of the scope times the scope's rows. A ratio, not the sample's matches scaled
 * by the sampling rate: the number of rows a block sample draws varies with the blocks drawn (±14 % at 150 blocks),
 * and that variation cancels in the share. 0 when the sample drew nothing. With `early` (a search, whose every sampled
 * row is probed: about 100 ms for 10,000 rows at 1 M rollouts) a quarter of the sample is drawn first — a SYSTEM
 * sample with the same seed and a smaller share draws a subset of the larger one's blocks — and a share it sees at
 * least EARLY_MATCHES times is the answer: a frequent term's count costs a quarter.
 */
async function estimateCount(
  where: Prisma.Sql,
  run: string | undefined,
  tuples: number,
  sampleRows: number,
  client: Db = readDb(),
  early = false,
) {
  const scope = run ? Prisma.sql`l.run_id = ${run}` : Prisma.sql`true`;
  const draw = async (rows: number) => {
    const percent = Math.min(100, Math.max(0.0001, (rows / tuples) * 100));
    const [sampled] = await client.$queryRaw<{ matching: bigint; drawn: bigint }[]>`
      select count(*) filter (where ${where}) as matching, count(*) as drawn
        from ledger l tablesample system (${percent}::real) repeatable (7) where ${scope}`;
    return { matching: Number(sampled.matching), drawn: Number(sampled.drawn) };
  };
  let sampled = early && sampleRows < tuples ? await draw(sampleRows / 4) : null;
  if (!sampled || sampled.matching < EARLY_MATCHES) sampled = await draw(sampleRows);
  return sampled.drawn ? Math.round((sampled.matching / sampled.drawn) * tuples) : 0;
}

/**
 * The rows a count's block sample is sized against: the run's partition's when the filter names a run (the query
 * then scans that partition only), else every partition's. Read from the partitions' own statistics, which
 * autovacuum keeps current; a partitioned parent's are set only by an explicit ANALYZE of it, so after a big ingest
 * they still describe the ledger as it was (an empty one: every count above the cap would read the whole run). A
 * partition never analyzed counts as no rows, and a sample sized against nothing is the whole partition. A ledger
 * distributed on Citus has no partitions: there it is `distributedRows`.
 */
export async function sampleBase(run?: string): Promise<number> {
  if (await ledgerDistributed(readDb())) return Math.max(1, await distributedRows(run));
  const name = run ?? null;
  const [{ tuples }] = await readDb().$queryRaw<{ tuples: number }[]>`
    select coalesce(sum(greatest(c.reltuples, 0)), 0)::float8 as tuples
      from pg_inherits i join pg_class c on c.oid = i.inhrelid
     where i.inhparent = 'ledger'::regclass
       and (${name}::text is null
            or c.oid = to_regclass(quote_ident(verity_run_partition_name('ledger', ${name}::text))))`;
  return Math.max(1, tuples);
}

/**
 * The rows of a ledger distributed by run (docs/scale.md, "Verity on Citus"). A run's: its current entries (its
 * rollups) and those they superseded (its counters), both kept where its rows are written, so exact and read on its
 * worker, O(its steps); a run's shard holds other runs too, so its statistics would not size the run. Every run's:
 * the shards' own statistics, read on each shard (a page over every run reads every shard anyway).
 */
async function distributedRows(run: string | undefined): Promise<number> {
  if (run === undefined) {
    const [{ tuples }] = await readDb().$queryRaw<{ tuples: number }[]>`
      select coalesce(sum(greatest(result::float8, 0)), 0)::float8 as tuples
        from run_command_on_shards('ledger', $$select reltuples from pg_class where oid = '%s'::regclass$$)
       where success`;
    return tuples;
  }
  const [{ rows }] = await readDb().$queryRaw<{ rows: number }[]>`
    select (select coalesce(sum(s.rollouts), 0) from step_rollups s where s.run_id = ${run})::float8
         + (select coalesce(sum(k.superseding_count), 0) from run_counters k where k.run_id = ${run})::float8 as rows`;
  return rows;
}

/** Every matching row in browser order, in batches (for CSV/NDJSON export of the filtered set). */
export async function* iterateLedger(p: BrowseParams, batch = 2000): AsyncGenerator<BrowseRow[]> {
  let after: string | undefined;
  for (;;) {
    const page = await browseLedger({ ...p, after }, batch, { snippets: false });
    if (page.rows.length) yield page.rows;
    if (!page.nextCursor) return;
    after = page.nextCursor;
  }
}
