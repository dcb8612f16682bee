// bench/search-ingest: what the search index costs the ingest (docs/search.md, docs/benchmarks.md "Search").
//
// The same N pre-scored rollouts (bench/lib/ingest-fixture.ts: each rollout then its score record) go through
// `verity ingest` (its own process, as bench/ingest.ts runs it) into a fresh database per side, the sides in turns
// (side A, side B, side C, then again, each turn starting one further) so the shared machine's load hits each alike:
//   search       as migrated: rollout_search's rows, its blocks and the two GIN indexes (the blocks' words, the
//                rows' CJK pairs) written in the ingest's transaction (042)
//   noindex      those two indexes dropped in the bench database: the rows and blocks still written
//   none         no search at all: the ingesting process runs with VERITY_BENCH_NO_SEARCH=1, which makes it compute
//                and write no search rows (lib/ledger/store/search-rows.ts; read by nothing but this bench)
// and, for comparisons (--sides), another index made in the bench database in place of the blocks' (rows and blocks
// still written):
//   per-rollout  038's index: trigrams (pg_trgm) over each rollout's texts joined (the CJK pairs' kept)
//   tsvector     a 'simple' full-text (tsvector) index over each rollout's texts joined (the CJK pairs' kept)
// and the blocks' trigram index made with other GIN storage parameters:
//   nofastupdate without GIN's pending list (each block's trigrams inserted into the index at once)
//   pending      a pending list of 32 MB (4 MB by default) and work_mem 64 MB for merging it
// Per side: rollouts/s, PostgreSQL backend CPU (bench/lib/backend-cpu.ts), then the CPU of merging what the ingest
// left in the search's GIN pending lists (work deferred past the ingest), the ingesting process's CPU, the WAL
// written, and rollout_search's and its blocks' disk per million rollouts (heap, TOAST, indexes). Then each side's
// rate against `none` and `noindex`, per turn and over all turns.
//
// `npx tsx bench/search-ingest.ts [--n 100000] [--turns 2] [--sides search,noindex,none] [--batch 2000] [--keep]`
// (--keep: each side's database of the last turn is kept, as verity_bench_si_<side>)
// Every figure is printed with os.loadavg(): the machine is shared. Not part of npm test.
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { createDatabaseIfMissing, ensureDatabase } from "@/lib/db/embedded.ts";
import { migrate } from "@/lib/db/migrate.ts";
import { writePrescoredFile } from "@/bench/lib/ingest-fixture.ts";
import { cpuMs, watchBackendCpu } from "@/bench/lib/backend-cpu.ts";
import { quiesce, timed, withDb } from "@/bench/lib/timed-process.ts";
import { searchDisk, type SearchDisk } from "@/bench/lib/search-disk.ts";
import { loadAverage, wholeOption } from "@/bench/lib/bench-db.ts";

const { values } = parseArgs({
  options: {
    n: { type: "string", default: "100000" },
    turns: { type: "string", default: "2" },
    sides: { type: "string", default: "search,noindex,none" },
    batch: { type: "string", default: "2000" },
    keep: { type: "boolean", default: false },
  },
});
const N = wholeOption("n", values.n);
const TURNS = wholeOption("turns", values.turns);
const RUN = "bench";

type Side = { setup?: string; env?: Record<string, string> };
const WORDS = "rollout_search_blocks_words_trgm_idx";
const CJK = "rollout_search_cjk_idx";
const NO_BLOCK_INDEXES = `drop index ${WORDS}; drop index ${CJK}`;
const DOC = `("reply" || ' ' || "tools" || ' ' || "args" || ' ' || "results" || ' ' || "ticket")`;
/** The blocks' trigram index made again with these storage parameters (GIN's pending list). */
function wordsIndexWith(params: string): string {
  return `drop index ${WORDS}; create index ${WORDS} on rollout_search_blocks using gin (words gin_trgm_ops) with (${params})`;
}
const SIDES: Record<string, Side> = {
  search: {},
  noindex: { setup: NO_BLOCK_INDEXES },
  none: { env: { VERITY_BENCH_NO_SEARCH: "1" } },
  "per-rollout": {
    setup: `drop index ${WORDS}; create index rollout_search_doc_trgm_idx on rollout_search using gin (${DOC} gin_trgm_ops)`,
  },
  tsvector: {
    setup: `drop index ${WORDS}; create index rollout_search_doc_tsv_idx on rollout_search using gin (to_tsvector('simple', ${DOC}))`,
  },
  nofastupdate: { setup: wordsIndexWith("fastupdate = off") },
  pending: {
    setup: `${wordsIndexWith("gin_pending_list_limit = 32768")}; do $$ begin execute format('alter database %I set work_mem = %L', current_database(), '64MB'); end $$`,
  },
};
const sides = values.sides.split(",").map((s) => s.trim());
for (const s of sides) if (!SIDES[s]) throw new Error(`unknown side ${s} (${Object.keys(SIDES).join(", ")})`);

type Result = {
  side: string;
  turn: number;
  secs: number;
  rate: number;
  pgCpu: number | null;
  nodeCpu: number;
  /** What the search's GIN indexes left in their pending lists took to merge after the ingest (CPU s). */
  pendingCpu: number;
  walMb: number;
  disk: SearchDisk;
};
async function admin<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/**
 * Merges what the ingest left in the pending lists of the search tables' GIN indexes (work a later insert or vacuum
 * would do: GIN's fast update defers it), and answers the CPU seconds its backend took for that.
 */
async function cleanPendingLists(c: pg.Client): Promise<number> {
  const pid = (await c.query("select pg_backend_pid() as p")).rows[0].p as number;
  const before = cpuMs(pid) ?? 0;
  await c.query(`select gin_clean_pending_list(i.indexrelid)
                   from pg_index i join pg_class t on t.oid = i.indrelid join pg_class x on x.oid = i.indexrelid
                   join pg_am a on a.oid = x.relam
                  where a.amname = 'gin' and t.relkind = 'r' and t.relname like 'rollout_search%'`);
  return ((cpuMs(pid) ?? 0) - before) / 1000;
}

/** One side's ingest into a fresh database `db`: not timed, the database's making and the previous one's vacuum. */
async function ingestSide(adminUrl: string, side: string, turn: number, file: string, previous?: string) {
  const db = `verity_bench_si_${side}`;
  const url = withDb(adminUrl, db);
  await admin(adminUrl, (c) => c.query(`drop database if exists "${db}" with (force)`));
  await createDatabaseIfMissing(adminUrl, db);
  await migrate(url);
  const setup = SIDES[side].setup;
  if (setup) await admin(url, (c) => c.query(setup));
  await quiesce(adminUrl, previous);
  const lsn = () =>
    admin(adminUrl, async (c) => (await c.query("select pg_current_wal_lsn() as l")).rows[0].l as string);
  const walFrom = await lsn();
  const watch = watchBackendCpu(adminUrl, db);
  const run = await timed(
    "npm",
    ["run", "-s", "verity", "--", "ingest", file, "--batch", values.batch, "--no-progress"],
    { ...process.env, DATABASE_URL: url, ...SIDES[side].env },
  );
  const pgCpu = await watch.stop();
  const walMb = await admin(adminUrl, async (c) => {
    const { rows } = await c.query("select pg_wal_lsn_diff($1, $2) as b", [await lsn(), walFrom]);
    return Number(rows[0].b) / 1e6;
  });
  if (run.code !== 0) throw new Error(`${side}: verity ingest failed: ${run.stderr}`);
  const rollouts = await admin(url, async (c) => {
    const n = Number((await c.query("select count(*) from rollouts")).rows[0].count);
    const s = Number((await c.query("select count(*) from rollout_search")).rows[0].count);
    if (n !== N || s !== (side === "none" ? 0 : N)) throw new Error(`${side}: ${n} rollouts, ${s} search rows`);
    return n;
  });
  const pendingCpu = await admin(url, cleanPendingLists);
  const d = await admin(url, (c) => searchDisk(c, RUN));
  const r: Result = {
    side,
    turn,
    secs: run.seconds,
    rate: rollouts / run.seconds,
    pgCpu,
    nodeCpu: run.cpu,
    pendingCpu,
    walMb,
    disk: d,
  };
  console.log(
    `turn ${turn} ${side.padEnd(8)} ${r.rate.toFixed(0).padStart(6)} rollouts/s  ${r.secs.toFixed(1)} s  ` +
      `PostgreSQL CPU ${pgCpu?.toFixed(1) ?? "?"} s (+ ${pendingCpu.toFixed(1)} s pending)  verity CPU ${run.cpu.toFixed(1)} s  WAL ${walMb.toFixed(0)} MB  ` +
      `rollout_search ${perM(d.total)} GB/M (${loadAverage()})`,
  );
  return { r, db };
}

const perM = (bytes: number) =>
  ((bytes / N) * 1e6) / 2 ** 30 === 0 ? "0" : (((bytes / N) * 1e6) / 2 ** 30).toFixed(2);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

function report(results: Result[]): void {
  const of = (side: string) => results.filter((r) => r.side === side);
  const rateOf = (side: string) => {
    const rs = of(side);
    return rs.length ? (rs.length * N) / sum(rs.map((r) => r.secs)) : NaN;
  };
  console.log(`\n${N.toLocaleString("en-US")} rollouts, ${TURNS} turns (${loadAverage()})`);
  console.log(
    "| side | rollouts/s per turn | rollouts/s, all turns | vs none | vs noindex | PostgreSQL CPU s | + pending lists merged after, s | verity CPU s | WAL MB | rollout_search GB per M rollouts (heap / TOAST / indexes) |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|");
  for (const side of sides) {
    const rs = of(side);
    const d = rs[rs.length - 1].disk;
    const cpu = (xs: (number | null)[]) => xs.map((x) => (x === null ? "?" : x.toFixed(1))).join(", ");
    console.log(
      `| ${side} | ${rs.map((r) => r.rate.toFixed(0)).join(", ")} | ${rateOf(side).toFixed(0)} | ` +
        `${(rateOf(side) / rateOf("none")).toFixed(2)} | ${(rateOf(side) / rateOf("noindex")).toFixed(2)} | ` +
        `${cpu(rs.map((r) => r.pgCpu))} | ${cpu(rs.map((r) => r.pendingCpu))} | ${cpu(rs.map((r) => r.nodeCpu))} | ${rs.map((r) => r.walMb.toFixed(0)).join(", ")} | ` +
        `${perM(d.total)} (${perM(d.heap)} / ${perM(d.toast)} / ${perM(d.indexes)}) |`,
    );
  }
  const per = (side: string, base: string) =>
    Array.from({ length: TURNS }, (_, t) => {
      const a = results.find((r) => r.side === side && r.turn === t + 1);
      const b = results.find((r) => r.side === base && r.turn === t + 1);
      return a && b ? (a.rate / b.rate).toFixed(2) : "-";
    }).join(", ");
  for (const side of sides.filter((s) => s !== "none"))
    console.log(`${side} / none per turn: ${per(side, "none")}; / noindex: ${per(side, "noindex")}`);
  const rollouts = results[results.length - 1].disk.rollouts;
  console.log(`the run's rollouts: ${perM(rollouts)} GB per million rollouts`);
}

async function main() {
  const database = await ensureDatabase("postgres");
  const file = path.resolve(`bench/out/search-ingest-${N}.ndjson`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const results: Result[] = [];
  const made = new Set<string>();
  try {
    console.log(`bench/search-ingest, n=${N.toLocaleString("en-US")}, sides ${sides.join(", ")} (${loadAverage()})`);
    const fx = await writePrescoredFile(file, N, RUN);
    console.log(`  ${fx.lines.toLocaleString("en-US")} lines, ${fx.cases} cases, ${(fx.bytes / 1e6).toFixed(0)} MB`);
    let previous: string | undefined;
    for (let turn = 1; turn <= TURNS; turn++) {
      // each turn starts with the next side, so no side always follows the same one
      const order = sides.map((_, i) => sides[(i + turn - 1) % sides.length]);
      for (const side of order) {
        const { r, db } = await ingestSide(database.adminUrl, side, turn, file, previous);
        results.push(r);
        made.add(db);
        previous = db;
      }
    }
    report(results);
  } finally {
    for (const db of values.keep ? [] : made)
      await admin(database.adminUrl, (c) => c.query(`drop database if exists "${db}" with (force)`)).catch(
        () => undefined,
      );
    fs.rmSync(file, { force: true });
    await database.stop();
  }
}

await main();
