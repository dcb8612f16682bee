// The database half of ingest: one batch, one transaction. Under the ingest lock it reads what already exists
// (by ticket, trajectory and current ledger entry), decides per line accepted / unchanged / conflict, and writes the
// new rows with COPY, then the rollups. Any error rolls the whole batch back, so a failed batch leaves nothing.
import type pg from "pg";
import { classifyDatabaseError } from "@/lib/db/describe-error.ts";
import { copyEncodedRows, copyRows, type CopyValue, type EncodedRow } from "@/lib/db/copy.ts";
import { LEDGER_TAIL_COLUMNS, withTrainedReward, type LedgerEntryRows } from "@/lib/ledger/store/ledger-rows.ts";
import { ROLLOUT_TAIL_COLUMNS, type CaseRow, type RolloutRow } from "@/lib/ledger/store/rows.ts";
import { applyRollupDelta, RollupDelta } from "@/lib/ledger/store/rollups.ts";
import { writeCaseVersion, type RevisionMarker } from "@/lib/ledger/store/case-version.ts";
import { insertSearchRows } from "@/lib/ledger/store/search-rows.ts";

/** One line of an ingest batch, parsed, validated and mapped (lib/ingest/prepare.ts): what the batch writes of it. */
export type PreparedLine = {
  line: number;
  /** The line as received, for --rejects (kept, while its batch is in flight, only when asked for). */
  text: string | null;
  reject?: { path: string; message: string };
  /** `revision`: the line says it revises the stored case (a different case is then a new version, not a conflict). */
  case?: { row: CaseRow; ifAbsent: boolean; revision?: RevisionMarker };
  /** `caseVersion`: the version of the case that scored `score`. */
  rollout?: { row: RolloutRow; score?: LedgerEntryRows; caseVersion?: number; caseKnown: boolean };
  score?: LedgerEntryRows;
  /** Ticket category for the line's ledger entry (from its case, when known). */
  category: string | null;
};

/**
 * The ledger's advisory locks (transaction-scoped). Every writer of one run's ledger (an ingest batch, a re-score
 * batch) holds the run's lock, (LEDGER_WRITE_LOCK, hashtext(run)): "is there a current entry for this trajectory?"
 * and the insert that follows must not interleave with another writer's of that run, and a trajectory is in one run.
 * Writers of different runs share no rows of the ledger, so they run at once. They also hold LEDGER_WRITE_LOCK itself
 * shared, which a writer across runs (a case revision, an archive) takes exclusively to wait for them all and keep
 * them out.
 */
export const LEDGER_WRITE_LOCK = 0x76657269;

/**
 * Starts a transaction of a ledger writer of `runs` (an ingest batch, a re-score batch) and takes their locks:
 * LEDGER_WRITE_LOCK shared, then each run's in the order of its key, so two writers of overlapping runs wait for each
 * other rather than deadlock. Every read such a transaction makes is a lookup by key (trajectory, ticket, id). While a
 * large write runs the tables grow faster than autovacuum re-analyses them, and with statistics from when a table was
 * small the planner scanned it for the existence check (89 ms instead of 2 per batch at 200,000 rows; 12 s of a 34 s
 * ingest): index lookups are made the only sensible plan for the transaction. Nor does any of them gain from parallel
 * workers, whose start-up alone cost 75 ms a batch once the existence check grew a fourth branch (029) and looked
 * costly enough to the planner. The settings are a statement of their own: on Citus a SET LOCAL is passed on to the
 * workers as the text of the whole query that held it, so the locks sent with it were taken again on each of the
 * transaction's connections to a worker, and a second connection to one worker (an INSERT … SELECT's) waited for
 * the first's lock for ever.
 *
 * With `known` (the runs the writer has seen stored), a writer that may bring a new run checks, under the shared
 * lock, whether each run it writes exists; if one does not, it starts again holding LEDGER_WRITE_LOCK exclusively,
 * as a writer across runs does. A new run's partitions (014) are made by its first write, and attaching them
 * (ATTACH PARTITION, and the foreign keys it adds) takes locks on the parent tables that another run's writer in the
 * middle of its COPYs holds, while that writer waits for what the attach holds: two ingests that each brought a new
 * run deadlocked. Alone, the new run's first batch waits for the batches in flight and holds back the next ones for
 * its own duration; its runs then exist, and no other batch makes partitions. A run, once seen to exist under the
 * shared lock, stays (only archive removes one, and it takes the lock exclusively).
 */
export async function beginLedgerWrite(
  client: pg.PoolClient,
  runs: Iterable<string>,
  known?: ReadonlySet<string>,
): Promise<void> {
  const ids = [...new Set(runs)];
  await lockRuns(client, ids);
  const unknown = known ? ids.filter((r) => !known.has(r)) : [];
  if (unknown.length > 0 && (await newRuns(client, unknown))) {
    await client.query("rollback");
    await beginLedgerWriteAllRuns(client);
  }
  await client.query("set local enable_seqscan = off; set local max_parallel_workers_per_gather = 0");
}

/** Begins the transaction holding LEDGER_WRITE_LOCK shared and the locks of `runs` (beginLedgerWrite). */
async function lockRuns(client: pg.PoolClient, runs: string[]): Promise<void> {
  const ids = runs.map((r) => client.escapeLiteral(r));
  await client.query(
    `begin; select pg_advisory_xact_lock_shared(${LEDGER_WRITE_LOCK});
     select pg_advisory_xact_lock(${LEDGER_WRITE_LOCK}, k)
       from (select distinct hashtext(r) as k from unnest(array[${ids.join(", ")}]::text[]) as r order by 1 offset 0) as keys`,
  );
}

/** Whether any of `runs` is not stored yet (its first write makes its partitions). */
async function newRuns(client: pg.PoolClient, runs: string[]): Promise<boolean> {
  const { rows } = await client.query<{ missing: boolean }>(
    "select exists (select 1 from unnest($1::text[]) as r where not exists (select 1 from runs where id = r)) as missing",
    [runs],
  );
  return rows[0].missing;
}

/** Starts a transaction of a writer across runs (a case revision, an archive): every ledger writer waits for it. */
export async function beginLedgerWriteAllRuns(client: pg.PoolClient): Promise<void> {
  await client.query(`begin; select pg_advisory_xact_lock(${LEDGER_WRITE_LOCK})`);
}

/** The runs whose rows an ingest batch may write: those its rollouts and score records name. */
function runsOf(lines: PreparedLine[]): Set<string> {
  const runs = new Set<string>();
  for (const l of lines) {
    if (l.reject) continue;
    if (l.rollout) runs.add(l.rollout.row.run_id);
    if (l.score) runs.add(l.score.values.run_id);
  }
  return runs;
}

export type PartOutcome = "accepted" | "unchanged";
export type LineOutcome = {
  line: number;
  status: "accepted" | "unchanged" | "rejected";
  path?: string;
  message?: string;
  parts: { case?: PartOutcome; rollout?: PartOutcome; score?: PartOutcome };
  /** The verifier's entry for the line's rollout was written. */
  scored: boolean;
  /** The line's rollout was stored without a ledger entry (its case is unknown). */
  unscored: boolean;
};

/**
 * A batch that failed on its data (a data-class SQLSTATE, see classifyDatabaseError; not the connection): it was
 * rolled back, and the caller splits it to find the offending line.
 */
export class BatchDataError extends Error {
  constructor(readonly cause: Error & { code?: string; column?: string }) {
    super(cause.message);
  }
}

/**
 * What the batches of one ingest learn about the database and reuse: registry ids by hash, runs known to exist.
 * Entries are added only after their batch commits (a rolled-back batch must not leave a stale id behind).
 */
export type WriteContext = { registries: Map<string, number>; runs: Set<string> };

export function newWriteContext(): WriteContext {
  return { registries: new Map(), runs: new Set() };
}

export type NewEntry = {
  rows: LedgerEntryRows;
  trajectoryId: string;
  category: string | null;
  /** The case version that scored the entry (the verifier's); null or absent for a score record from outside. */
  caseVersion?: number | null;
};

type Revision = { row: CaseRow; version: number; meta: RevisionMarker };

type StoredRollout = {
  id: string | null;
  hash: string;
  run_id: string;
  step: number;
  ticket_id: string;
  trained: number | null;
};

/** COPY columns of a ledger row: those known only when it is written, then its encoded tail (LedgerEntryRows.copy). */
const LEDGER_COLUMNS = [
  "id",
  "rollout_id",
  "category",
  "supersedes_id",
  "trained_reward",
  "content_hash",
  "case_version",
  ...LEDGER_TAIL_COLUMNS,
];

export async function writeIngestBatch(
  client: pg.PoolClient,
  lines: PreparedLine[],
  ctx: WriteContext,
): Promise<LineOutcome[]> {
  await beginLedgerWrite(client, runsOf(lines), ctx.runs);
  try {
    const pending: WriteContext = newWriteContext();
    const outcomes = await classifyAndWrite(client, lines, ctx, pending);
    await client.query("commit");
    for (const [h, id] of pending.registries) ctx.registries.set(h, id);
    for (const r of pending.runs) ctx.runs.add(r);
    return outcomes;
  } catch (err) {
    await client.query("rollback").catch(() => undefined);
    if (classifyDatabaseError(err) === "data") throw new BatchDataError(err as Error);
    throw err;
  }
}

async function classifyAndWrite(
  client: pg.PoolClient,
  lines: PreparedLine[],
  ctx: WriteContext,
  pending: WriteContext,
): Promise<LineOutcome[]> {
  const known = await readKnown(client, lines);
  const plan = classifyLines(lines, known);
  await ensureRuns(
    client,
    [...plan.rollouts.map((r) => r.run_id), ...plan.entries.map((e) => e.rows.values.run_id)],
    ctx,
    pending,
  );
  await recordTrajectories(client, [...plan.rollouts, ...plan.entries.map((e) => e.rows.values)], known.recorded);
  const ids = await allocateIds(client, plan.rollouts.length, plan.entries.length);
  await insertCases(client, plan.cases);
  // In line order, after the new cases: a line may revise a case an earlier line of the batch brought.
  for (const r of plan.revisions)
    await writeCaseVersion(client, r.row, r.version, { reason: r.meta.reason, answers: r.meta.answers });
  await insertRollouts(client, plan.rollouts, ids.rollouts, known.rollouts, ctx, pending);
  await insertSearchRows(client, plan.rollouts, ids.rollouts, [...plan.cases, ...plan.revisions.map((r) => r.row)]);
  await insertLedgerEntries(client, plan.entries, ids.ledger, (t) => known.rollouts.get(t)?.id ?? null);
  return plan.outcomes;
}

/**
 * What the database holds of the batch's keys, and (as the lines are classified) what earlier lines of the batch
 * add: each case's hash and version by ticket, each rollout and current entry's hash by trajectory.
 */
type Known = {
  cases: Map<string, { hash: string; version: number }>;
  rollouts: Map<string, StoredRollout>;
  current: Map<string, string>;
  /** The batch's trajectories already recorded in `trajectories`, with their run. */
  recorded: Map<string, string>;
};

/** What exists already, in one round trip: cases by ticket, the batch's recorded trajectories, their rollouts and
 * current ledger entries (each trajectory's run from the trajectories lookup, so every probe is on that run's
 * partition). */
async function readKnown(client: pg.PoolClient, lines: PreparedLine[]): Promise<Known> {
  const tickets = new Set<string>();
  const trajectories = new Set<string>();
  for (const l of lines) {
    if (l.reject) continue;
    if (l.case) tickets.add(l.case.row.ticket_id);
    if (l.rollout) trajectories.add(l.rollout.row.trajectory_id);
    if (l.score) trajectories.add(l.score.values.trajectory_id);
  }
  const known: Known = { cases: new Map(), rollouts: new Map(), current: new Map(), recorded: new Map() };
  if (!tickets.size && !trajectories.size) return known;
  const { rows } = await client.query<{
    k: "c" | "t" | "r" | "l";
    key: string;
    hash: string;
    id: string | null;
    run_id: string | null;
    step: number | null;
    ticket_id: string | null;
    trained: number | null;
  }>(
    `select 'c' as k, ticket_id as key, content_hash as hash, null::text as id, null::text as run_id, version as step, null::text as ticket_id, null::float8 as trained
       from cases where ticket_id = any($1::text[])
     union all
     select 't', t.trajectory_id, '', null, t.run_id, null, null, null
       from trajectories t where t.trajectory_id = any($2::text[])
     union all
     select 'r', r.trajectory_id, r.content_hash, r.id::text, r.run_id, r.step, r.ticket_id, r.trained_reward
       from trajectories t join rollouts r on r.run_id = t.run_id and r.trajectory_id = t.trajectory_id
      where t.trajectory_id = any($2::text[])
     union all
     select 'l', l.trajectory_id, l.content_hash, null, null, null, null, null
       from trajectories t join ledger l on l.run_id = t.run_id and l.trajectory_id = t.trajectory_id
      where t.trajectory_id = any($2::text[]) and l.is_current`,
    [[...tickets], [...trajectories]],
  );
  for (const r of rows) {
    if (r.k === "c") known.cases.set(r.key, { hash: r.hash, version: r.step! });
    else if (r.k === "t") known.recorded.set(r.key, r.run_id!);
    else if (r.k === "r")
      known.rollouts.set(r.key, {
        id: r.id,
        hash: r.hash,
        run_id: r.run_id!,
        step: r.step!,
        ticket_id: r.ticket_id!,
        trained: r.trained,
      });
    else known.current.set(r.key, r.hash);
  }
  return known;
}

/** The rows the batch writes, in line order, and each line's outcome. */
type Plan = {
  cases: CaseRow[];
  revisions: Revision[];
  rollouts: RolloutRow[];
  entries: NewEntry[];
  outcomes: LineOutcome[];
};

/**
 * What one line would add, decided part by part (case, rollout, score); nothing of it is kept when a part conflicts.
 * One object serves every line of a batch.
 */
type LineDecision = {
  conflict: { path: string; message: string } | null;
  addCase: CaseRow | null;
  revise: Revision | null;
  addRollout: RolloutRow | null;
  addEntries: NewEntry[];
};

/** Decides each line accepted, unchanged or rejected against what is known, earlier lines of the batch included. */
function classifyLines(lines: PreparedLine[], known: Known): Plan {
  const plan: Plan = { cases: [], revisions: [], rollouts: [], entries: [], outcomes: [] };
  /** New rollouts without a case, by trajectory: a score line later in the batch gives them an entry after all. */
  const waiting = new Map<string, LineOutcome>();
  const d: LineDecision = { conflict: null, addCase: null, revise: null, addRollout: null, addEntries: [] };
  for (const l of lines) {
    const o: LineOutcome = { line: l.line, status: "unchanged", parts: {}, scored: false, unscored: false };
    plan.outcomes.push(o);
    if (l.reject) {
      Object.assign(o, { status: "rejected", ...l.reject });
      continue;
    }
    clearDecision(d);
    if (l.case) decideCase(l.case, known, o, d);
    if (!d.conflict && l.rollout) decideRollout(l, known, o, d, waiting);
    if (!d.conflict && l.score) decideScore(l, l.score, known, o, d);
    if (d.conflict) Object.assign(o, { status: "rejected", ...d.conflict, parts: {}, scored: false, unscored: false });
    else keepDecision(d, known, plan, o);
  }
  for (const e of plan.entries) {
    const o = waiting.get(e.trajectoryId);
    if (o) o.unscored = false;
  }
  return plan;
}

function clearDecision(d: LineDecision): void {
  d.conflict = null;
  d.addCase = null;
  d.revise = null;
  d.addRollout = null;
  d.addEntries.length = 0;
}

function decideCase(c: NonNullable<PreparedLine["case"]>, known: Known, o: LineOutcome, d: LineDecision): void {
  const stored = known.cases.get(c.row.ticket_id);
  if (stored === undefined) {
    d.addCase = c.row;
    o.parts.case = "accepted";
  } else if (stored.hash === c.row.content_hash || c.ifAbsent) {
    o.parts.case = "unchanged";
  } else if (c.revision) {
    d.revise = { row: c.row, version: stored.version + 1, meta: c.revision };
    o.parts.case = "accepted";
  } else {
    d.conflict = {
      path: "ticket.id",
      message: `conflict: ticket ${c.row.ticket_id} already has a different case; cases are never overwritten unless the line says "revision": {"reason": …}`,
    };
  }
}

function decideRollout(
  l: PreparedLine,
  known: Known,
  o: LineOutcome,
  d: LineDecision,
  waiting: Map<string, LineOutcome>,
): void {
  const rollout = l.rollout!;
  const r = rollout.row;
  const stored = known.rollouts.get(r.trajectory_id);
  if (!stored) {
    d.addRollout = r;
    o.parts.rollout = "accepted";
  } else if (stored.hash === r.content_hash) {
    o.parts.rollout = "unchanged";
  } else {
    d.conflict = {
      path: "trajectory_id",
      message: `conflict: trajectory ${r.trajectory_id} is already stored with different content; rollouts are never overwritten`,
    };
  }
  // Only a rollout stored by this line is scored: re-sending a stored rollout stays a no-op even when its case
  // has arrived since (`verity rescore` scores those).
  if (!d.conflict && d.addRollout && rollout.score && !known.current.has(r.trajectory_id)) {
    // The verifier's record knows nothing of the trainer: the entry takes the rollout's trained reward.
    const rows = withTrainedReward(rollout.score, r.trained_reward);
    d.addEntries.push({
      rows,
      trajectoryId: r.trajectory_id,
      category: l.category,
      caseVersion: rollout.caseVersion ?? null,
    });
    o.scored = true;
  } else if (!d.conflict && d.addRollout && !rollout.caseKnown && !l.score) {
    o.unscored = true;
    waiting.set(r.trajectory_id, o);
  }
}

function decideScore(
  l: PreparedLine,
  record: NonNullable<PreparedLine["score"]>,
  known: Known,
  o: LineOutcome,
  d: LineDecision,
): void {
  const v = record.values;
  const addRollout = d.addRollout;
  const r =
    known.rollouts.get(v.trajectory_id) ??
    (addRollout && addRollout.trajectory_id === v.trajectory_id
      ? { ...addRollout, trained: addRollout.trained_reward }
      : undefined);
  const mismatch = r && (["run_id", "step", "ticket_id"] as const).find((k) => r[k] !== v[k]);
  const cur = known.current.get(v.trajectory_id);
  // A record that gives no trained reward takes its rollout's. It matches a current entry with that one or with
  // none (the entry was written before its rollout arrived), so sending the same file again changes nothing.
  const own = v.trained_reward;
  const score = own === null ? withTrainedReward(record, r?.trained ?? null) : record;
  const same = cur === score.content_hash || (own === null && cur === record.record_hash);
  if (mismatch) {
    d.conflict = {
      path: mismatch,
      message: `${mismatch} ${JSON.stringify(v[mismatch])} does not match the stored rollout of ${v.trajectory_id} (${JSON.stringify(r[mismatch])})`,
    };
  } else if (cur === undefined) {
    d.addEntries.push({ rows: score, trajectoryId: v.trajectory_id, category: l.category });
    o.parts.score = "accepted";
  } else if (same) {
    o.parts.score = "unchanged";
  } else {
    d.conflict = {
      path: "trajectory_id",
      message: `conflict: trajectory ${v.trajectory_id} already has a different current ledger entry; use \`verity rescore\` to re-score, entries are never overwritten`,
    };
  }
}

/** A line without conflict: its rows join the plan, and what later lines of the batch compare with. */
function keepDecision(d: LineDecision, known: Known, plan: Plan, o: LineOutcome): void {
  const { addCase, revise, addRollout, addEntries } = d;
  if (addCase) {
    known.cases.set(addCase.ticket_id, { hash: addCase.content_hash, version: 1 });
    plan.cases.push(addCase);
  }
  if (revise) {
    known.cases.set(revise.row.ticket_id, { hash: revise.row.content_hash, version: revise.version });
    plan.revisions.push(revise);
  }
  if (addRollout) {
    const r = addRollout;
    known.rollouts.set(r.trajectory_id, {
      id: null,
      hash: r.content_hash,
      run_id: r.run_id,
      step: r.step,
      ticket_id: r.ticket_id,
      trained: r.trained_reward,
    });
    plan.rollouts.push(r);
  }
  for (const e of addEntries) {
    known.current.set(e.trajectoryId, e.rows.content_hash);
    plan.entries.push(e);
  }
  if (addCase || revise || addRollout || addEntries.length) o.status = "accepted";
}

/** Ensures the runs exist (a run is created by its first rollout or score record); runs seen before cost nothing. */
export async function ensureRuns(
  client: pg.PoolClient,
  runIds: Iterable<string>,
  ctx?: WriteContext,
  pending?: WriteContext,
): Promise<void> {
  const ids = [...new Set(runIds)].filter((r) => !ctx?.runs.has(r)).sort();
  if (ids.length === 0) return;
  await client.query("insert into runs (id) select unnest($1::text[]) on conflict (id) do nothing", [ids]);
  for (const r of ids) pending?.runs.add(r);
}

/**
 * Records the trajectories of the batch's new rows that `trajectories` does not hold yet, before those rows are
 * written: under the ledger write lock, after reading which ones it holds, so a plain insert (no ON CONFLICT, no
 * DISTINCT over the statement's rows) suffices, and the statement triggers of rollouts and ledger find every
 * trajectory recorded for its run and stop after one join (029). A trajectory recorded for another run is left to
 * those triggers, which refuse it with the run that holds it.
 */
async function recordTrajectories(
  client: pg.PoolClient,
  rows: Iterable<{ trajectory_id: string; run_id: string }>,
  recorded: Map<string, string>,
): Promise<void> {
  const fresh = new Map<string, string>();
  for (const r of rows) if (!recorded.has(r.trajectory_id)) fresh.set(r.trajectory_id, r.run_id);
  if (fresh.size === 0) return;
  // In key order: consecutive keys land on the same leaf of the primary key's index, which is then still cached.
  const ids = [...fresh.keys()].sort();
  await client.query("insert into trajectories (trajectory_id, run_id) select * from unnest($1::text[], $2::text[])", [
    ids,
    ids.map((t) => fresh.get(t)!),
  ]);
}

async function insertCases(client: pg.PoolClient, cases: CaseRow[]): Promise<void> {
  // By ticket: a writer of another run adding some of the same new cases waits for this one's (the primary key) and
  // is then refused them and retries; in one order, two such writers never wait for each other both at once.
  const rows = cases.toSorted((a, b) => (a.ticket_id < b.ticket_id ? -1 : a.ticket_id > b.ticket_id ? 1 : 0));
  await copyRows(
    client,
    "cases",
    ["ticket_id", "category", "customer_id", "ticket", "env_snapshot", "verifier_spec", "content_hash"],
    rows.map((c) => [
      c.ticket_id,
      c.category,
      c.customer_id,
      c.ticket,
      c.env_snapshot,
      c.verifier_spec,
      c.content_hash,
    ]),
  );
}

/** The id sequences of rollouts and ledger, looked up once per connection (as regclass literals, see allocateIds). */
const sequences = new WeakMap<pg.PoolClient, Promise<{ rollouts: string; ledger: string }>>();

function sequencesOf(client: pg.PoolClient): Promise<{ rollouts: string; ledger: string }> {
  let s = sequences.get(client);
  if (!s) {
    s = client
      .query<{ rollouts: string; ledger: string }>(
        `select quote_literal(pg_get_serial_sequence('"rollouts"', 'id')) as rollouts, quote_literal(pg_get_serial_sequence('"ledger"', 'id')) as ledger`,
      )
      .then((r) => r.rows[0]);
    s.catch(() => sequences.delete(client));
    sequences.set(client, s);
  }
  return s;
}

/** Ids for the new rollouts and ledger entries from their sequences in one round trip, so rows can be COPYed with
 * their ids known up front (and entries can point at rollouts of the same batch). */
export async function allocateIds(
  client: pg.PoolClient,
  rollouts: number,
  entries: number,
): Promise<{ rollouts: string[]; ledger: string[] }> {
  if (rollouts === 0 && entries === 0) return { rollouts: [], ledger: [] };
  const seq = await sequencesOf(client);
  // The sequence is named by a literal: given as a computed value, nextval opens it again for every id (10× slower).
  const { rows } = await client.query<{ r: string[] | null; l: string[] | null }>(
    `select (select array_agg(nextval(${seq.rollouts}::regclass)::text) from generate_series(1, $1::int)) as r,
            (select array_agg(nextval(${seq.ledger}::regclass)::text) from generate_series(1, $2::int)) as l`,
    [rollouts, entries],
  );
  return { rollouts: rows[0].r ?? [], ledger: rows[0].l ?? [] };
}

async function insertRollouts(
  client: pg.PoolClient,
  rows: RolloutRow[],
  ids: string[],
  stored: Map<string, StoredRollout>,
  ctx: WriteContext,
  pending: WriteContext,
): Promise<void> {
  if (rows.length === 0) return;
  const missing = new Map<string, string>();
  for (const r of rows)
    if (!ctx.registries.has(r.registry_hash) && !pending.registries.has(r.registry_hash))
      missing.set(r.registry_hash, r.registry);
  if (missing.size) {
    const hashes = [...missing.keys()].sort();
    await client.query(
      "insert into tool_registries (hash, tools) select * from unnest($1::text[], $2::jsonb[]) on conflict (hash) do nothing",
      [hashes, hashes.map((h) => missing.get(h))],
    );
    const r = await client.query<{ id: number; hash: string }>(
      "select id, hash from tool_registries where hash = any($1::text[])",
      [hashes],
    );
    for (const row of r.rows) pending.registries.set(row.hash, row.id);
  }
  const data: EncodedRow[] = rows.map((r, i) => {
    stored.get(r.trajectory_id)!.id = ids[i];
    const registryId = ctx.registries.get(r.registry_hash) ?? pending.registries.get(r.registry_hash)!;
    return { head: [ids[i], registryId], tail: r.copy };
  });
  await copyEncodedRows(client, "rollouts", ["id", "registry_id", ...ROLLOUT_TAIL_COLUMNS], data);
}

/**
 * Appends ledger entries (ids from allocateIds; their runs must exist) with their narrow guardrail and reason rows and
 * the rollups, by COPY. `supersedes` (re-score) gives, per entry, the id of the entry it replaces; the caller flips
 * that one's is_current and puts the superseded entries into `delta` with sign -1.
 */
export async function insertLedgerEntries(
  client: pg.PoolClient,
  entries: NewEntry[],
  ids: string[],
  rolloutIdOf: (trajectoryId: string) => string | null,
  supersedes?: (string | null)[],
  delta: RollupDelta = new RollupDelta(),
): Promise<string[]> {
  if (entries.length === 0 && delta.isEmpty) return [];
  const ledger: EncodedRow[] = [];
  const guardrails: CopyValue[][] = [];
  const reasons: CopyValue[][] = [];
  entries.forEach((e, i) => {
    const v = e.rows.values;
    const id = ids[i];
    ledger.push({
      head: [
        id,
        rolloutIdOf(v.trajectory_id),
        e.category,
        supersedes?.[i] ?? null,
        v.trained_reward,
        e.rows.content_hash,
        e.caseVersion ?? null,
      ],
      tail: e.rows.copy,
    });
    for (const g of e.rows.guardrails) guardrails.push([id, v.run_id, v.step, g.code, g.cap, g.deciding]);
    e.rows.reasons.forEach((r, ord) =>
      reasons.push([id, ord, v.run_id, v.step, r.dimension, r.guardrail, r.code, r.tool, r.field]),
    );
    delta.add(v, 1);
  });
  await copyEncodedRows(client, "ledger", LEDGER_COLUMNS, ledger);
  await copyRows(client, "ledger_guardrails", ["ledger_id", "run_id", "step", "code", "cap", "deciding"], guardrails);
  await copyRows(
    client,
    "ledger_reasons",
    ["ledger_id", "ord", "run_id", "step", "dimension", "guardrail", "code", "tool", "field"],
    reasons,
  );
  await applyRollupDelta(client, delta);
  return ids;
}
