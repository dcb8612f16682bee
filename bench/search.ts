// bench/search: the browser's text search at size (docs/search.md, docs/benchmarks.md "Search").
//
//   1. ingest: the same demo rollouts (English and Chinese) through the real ingest into two fresh databases, one as
//      migrated and one with the search's two GIN indexes (the blocks' words, the rows' CJK pairs) dropped: the rate of each and their ratio (the search
//      rows and blocks are written in both; what differs is the index upkeep). bench/search-ingest.ts measures the
//      ingest with and without search at size.
//   2. reads: a run grown in SQL to --n rollouts (copies of the ingested ones under new ids, their rollout_search
//      rows copied with them and their blocks made), then the browser's first page (p50/p95 over --iterations) and its count for each
//      query kind alone, with a guardrail filter and with a step range; the rollout_search disk per million.
//
// `npx tsx bench/search.ts [--n 1000000] [--template-tickets 250] [--iterations 20] [--keep]`
// Every figure is printed with os.loadavg(): the machine is shared. Not part of npm test.
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
import { parseBrowseParams } from "@/lib/ledger/browse-schema.ts";
import { loadAverage } from "@/bench/lib/bench-db.ts";

const { values } = parseArgs({
  options: {
    n: { type: "string", default: "1000000" },
    "template-tickets": { type: "string", default: "250" },
    iterations: { type: "string", default: "20" },
    keep: { type: "boolean", default: false },
  },
});
const N = Number(values.n);
const ITER = Number(values.iterations);
const TPL = "tpl";
const BIG = "big";
const load = loadAverage;
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];

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

/** Grows run BIG to N rollouts: copies of the template's rollouts, entries and search rows under new ids. */
async function grow(c: pg.Client): Promise<void> {
  await c.query("insert into runs (id) values ($1) on conflict do nothing", [BIG]);
  const base = Number((await c.query("select count(*) from rollouts where run_id = $1", [TPL])).rows[0].count);
  for (let have = 0, round = 0; have < N; round++) {
    const need = Math.min(base, N - have);
    await c.query(
      `with pick as (select * from rollouts where run_id = $3 order by id limit $2),
       ro as (
         insert into rollouts (trajectory_id, run_id, step, group_id, sample_index, ticket_id, steps, final_reply, sandbox,
                               registry_id, claims, tool_steps, content_hash)
         select r.trajectory_id || '#' || $1::text, $4, r.step + $1::int * 10, r.group_id || '#' || $1::text, r.sample_index, r.ticket_id,
                r.steps, r.final_reply, r.sandbox, r.registry_id, r.claims, r.tool_steps, r.content_hash
           from pick r
         returning id, trajectory_id, step),
       pairs as (select ro.id as new_id, ro.step, p.id as old_id, p.trajectory_id as old_traj
                   from ro join pick p on p.trajectory_id || '#' || $1::text = ro.trajectory_id),
       s as (insert into rollout_search (run_id, rollout_id, step, reply, tools, args, results, ticket, cjk)
             select $4, pr.new_id, pr.step, x.reply, x.tools, x.args, x.results, x.ticket, x.cjk
               from pairs pr join rollout_search x on x.run_id = $3 and x.rollout_id = pr.old_id)
       insert into ledger (trajectory_id, rollout_id, run_id, step, ticket_id, group_id, category, status, source,
                           verifier_version, config_hash, claims_source, raw_reward, reward, capped, outcome, policy,
                           evidence, efficiency, communication, deciding_guardrail, guardrail_mask, guardrails, reasons,
                           claims, handoff, tool_steps, content_hash)
       select l.trajectory_id || '#' || $1::text, pr.new_id, $4, pr.step, l.ticket_id, l.group_id || '#' || $1::text, l.category,
              l.status, l.source, l.verifier_version, l.config_hash, l.claims_source, l.raw_reward, l.reward, l.capped,
              l.outcome, l.policy, l.evidence, l.efficiency, l.communication, l.deciding_guardrail, l.guardrail_mask,
              l.guardrails, l.reasons, l.claims, l.handoff, l.tool_steps, l.content_hash
         from pairs pr join ledger l on l.run_id = $3 and l.trajectory_id = pr.old_traj and l.is_current`,
      [round, need, TPL, BIG],
    );
    have += need;
    if (round % 20 === 0) console.log(`  grown to ${have.toLocaleString("en-US")} (${load()})`);
  }
  // the index's blocks of the copied rows, as migration 042 made them for rollouts stored before it
  await c.query("select verity_fill_search_blocks($1)", [BIG]);
  await c.query("analyze rollouts; analyze ledger; analyze rollout_search; analyze rollout_search_blocks");
}

const QUERIES: [string, string][] = [
  ["rare phrase", '"has been processed" O-20007'],
  ["common word", "refund"],
  ["Chinese, 2 characters", "退款"],
  ["Chinese phrase", '"已为您安排退款"'],
  ["tool + argument value", "tool:finance.issue_refund arg:59.99"],
];

async function reads(): Promise<void> {
  const steps = Math.max(1, Math.floor(N / 8000) * 10);
  const variants: [string, Record<string, string>][] = [
    ["alone", {}],
    ["+ guardrail", { any: "unauthorized_write" }],
    ["+ step range", { step_from: String(Math.floor(steps / 4)), step_to: String(Math.floor(steps / 2)) }],
  ];
  console.log(`\nfirst page (100 rows) and count, run of ${N.toLocaleString("en-US")} rollouts, ${ITER} iterations`);
  console.log("| query | filter | p50 ms | p95 ms | count ms | count |");
  console.log("|---|---|---|---|---|---|");
  for (const [name, q] of QUERIES)
    for (const [label, extra] of variants) {
      const parsed = parseBrowseParams({ run: BIG, q, ...extra });
      if (!parsed.ok) throw new Error(parsed.errors.join("; "));
      const times: number[] = [];
      for (let i = 0; i < ITER; i++) {
        const t = performance.now();
        await browseLedger(parsed.params, 100).catch((e: Error) => console.log(`  ${name} ${label}: ${e.message}`));
        times.push(performance.now() - t);
      }
      const t = performance.now();
      const count = await countLedger(parsed.params).catch((e: Error) => ({ count: NaN, exact: false, e }));
      const countMs = performance.now() - t;
      const shown = `${count.exact ? "" : "~"}${count.count}`;
      console.log(
        `| ${name} | ${label} | ${pct(times, 0.5).toFixed(0)} | ${pct(times, 0.95).toFixed(0)} | ${countMs.toFixed(0)} | ${shown} |`,
      );
    }
}

async function disk(c: pg.Client): Promise<void> {
  const { rows } = await c.query(
    `select pg_total_relation_size(to_regclass(quote_ident(verity_run_partition_name('rollout_search', $1)))) as total,
            pg_relation_size(to_regclass(quote_ident(verity_run_partition_name('rollout_search', $1)))) as heap,
            pg_total_relation_size(to_regclass(quote_ident(verity_run_partition_name('rollouts', $1)))) as rollouts`,
    [BIG],
  );
  const perM = (b: string) => ((Number(b) / N) * 1e6) / 2 ** 30;
  console.log(
    `\nrollout_search of the big run: ${perM(rows[0].total).toFixed(2)} GB per million rollouts (heap ${perM(rows[0].heap).toFixed(2)}, ` +
      `the rest its indexes and TOAST); the run's rollouts: ${perM(rows[0].rollouts).toFixed(2)} GB per million`,
  );
}

async function main() {
  const handle = await ensureDatabase("postgres");
  const admin = handle.adminUrl;
  console.log(`bench/search, n=${N.toLocaleString("en-US")} (${load()})`);
  const without = await freshDb(admin, "verity_bench_search_noidx");
  const url = await freshDb(admin, "verity_bench_search");
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
  const c = new pg.Client(url);
  await c.connect();
  const t = performance.now();
  await grow(c);
  console.log(`grown in ${((performance.now() - t) / 1000).toFixed(0)} s (${load()})`);
  await bindDatabase(url);
  await bindReadDatabase(url, url);
  await reads();
  await disk(c);
  await c.end();
  if (!values.keep) {
    const a = new pg.Client(admin);
    await a.connect();
    await a.query("drop database if exists verity_bench_search with (force)");
    await a.query("drop database if exists verity_bench_search_noidx with (force)");
    await a.end();
  }
  await handle.stop();
  process.exit(0);
}

await main();
