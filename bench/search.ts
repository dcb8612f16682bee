// bench/search: the browser's text search at size (docs/search.md, docs/benchmarks.md "Search"). Phases, all by
// default, each selectable with --phase (repeatable); --keep keeps the database for a later --phase:
//
//   ingest       the same demo rollouts (English and Chinese) through the real ingest into two fresh databases, one as
//                migrated and one with the search's two GIN indexes (the blocks' words, the rows' CJK pairs) dropped:
//                the rate of each and their ratio (the search rows and blocks are written in both; what differs is the
//                index upkeep). Its first run is the template. bench/search-ingest.ts measures the ingest with and
//                without search at size.
//   reads        --runs runs in one database: the big run grown in place to each of --sizes (copies of the template's
//                rollouts under new ids, their rollout_search rows copied with them and their blocks made) and the others of --small-min to
//                --small-max rollouts each, copied alike; at each size the browser's first page (p50/p95 over
//                --iterations) and its count for each query kind alone, with a guardrail filter and with a step
//                range, and the rollout_search disk per million; then how each figure grew. Before each size the
//                free disk is checked: a size that would leave less than --min-free-gb is not grown to (reported).
//   mix          each view of the concurrency phase's mix alone on the big run (page and count together), with the
//                CPU the PostgreSQL server and this process spent on it, the dearest first.
//   concurrency  --users researchers against the built console (`next build`, then bin/serve.ts on --port) for
//                --seconds at the size the reads phase reached: browser pages with searches (mixed queries and
//                filters), the rows API's first page of the same view and its next pages; p50/p95/max and errors.
//
// `npx tsx bench/search.ts [--phase ingest|reads|mix|concurrency]... [--sizes 1000000,3000000,10000000] [--runs 20]
//  [--small-min 10000] [--small-max 25000] [--template-tickets 250] [--iterations 20] [--min-free-gb 15]
//  [--users 20] [--seconds 60] [--think-ms 0] [--port 3440] [--requests FILE] [--no-build] [--keep]`
// --requests writes each request of the concurrency phase to FILE as a JSON line (kind, path, status, error, at, ms).
// Every figure is printed with os.loadavg(): the machine is shared. Not part of npm test.
import fs from "node:fs";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import pg from "pg";
import { createDatabaseIfMissing, ensureDatabase } from "@/lib/db/embedded.ts";
import { migrate } from "@/lib/db/migrate.ts";
import { bindDatabase } from "@/lib/db/client.ts";
import { bindReadDatabase } from "@/lib/db/read-client.ts";
import { demoRunValues } from "@/lib/demo/generate.ts";
import { ingestValues } from "@/lib/ingest/ingest.ts";
import { browseLedger, countLedger } from "@/lib/ledger/browse.ts";
import { clearProcessCaches } from "@/lib/db/fingerprint-cache.ts";
import { parseBrowseParams, type BrowseParams } from "@/lib/ledger/browse-schema.ts";
import { loadAverage, migratedBenchDatabase, recountRollups, wholeOption } from "@/bench/lib/bench-db.ts";
import { searchDisk } from "@/bench/lib/search-disk.ts";
import { OMIT_MAX_CHARS, OMIT_SHARE, SEARCH_BLOCK_ROWS } from "@/lib/ledger/store/search-rows.ts";
import { cpuMs, serverCpuMs, serverPid } from "@/bench/lib/backend-cpu.ts";
import {
  buildConsole,
  loadRound,
  pct,
  researcherCookies,
  startConsole,
  type NextRequest,
} from "@/bench/lib/console-load.ts";

const { values } = parseArgs({
  options: {
    phase: { type: "string", multiple: true },
    sizes: { type: "string", default: "1000000,3000000,10000000" },
    runs: { type: "string", default: "20" },
    "small-min": { type: "string", default: "10000" },
    "small-max": { type: "string", default: "25000" },
    "template-tickets": { type: "string", default: "250" },
    iterations: { type: "string", default: "20" },
    "min-free-gb": { type: "string", default: "15" },
    users: { type: "string", default: "20" },
    seconds: { type: "string", default: "60" },
    "think-ms": { type: "string", default: "0" },
    port: { type: "string", default: "3440" },
    requests: { type: "string" },
    "no-build": { type: "boolean", default: false },
    keep: { type: "boolean", default: false },
  },
});
const PHASES = new Set(values.phase?.length ? values.phase : ["ingest", "reads", "concurrency"]);
for (const p of PHASES)
  if (!["ingest", "reads", "mix", "concurrency"].includes(p)) throw new Error(`unknown --phase ${p}`);
const SIZES = values.sizes!.split(",").map((x) => wholeOption("sizes", x));
const ITER = wholeOption("iterations", values.iterations);
const DB = "verity_bench_search";
const DB_NOIDX = "verity_bench_search_noidx";
const TPL = "tpl";
const BIG = "big";
const SMALL_MIN = Number(values["small-min"]);
const SMALL_MAX = Number(values["small-max"]);
const smallRuns = Array.from({ length: Math.max(1, Number(values.runs)) - 1 }, (_, i) => ({
  run: `small-${String(i + 1).padStart(2, "0")}`,
  n: Math.round(SMALL_MIN + ((SMALL_MAX - SMALL_MIN) * i) / Math.max(1, Number(values.runs) - 2)),
}));
const load = loadAverage;
const fmt = (x: number) => Math.round(x).toLocaleString("en-US");

async function freshDb(admin: string, name: string): Promise<string> {
  const c = new pg.Client(admin);
  await c.connect();
  await c.query(`drop database if exists ${name} with (force)`);
  await c.end();
  await createDatabaseIfMissing(admin, name);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  await migrate(url.toString());
  return url.toString();
}

/** Ingest of the template run: rollouts a second. */
async function ingestRate(url: string, runId: string): Promise<number> {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const lines = demoRunValues({
    runId,
    tickets: Number(values["template-tickets"]),
    steps: 8,
    k: 4,
    seed: "sb",
    variant: "hacking",
  });
  const t = performance.now();
  const s = await ingestValues(lines, { pool });
  const secs = (performance.now() - t) / 1000;
  await pool.end();
  if (!s.ok) throw new Error("ingest failed");
  return s.accepted / secs;
}

/**
 * Grows `run` to `n` rollouts: copies of the template's rollouts, entries and search rows under new ids, each round's
 * steps after the last's, the search rows into `searchTable` (the run's partition while it is detached). Resumes where an
 * earlier call (or run of the bench, --keep) stopped.
 */
async function grow(c: pg.Client, run: string, n: number, searchTable = "rollout_search"): Promise<void> {
  await c.query("insert into runs (id) values ($1) on conflict do nothing", [run]);
  const tpl = await c.query("select count(*) as n, count(distinct step) as steps from rollouts where run_id = $1", [
    TPL,
  ]);
  const [base, steps] = [Number(tpl.rows[0].n), Number(tpl.rows[0].steps)];
  const had = await c.query("select count(*) as n, max(step) as last from rollouts where run_id = $1", [run]);
  let have = Number(had.rows[0].n);
  // A round's steps are the template's numbered 0, 1, … after the last round's, as a run's steps follow its ingest
  // (the template's own steps are 0, 5,000, …: offset, they would interleave with other rounds').
  for (let round = have ? Math.floor(Number(had.rows[0].last) / steps) + 1 : 0; have < n; round++) {
    const need = Math.min(base, n - have);
    await c.query(
      `with pick as (select *, dense_rank() over (order by step) - 1 as si from rollouts where run_id = $3 order by id limit $2),
       ro as (
         insert into rollouts (trajectory_id, run_id, step, group_id, sample_index, ticket_id, steps, final_reply, sandbox,
                               registry_id, claims, tool_steps, content_hash)
         select r.trajectory_id || '#' || $4 || '.' || $1::text, $4, r.si + $1::int * $5, r.group_id || '#' || $4 || '.' || $1::text, r.sample_index, r.ticket_id,
                r.steps, r.final_reply, r.sandbox, r.registry_id, r.claims, r.tool_steps, r.content_hash
           from pick r
         returning id, trajectory_id, step),
       pairs as (select ro.id as new_id, ro.step, p.id as old_id, p.trajectory_id as old_traj
                   from ro join pick p on p.trajectory_id || '#' || $4 || '.' || $1::text = ro.trajectory_id),
       s as (insert into "${searchTable}" (run_id, rollout_id, step, reply, tools, args, results, ticket, cjk)
             select $4, pr.new_id, pr.step, x.reply, x.tools, x.args, x.results, x.ticket, x.cjk
               from pairs pr join rollout_search x on x.run_id = $3 and x.rollout_id = pr.old_id)
       insert into ledger (trajectory_id, rollout_id, run_id, step, ticket_id, group_id, category, status, source,
                           verifier_version, config_hash, claims_source, raw_reward, reward, capped, outcome, policy,
                           evidence, efficiency, communication, deciding_guardrail, guardrail_mask, guardrails, reasons,
                           claims, handoff, tool_steps, content_hash)
       select l.trajectory_id || '#' || $4 || '.' || $1::text, pr.new_id, $4, pr.step, l.ticket_id, l.group_id || '#' || $4 || '.' || $1::text, l.category,
              l.status, l.source, l.verifier_version, l.config_hash, l.claims_source, l.raw_reward, l.reward, l.capped,
              l.outcome, l.policy, l.evidence, l.efficiency, l.communication, l.deciding_guardrail, l.guardrail_mask,
              l.guardrails, l.reasons, l.claims, l.handoff, l.tool_steps, l.content_hash
         from pairs pr join ledger l on l.run_id = $3 and l.trajectory_id = pr.old_traj and l.is_current`,
      [round, need, TPL, run, steps],
    );
    have += need;
    if (round % 100 === 0) console.log(`  ${run} grown to ${fmt(have)} (${load()})`);
  }
  // The charts' and the clusters' rollups, as ingest would have kept them.
  await recountRollups(c, run);
}

/**
 * The query kinds the reads phase measures, their values taken from the template's rollouts (which every run's rows
 * copy) so that each finds rollouts: the rare phrase is the refund reply's phrase with one order's id (one ticket's
 * rollouts that were told so), the tool with the amount one of its calls refunded. Set by main() once the template
 * exists. (The refund reply's other wording, "has been processed", is younger than some kept benches' templates.)
 */
let QUERIES: [string, string][] = [];

async function templateQueries(c: pg.Client): Promise<[string, string][]> {
  const one = async (sql: string, what: string) => {
    const v = (await c.query(sql, [TPL])).rows[0]?.v as string | undefined;
    if (!v) throw new Error(`the template has no rollout for the ${what} query`);
    return v;
  };
  const order = await one(
    `select substring(args from 'O-[0-9]+') as v from rollout_search
      where run_id = $1 and reply ilike '%have refunded%' and args ~ 'O-[0-9]+' order by rollout_id limit 1`,
    "rare phrase",
  );
  const amount = await one(
    `select substring(args from '"amount": ?([0-9]+[.][0-9]+)') as v from rollout_search
      where run_id = $1 and tools like '%finance.issue_refund%' and args ~ '"amount": ?[0-9]+[.][0-9]+'
      order by rollout_id limit 1`,
    "tool + argument value",
  );
  return [
    ["rare phrase", `"have refunded" ${order}`],
    ["common word", "refund"],
    ["Chinese, 2 characters", "退款"],
    ["Chinese phrase", '"已为您安排退款"'],
    ["tool + argument value", `tool:finance.issue_refund arg:${amount}`],
  ];
}

/**
 * The run's partition of a search table, detached (if attached) and without its GIN indexes, for a bulk write: a GIN
 * index updated row by row was most of a copy's time (EXPLAIN ANALYZE of one round: 58 %). Its name.
 */
async function detachWithoutGin(c: pg.Client, table: string, run: string): Promise<string> {
  const part = (await c.query("select verity_run_partition_name($1, $2) as p", [table, run])).rows[0].p as string;
  const attached = await c.query("select 1 from pg_inherits where inhrelid = to_regclass(quote_ident($1))", [part]);
  if (attached.rowCount) await c.query(`alter table "${table}" detach partition "${part}"`);
  const gin = await c.query(
    `select x.relname from pg_index i join pg_class x on x.oid = i.indexrelid join pg_am a on a.oid = x.relam
      where i.indrelid = to_regclass(quote_ident($1)) and a.amname = 'gin'`,
    [part],
  );
  for (const r of gin.rows) await c.query(`drop index "${r.relname}"`);
  return part;
}

/** detachWithoutGin's partition given its GIN indexes again, built at once as the parent's define them, and attached. */
async function attachWithGin(c: pg.Client, table: string, part: string, run: string) {
  await c.query("set maintenance_work_mem = '1GB'");
  const defs = await c.query(
    `select pg_get_indexdef(i.indexrelid) as def from pg_index i join pg_class x on x.oid = i.indexrelid
       join pg_am a on a.oid = x.relam where i.indrelid = $1::regclass and a.amname = 'gin'`,
    [table],
  );
  for (const { def } of defs.rows) await c.query(`create index on "${part}" ${def.slice(def.indexOf(" USING "))}`);
  await c.query(
    `alter table "${table}" attach partition "${part}" for values in (${pg.Client.prototype.escapeLiteral(run)})`,
  );
}

/**
 * `run` grown to `n` rollouts (grow) with its search partition detached and without its GIN indexes, which are then built in bulk (as the
 * parent's indexes define them) before the partition is attached again: a GIN index updated row by row was most of
 * a copy's time (EXPLAIN ANALYZE of one round: 58 %). The reads then meet the partition as migrated, its GIN indexes
 * built at once rather than grown by ingest (smaller: the disk figures say which).
 */
async function growWithoutSearchIndexes(c: pg.Client, run: string, n: number) {
  const have = await c.query("select count(*) from rollouts where run_id = $1", [run]);
  if (Number(have.rows[0].count) >= n) return leaveOutCommonWords(c, run);
  await c.query("insert into runs (id) values ($1) on conflict do nothing", [run]);
  const part = await detachWithoutGin(c, "rollout_search", run);
  await grow(c, run, n, part);
  const t = performance.now();
  await attachWithGin(c, "rollout_search", part, run);
  // the index's blocks of the run's rows, made afresh as migration 042 made them for rollouts stored before it
  await c.query("delete from rollout_search_blocks where run_id = $1", [run]);
  await c.query("select verity_fill_search_blocks($1)", [run]);
  await c.query("delete from search_omitted_words where run_id = $1", [run]);
  await leaveOutCommonWords(c, run);
  await c.query("analyze rollout_search; analyze rollout_search_blocks");
  console.log(
    `  the search partition's GIN indexes built and attached, and its blocks made, in ${((performance.now() - t) / 1000).toFixed(0)} s (${load()})`,
  );
}

/** Blocks of 2,000 rollouts: an ingest batch's (the bench's `verity ingest` batches are 2,000 lines). */
const BATCH_BLOCKS = 2_000 / SEARCH_BLOCK_ROWS;

/**
 * The words `run`'s blocks leave out (search_omitted_words, migration 046) listed as an ingest of its rollouts in
 * batches of 2,000 would list them — the words in more than half of each batch's blocks, for its first ten batches
 * (the run's rounds copy one template: later batches list the same) — and its blocks rewritten without them, their
 * trigram index rebuilt. Grown runs get their blocks from verity_fill_search_blocks, which leaves nothing out. Nothing
 * when the run has a list already (a database kept from an earlier run of the bench).
 */
async function leaveOutCommonWords(c: pg.Client, run: string) {
  if ((await c.query("select 1 from search_omitted_words where run_id = $1 limit 1", [run])).rowCount) return;
  const t = performance.now();
  const listed = await c.query(
    `insert into search_omitted_words (run_id, word)
     select distinct $1::text, w
       from (select words, (row_number() over (order by first_id) - 1) / $2::int as batch
               from rollout_search_blocks where run_id = $1 order by first_id limit $2::int * 10) b,
            unnest(string_to_array(btrim(b.words), ' ')) w
      where w <> '' and length(w) <= $3::int
      group by b.batch, w having count(*) > $2::int * $4::float8
     on conflict do nothing`,
    [run, BATCH_BLOCKS, OMIT_MAX_CHARS, OMIT_SHARE],
  );
  // the run's blocks' partition detached and without its trigram index while its 1/16 of the run's rows are rewritten:
  // a GIN index updated row by row was most of the time at 1 M; made again in bulk, as the parent's index defines it
  const part = await detachWithoutGin(c, "rollout_search_blocks", run);
  await c.query(
    `update "${part}" b
        set words = ' ' || coalesce((select string_agg(u.w, ' ' order by u.o)
                                       from unnest(string_to_array(btrim(b.words), ' ')) with ordinality u(w, o)
                                      where u.w <> '' and not exists (select 1 from search_omitted_words x
                                                                       where x.run_id = $1 and x.word = u.w)), '') || ' '
      where b.run_id = $1`,
    [run],
  );
  await c.query(`vacuum "${part}"`);
  await attachWithGin(c, "rollout_search_blocks", part, run);
  console.log(
    `  ${run}: ${listed.rowCount} words its blocks leave out, the blocks rewritten without them in ${((performance.now() - t) / 1000).toFixed(0)} s (${load()})`,
  );
}

/** Ingest with and without the search indexes, in turns, each into a new run; the first turn's run is the template. */
async function phaseIngest(): Promise<void> {
  const admin = (await ensureDatabase("postgres")).adminUrl;
  const without = await freshDb(admin, DB_NOIDX);
  const url = await freshDb(admin, DB);
  const drop = new pg.Client(without);
  await drop.connect();
  await drop.query("drop index rollout_search_blocks_words_trgm_idx; drop index rollout_search_cjk_idx");
  await drop.end();
  // in turns, each into a new run, so neither side has the cold start alone
  for (const [i, run] of ["a", "b"].entries()) {
    const rateWithout = await ingestRate(without, `tpl-${run}`);
    const rateWith = await ingestRate(url, i === 0 ? TPL : `tpl-${run}`);
    console.log(
      `ingest (turn ${i + 1}): ${rateWith.toFixed(0)} rollouts/s with the search indexes, ${rateWithout.toFixed(0)} ` +
        `without them: ratio ${(rateWith / rateWithout).toFixed(2)} (${load()})`,
    );
  }
}

type Figure = { p50: number; p95: number; max: number; countMs: number; count: string };

/**
 * The five query kinds, alone, with a guardrail filter and with a step range (the second quarter of the run's `steps`
 * steps: a quarter of its rollouts).
 */
function views(steps: number): [string, string, Record<string, string>][] {
  const filters: [string, Record<string, string>][] = [
    ["alone", {}],
    ["+ guardrail", { any: "unauthorized_write" }],
    ["+ step range", { step_from: String(Math.floor(steps / 4)), step_to: String(Math.floor(steps / 2)) }],
  ];
  return QUERIES.flatMap(([name, q]) =>
    filters.map(([label, extra]): [string, string, Record<string, string>] => [`${name} | ${label}`, q, extra]),
  );
}

async function reads(c: pg.Client, n: number): Promise<Map<string, Figure>> {
  const out = new Map<string, Figure>();
  console.log(`\nfirst page (100 rows) and count, run of ${fmt(n)} rollouts, ${ITER} iterations (${load()})`);
  console.log("| query | filter | p50 ms | p95 ms | max ms | count ms | count | load |");
  console.log("|---|---|---|---|---|---|---|---|");
  const steps = Number((await c.query("select max(step) + 1 as s from rollouts where run_id = $1", [BIG])).rows[0].s);
  // One page with a search that nothing holds, untimed: the process's first search opens the pool and its first
  // transaction (0.3–0.4 s), which was the first view's slowest iteration, its p95 (a console's are open). Its words
  // are in no block: it reads no text the views read.
  const warm = parseBrowseParams({ run: BIG, q: "qzxv wqzk" });
  if (warm.ok) await browseLedger(warm.params, 100);
  for (const [key, q, extra] of views(steps)) {
    const parsed = parseBrowseParams({ run: BIG, q, ...extra });
    if (!parsed.ok) throw new Error(parsed.errors.join("; "));
    const times: number[] = [];
    // each first page as a search's first (no match set kept from the one before: lib/search/match-set-data.ts)
    for (let i = 0; i < ITER; i++) {
      clearProcessCaches();
      const t = performance.now();
      await browseLedger(parsed.params, 100).catch((e: Error) => console.log(`  ${key}: ${e.message}`));
      times.push(performance.now() - t);
    }
    clearProcessCaches();
    const t = performance.now();
    const count = await countLedger(parsed.params).catch((e: Error) => ({ count: NaN, exact: false, e }));
    const f = {
      p50: pct(times, 0.5),
      p95: pct(times, 0.95),
      max: Math.max(...times),
      countMs: performance.now() - t,
      count: `${count.exact ? "" : "~"}${fmt(count.count)}`,
    };
    out.set(key, f);
    console.log(
      `| ${key} | ${fmt(f.p50)} | ${fmt(f.p95)} | ${fmt(f.max)} | ${fmt(f.countMs)} | ${f.count} | ${load()} |`,
    );
  }
  return out;
}

/**
 * The big run's search (rollout_search and its blocks: heap, TOAST, indexes) and rollouts, in GB per million rollouts;
 * its ledger's and the database's.
 */
async function disk(c: pg.Client, n: number): Promise<string> {
  const d = await searchDisk(c, BIG);
  const { rows } = await c.query(
    `select pg_total_relation_size(to_regclass(quote_ident(verity_run_partition_name('ledger', $1)))) as ledger,
            pg_database_size(current_database()) as db`,
    [BIG],
  );
  const perM = (b: number | string) => (((Number(b) / n) * 1e6) / 2 ** 30).toFixed(2);
  return (
    `search (rollout_search and its blocks) ${perM(d.total)} GB per million rollouts (heap ${perM(d.heap)}, ` +
    `TOAST ${perM(d.toast)}, indexes ${perM(d.indexes)}); the run's rollouts ${perM(d.rollouts)}, its ledger ` +
    `${perM(rows[0].ledger)}; database ${(Number(rows[0].db) / 2 ** 30).toFixed(1)} GB`
  );
}

const freeGb = () => {
  const st = fs.statfsSync(fs.existsSync(process.env.VERITY_DATA_DIR ?? "") ? process.env.VERITY_DATA_DIR! : ".");
  return (st.bavail * st.bsize) / 2 ** 30;
};

/** Whether growing the big run to `n` leaves --min-free-gb free, at the database's bytes per rollout so far (+25 % for WAL). */
async function roomFor(c: pg.Client, n: number): Promise<boolean> {
  const r = await c.query("select pg_database_size(current_database()) as db, (select count(*) from rollouts) as n");
  const have = Number((await c.query("select count(*) from rollouts where run_id = $1", [BIG])).rows[0].count);
  const needGb = ((Number(r.rows[0].db) / Number(r.rows[0].n)) * Math.max(0, n - have) * 1.25) / 2 ** 30;
  const free = freeGb();
  console.log(`\n${fmt(n)}: needs ~${needGb.toFixed(1)} GB, ${free.toFixed(1)} GB free (${load()})`);
  return free - needGb >= Number(values["min-free-gb"]);
}

async function phaseReads(c: pg.Client): Promise<void> {
  const others = Number(
    (await c.query("select count(*) from runs where id <> $1 and id not like 'small-%'", [BIG])).rows[0].count,
  );
  const t0 = performance.now();
  for (const { run, n } of smallRuns.slice(0, Math.max(0, smallRuns.length - others)))
    await growWithoutSearchIndexes(c, run, n);
  await c.query("vacuum analyze rollouts, ledger, rollout_search");
  const runs = Number((await c.query("select count(*) from runs")).rows[0].count);
  console.log(
    `${runs} runs in the database, small ones ready in ${((performance.now() - t0) / 1000).toFixed(0)} s (${load()})`,
  );
  const measured: [number, Map<string, Figure>, string][] = [];
  for (const n of SIZES) {
    if (!(await roomFor(c, n))) {
      console.log(`not grown to ${fmt(n)}: it would leave less than ${values["min-free-gb"]} GB free`);
      break;
    }
    const t = performance.now();
    await growWithoutSearchIndexes(c, BIG, n);
    await c.query("vacuum analyze rollouts, ledger, rollout_search");
    console.log(
      `${BIG} grown to ${fmt(n)} in ${((performance.now() - t) / 1000).toFixed(0)} s, vacuumed and analyzed (${load()})`,
    );
    const figures = await reads(c, n);
    const d = await disk(c, n);
    console.log(`disk at ${fmt(n)}: ${d}`);
    measured.push([n, figures, d]);
  }
  growth(measured);
}

/** Each figure at every size measured, side by side: how it grows. */
function growth(measured: [number, Map<string, Figure>, string][]): void {
  if (!measured.length) return;
  console.log(
    `\nhow each figure grows: first page p95 ms / count ms (count) at ${measured.map(([n]) => fmt(n)).join(", ")} rollouts`,
  );
  console.log(`| query | filter | ${measured.map(([n]) => fmt(n)).join(" | ")} |`);
  console.log(`|---|---|${measured.map(() => "---").join("|")}|`);
  for (const key of measured[0][1].keys())
    console.log(
      `| ${key} | ${measured.map(([, f]) => `${fmt(f.get(key)!.p95)} / ${fmt(f.get(key)!.countMs)} (${f.get(key)!.count})`).join(" | ")} |`,
    );
  for (const [n, , d] of measured) console.log(`disk at ${fmt(n)}: ${d}`);
}

/** The researchers' queries: the reads phase's and a few more. Set by main() with QUERIES. */
let MIXED: string[] = [];
const mixedOf = (queries: [string, string][]) => [
  ...queries.map(([, q]) => q),
  '"air fryer"',
  'reply:"have refunded"',
  "tool:finance.issue_refund",
  "退款 -refund",
  'ticket:"broken"',
];
const FILTERS = ["", "&any=unauthorized_write", "&sort=reward&dir=asc", "&reward_max=0.5", "&handoff=no"];

/** A researcher: a browser page with a search, the rows API's first page of a view, or the next page of the last. */
function researcher(runs: string[], steps: number): NextRequest {
  const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)];
  return (last) => {
    const cursor = last?.status === 200 && last.path.startsWith("/api/") ? JSON.parse(last.body).nextCursor : null;
    if (cursor && Math.random() < 0.5)
      return ["rows API, next page", `${last!.path.replace(/&after=[^&]*/, "")}&after=${encodeURIComponent(cursor)}`];
    const run = Math.random() < 0.6 ? BIG : pick(runs);
    const from = Math.floor(Math.random() * steps * 0.9);
    const range = `&step_from=${from}&step_to=${from + Math.ceil(steps / 10)}`;
    const filter = run === BIG && Math.random() < 0.2 ? range : pick(FILTERS);
    const view = `run=${encodeURIComponent(run)}&q=${encodeURIComponent(pick(MIXED))}${filter}`;
    return Math.random() < 0.6
      ? ["browser page", `/trajectories?${view}`]
      : ["rows API, first page", `/api/ledger/rows?${view}`];
  };
}

/**
 * Each view of the researchers' mix (MIXED × FILTERS, and a step range of a tenth of the run) on the big run, alone:
 * the browser page's page and count read together, as the page reads them (the count given the page), `--iterations`
 * times each way: as the search's first view (no match set kept: lib/search/match-set-data.ts) and again once its page has
 * kept one (where it gathers one). p50 and max, the CPU the PostgreSQL server (its parallel workers included) and
 * this process spent per iteration, and which figure the count gave. What the concurrency phase's requests cost one
 * by one, the dearest first: on 2 cores, CPU is what 20 researchers queue for.
 */
async function phaseMix(c: pg.Client): Promise<void> {
  const steps = Number((await c.query("select max(step) + 1 as s from rollouts where run_id = $1", [BIG])).rows[0].s);
  const from = Math.floor(steps * 0.45);
  const range = `&step_from=${from}&step_to=${from + Math.ceil(steps / 10)}`;
  const postmaster = await serverPid(c);
  type Cost = { p50: number; max: number; pgMs: number; nodeMs: number; shown: string };
  const measure = async (params: BrowseParams, cold: boolean): Promise<Cost> => {
    if (!cold) await pageAndCount(params); // the first view, which keeps a match set where it gathers one
    const times: number[] = [];
    let shown = "";
    const [pg0, node0] = [serverCpuMs(postmaster), process.cpuUsage()];
    for (let i = 0; i < ITER; i++) {
      if (cold) clearProcessCaches();
      const t = performance.now();
      shown = await pageAndCount(params);
      times.push(performance.now() - t);
    }
    const node = process.cpuUsage(node0);
    return {
      p50: pct(times, 0.5),
      max: Math.max(...times),
      pgMs: (serverCpuMs(postmaster) - pg0) / ITER,
      nodeMs: (node.user + node.system) / 1000 / ITER,
      shown,
    };
  };
  const rows: [string, Cost, Cost][] = [];
  console.log(`\nthe researchers' views alone, page and count together, ${ITER} iterations each way (${load()})`);
  for (const q of MIXED)
    for (const filter of [...FILTERS, range]) {
      const parsed = parseBrowseParams(
        Object.fromEntries(new URLSearchParams(`run=${BIG}&q=${encodeURIComponent(q)}${filter}`)),
      );
      if (!parsed.ok) throw new Error(parsed.errors.join("; "));
      clearProcessCaches();
      const first = await measure(parsed.params, true);
      rows.push([`${q} | ${filter.replace(/^&/, "") || "none"}`, first, await measure(parsed.params, false)]);
    }
  clearProcessCaches();
  rows.sort((a, b) => b[1].pgMs + b[1].nodeMs - (a[1].pgMs + a[1].nodeMs));
  console.log(
    "| query | filter | first view: p50 ms | max ms | PostgreSQL CPU ms | bench process CPU ms | match set kept: p50 ms | PostgreSQL CPU ms | bench process CPU ms | page, count |\n" +
      "|---|---|---:|---:|---:|---:|---:|---:|---:|---|",
  );
  for (const [k, a, b] of rows)
    console.log(
      `| ${k} | ${fmt(a.p50)} | ${fmt(a.max)} | ${fmt(a.pgMs)} | ${fmt(a.nodeMs)} | ${fmt(b.p50)} | ${fmt(b.pgMs)} | ${fmt(b.nodeMs)} | ${a.shown} |`,
    );
  const mean = (i: 1 | 2, f: keyof Omit<Cost, "shown">) => fmt(rows.reduce((s, r) => s + r[i][f], 0) / rows.length);
  for (const [i, label] of [
    [1, "first view"],
    [2, "match set kept"],
  ] as const)
    console.log(
      `mean over the views, ${label}: p50 ${mean(i, "p50")} ms, PostgreSQL CPU ${mean(i, "pgMs")} ms, bench process CPU ${mean(i, "nodeMs")} ms (${load()})`,
    );
}

/** A browser page's page and count read together, as the page reads them: rows shown and the count, or the error. */
async function pageAndCount(params: BrowseParams): Promise<string> {
  const memo = {};
  const first = browseLedger(params, 100, { plan: { memo } });
  const [page, count] = await Promise.all([
    first.catch((e: Error) => e),
    countLedger(params, { firstPage: first, plan: { memo } }).catch((e: Error) => e),
  ]);
  return page instanceof Error || count instanceof Error
    ? `error: ${(page instanceof Error ? page : (count as Error)).message.slice(0, 60)}`
    : `${page.rows.length} rows, ${count.exact ? "" : "~"}${fmt(count.count)}`;
}

async function phaseConcurrency(c: pg.Client, url: string): Promise<void> {
  const n = Number((await c.query("select count(*) from rollouts where run_id = $1", [BIG])).rows[0].count);
  if (!n) throw new Error("--phase concurrency needs the big run: run --phase reads first (with --keep)");
  if (!values["no-build"]) console.log(`next build: ${(await buildConsole()).toFixed(0)} s (${load()})`);
  const cookies = await researcherCookies(c, Number(values.users));
  const runs = (await c.query("select id from runs order by id")).rows.map((r) => r.id as string);
  const served = await startConsole(url, Number(values.port));
  const requestLog: string[] = [];
  try {
    const steps = Number((await c.query("select max(step) + 1 as s from rollouts where run_id = $1", [BIG])).rows[0].s);
    await fetch(`${served.base}/trajectories?run=${BIG}&q=refund`, { headers: { cookie: cookies[0] } }).then((r) =>
      r.text(),
    );
    const postmaster = await serverPid(c);
    const before = { pg: serverCpuMs(postmaster), console: cpuMs(served.server.pid!) ?? 0, bench: process.cpuUsage() };
    await loadRound(served, {
      label: `search under load, ${fmt(n)} rollouts in ${BIG}, ${runs.length} runs`,
      cookies,
      seconds: Number(values.seconds),
      think: Number(values["think-ms"]),
      next: researcher(runs, steps),
      record: values.requests ? (r) => requestLog.push(JSON.stringify(r)) : undefined,
    });
    if (values.requests) fs.writeFileSync(values.requests, requestLog.join("\n") + "\n");
    // where the 2 cores went: what the researchers queue for
    const bench = process.cpuUsage(before.bench);
    const secs = Number(values.seconds);
    const share = (ms: number) => `${(ms / 1000).toFixed(1)} s (${((ms / 1000 / secs) * 100).toFixed(0)} % of a core)`;
    console.log(
      `CPU during the round: PostgreSQL ${share(serverCpuMs(postmaster) - before.pg)}, the console ` +
        `${share((cpuMs(served.server.pid!) ?? 0) - before.console)}, this load generator ${share((bench.user + bench.system) / 1000)}`,
    );
  } finally {
    await served.stop();
  }
}

async function main() {
  console.log(
    `bench/search: phases ${[...PHASES].join(", ")}, sizes ${SIZES.map(fmt).join(", ")}; free disk ${freeGb().toFixed(0)} GB (${load()})`,
  );
  if (PHASES.has("ingest")) await phaseIngest();
  const { database, url } = await migratedBenchDatabase(DB, false);
  const c = new pg.Client(url);
  await c.connect();
  if (!(await c.query("select 1 from runs where id = $1", [TPL])).rowCount) {
    console.log(`template: ${fmt(await ingestRate(url, TPL))} rollouts/s (${load()})`);
  }
  QUERIES = await templateQueries(c);
  MIXED = mixedOf(QUERIES);
  console.log(`queries: ${QUERIES.map(([k, q]) => `${k} ${q}`).join("; ")}`);
  await bindDatabase(url);
  await bindReadDatabase(url, url);
  if (PHASES.has("reads")) await phaseReads(c);
  if (PHASES.has("mix")) await phaseMix(c);
  if (PHASES.has("concurrency")) await phaseConcurrency(c, url);
  await c.end();
  if (!values.keep) {
    const a = new pg.Client(database.adminUrl);
    await a.connect();
    await a.query(`drop database if exists ${DB} with (force)`);
    await a.query(`drop database if exists ${DB_NOIDX} with (force)`);
    await a.end();
  }
  await database.stop();
  process.exit(0);
}

await main();
