// bench/browse: the trajectory browser's first page under each filter, and the rollout detail query, at 1,000,000
// current ledger entries. `npx tsx bench/browse.ts [--base 50000] [--n 1000000] [--iterations 20]
// [--exact-iterations 3] [--exact-scope-rows N] [--keep]`. For each estimated count it also prints the exact count, the estimate's error
// against it and the exact count's time (what a page view would pay to count exactly).
//
// Data: a generated GRPO run (the demo generator, through the real ingest path, so rows are the verifier's own)
// of --base rollouts, then copied with SQL (new ids and trajectory ids, same scores, reasons and guardrails) up
// to --n ledger entries. Baseline: the unfiltered first page of the same run, measured in the same run.
// `--only TEXT` runs the baseline and the cases whose name contains TEXT.
import { performance } from "node:perf_hooks";
import os from "node:os";
import pg from "pg";
import { createDatabaseIfMissing } from "@/lib/db/embedded.ts";
import { migrate } from "@/lib/db/migrate.ts";
import { afterWrite } from "@/lib/server/after-write.ts";
import { benchDatabase, browseProbes } from "@/bench/lib/bench-db.ts";

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const BASE = arg("base", 50_000);
const N = arg("n", 1_000_000);
const ITER = arg("iterations", 20);
const EXACT_ITER = arg("exact-iterations", 3);
/** The count's exact-scope threshold; unset, the product's (a small value shows the estimates on a small --n). */
const EXACT_SCOPE = process.argv.includes("--exact-scope-rows") ? arg("exact-scope-rows", 0) : undefined;
const KEEP = process.argv.includes("--keep");
const ONLY = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : null;
const DB = "verity_bench_browse";
const RUN = "bench-browse";

function pct(xs: number[], p: number) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)];
}

async function main() {
  const { database, url, fresh } = await openDatabase();
  const { bindDatabase } = await import("@/lib/db/client.ts");
  await bindDatabase(url);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  if (fresh) await buildRun(client, url);
  const { total, sample, cases } = await browseCases(client);
  const rows = await measurePages(total, cases);
  const detailLine = await measureDetail(sample);
  console.log(
    "\n| filter | rows | matching | page p50 ms | page p95 ms | p95 vs baseline | count p50 ms | count p95 ms |\n|---|---:|---:|---:|---:|---:|---:|---:|",
  );
  console.log(rows.join("\n"));
  console.log(`\n${detailLine}`);
  await client.end();
  if (!KEEP) {
    const a = new pg.Client({ connectionString: database.adminUrl });
    await a.connect();
    await a.query(`drop database if exists "${DB}" with (force)`);
    await a.end();
  }
  const { db } = await import("@/lib/db/client.ts");
  await db().$disconnect();
  await database.stop();
}

/** The bench database, made again (fresh) when it is missing or holds another --n. */
async function openDatabase() {
  const { database, admin, url, exists } = await benchDatabase(DB);
  const c = new pg.Client({ connectionString: url });
  let fresh = !exists;
  if (exists) {
    await c.connect();
    const n = Number(
      (
        await c
          .query("select count(*) from ledger where run_id = $1 and is_current", [RUN])
          .catch(() => ({ rows: [{ count: 0 }] }))
      ).rows[0].count,
    );
    await c.end();
    if (n !== N) {
      await admin.query(`drop database "${DB}" with (force)`);
      fresh = true;
    }
  }
  await admin.end();
  if (fresh) await createDatabaseIfMissing(database.adminUrl, DB);
  await migrate(url);
  return { database, url, fresh };
}

/** The generated run of --base rollouts through the real ingest path, then copied with SQL up to --n entries. */
async function buildRun(client: pg.Client, url: string) {
  const { ingestValues } = await import("@/lib/ingest/ingest.ts");
  const { demoRunValues } = await import("@/lib/demo/generate.ts");
  const pool = new pg.Pool({ connectionString: url, max: 3 });
  await pool.query("insert into runs (id) values ($1) on conflict do nothing", [RUN]);
  const steps = Math.max(1, Math.round(BASE / (250 * 4)));
  let t = performance.now();
  const s = await ingestValues(
    demoRunValues({ runId: RUN, tickets: 250, steps, k: 4, seed: "bench", variant: "normal" }),
    { pool, batchLines: 4000, after: afterWrite(pool) },
  );
  await pool.end();
  const base = s.by_kind.rollout.accepted;
  console.log(
    `ingested ${base.toLocaleString("en-US")} generated rollouts in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );
  t = performance.now();
  const copies = Math.ceil(N / base) - 1;
  await client.query("begin");
  await client.query("create temp table src as select * from ledger where run_id = $1 and is_current", [RUN]);
  for (let k = 1; k <= copies; k++) {
    const need = Math.min(base, N - base * k);
    if (need <= 0) break;
    await client.query(
      `with ins as (
           insert into ledger (trajectory_id, rollout_id, run_id, step, ticket_id, group_id, category, status, source,
                               verifier_version, config_hash, claims_source, raw_reward, reward, capped, outcome, policy,
                               evidence, efficiency, communication, deciding_guardrail, guardrail_mask, guardrails, reasons,
                               claims, handoff, tool_steps, content_hash)
           select s.trajectory_id || '#' || $1, s.rollout_id, s.run_id, s.step, s.ticket_id, s.group_id || '#' || $1, s.category,
                  s.status, s.source, s.verifier_version, s.config_hash, s.claims_source, s.raw_reward, s.reward, s.capped,
                  s.outcome, s.policy, s.evidence, s.efficiency, s.communication, s.deciding_guardrail, s.guardrail_mask,
                  s.guardrails, s.reasons, s.claims, s.handoff, s.tool_steps, s.content_hash
             from (select * from src order by id limit $2) s
           returning id, trajectory_id)
         , pairs as (select i.id as new_id, s.id as old_id from ins i join src s on s.trajectory_id || '#' || $1 = i.trajectory_id)
         , g as (insert into ledger_guardrails (ledger_id, run_id, step, code, cap, deciding)
                 select p.new_id, lg.run_id, lg.step, lg.code, lg.cap, lg.deciding from pairs p join ledger_guardrails lg on lg.ledger_id = p.old_id)
         insert into ledger_reasons (ledger_id, ord, run_id, step, dimension, guardrail, code, tool, field)
         select p.new_id, lr.ord, lr.run_id, lr.step, lr.dimension, lr.guardrail, lr.code, lr.tool, lr.field
           from pairs p join ledger_reasons lr on lr.ledger_id = p.old_id`,
      [String(k), need],
    );
  }
  await client.query("commit");
  await client.query("vacuum analyze ledger");
  await client.query("vacuum analyze ledger_reasons");
  await client.query("vacuum analyze ledger_guardrails");
  console.log(`copied up to ${N.toLocaleString("en-US")} entries in ${((performance.now() - t) / 1000).toFixed(1)} s`);
}

/** The filters measured, from the baseline to the clusters page's links, with values drawn from the data. */
async function browseCases(client: pg.Client) {
  const total = Number(
    (await client.query("select count(*) from ledger where run_id = $1 and is_current", [RUN])).rows[0].count,
  );
  const { sample, rare: reason, signature, top } = await browseProbes(client, RUN);

  const { formatReasonSignature, browseQuery } = await import("@/lib/ledger/browse-schema.ts");
  const { BLIND_SPOT_KEY, browserFilters, formatKey, parseKey } = await import("@/lib/clusters/keys.ts");
  const level2 = parseKey(`${top.deciding}|${formatReasonSignature(top)}`)!;
  const linkParams = (k: NonNullable<ReturnType<typeof parseKey>>) =>
    Object.fromEntries(new URLSearchParams(browseQuery(browserFilters({ runId: RUN, threshold: 0.5 }, k))));

  const cases: [string, Record<string, string>][] = [
    ["baseline: run only, newest first", {}],
    ["step range (last 10%)", { step_from: "27000" }],
    ["category", { category: sample[0].category }],
    ["reward ≤ 0.5", { reward_max: "0.5" }],
    ["evidence ≤ 0.5", { evidence_max: "0.5" }],
    ["guardrail any of missing_evidence", { any: "missing_evidence" }],
    [
      "guardrail none of six",
      { none: "customer_harm,unauthorized_write,duplicate_side_effect,empty_promise,policy_error,missing_evidence" },
    ],
    ["deciding = empty_promise", { deciding: "empty_promise" }],
    ["capped", { capped: "yes" }],
    ["hand-off", { handoff: "yes" }],
    ["status spec_error", { status: "spec_error" }],
    [`reason ${reason} (rarest)`, { reason }],
    ["ticket id", { q: sample[1].ticket_id }],
    ["trajectory id", { q: sample[2].trajectory_id }],
    ["sampled (none are)", { sampled: "yes" }],
    [`reason signature ${formatReasonSignature(signature)}`, { sig: formatReasonSignature(signature) }],
    ["weakest sub-score = evidence", { weakest: "evidence" }],
    ["all of missing_evidence + unauthorized_write", { all: "missing_evidence,unauthorized_write" }],
    ["no sandbox write", { sandbox_write: "no" }],
    ["reward below 0.5 (strict)", { reward_below: "0.5" }],
    ["sort by reward ascending", { sort: "reward", dir: "asc" }],
    [
      "combo: any + reward ≤ 0.5 + steps",
      { any: "missing_evidence", reward_max: "0.5", step_from: "0", step_to: "9000" },
    ],
    [
      "combo: category + hand-off + sort by step",
      { category: sample[3].category, handoff: "yes", sort: "step", dir: "asc" },
    ],
    [
      "combo: deciding + evidence ≤ 0.5, sort by reward",
      { deciding: "missing_evidence", evidence_max: "0.5", sort: "reward" },
    ],
    // the clusters page's links into the browser, exactly as browserFilters writes them
    [`combo: level-2 cluster link ${formatKey(level2).replaceAll("|", " › ")}`, linkParams(level2)],
    ["combo: blind-spot cluster link", linkParams(parseKey(BLIND_SPOT_KEY)!)],
  ];
  return { total, sample, cases };
}

/** Each filter's first page and count, --iterations times after two warm-ups; the table's rows. */
async function measurePages(total: number, cases: [string, Record<string, string>][]): Promise<string[]> {
  const { browseLedger, countLedger } = await import("@/lib/ledger/browse.ts");
  const { parseBrowseParams } = await import("@/lib/ledger/browse-schema.ts");
  console.log(
    `\n${total.toLocaleString("en-US")} current entries in run ${RUN}; ${ITER} iterations each; ${os.cpus()[0].model}, ${os.cpus().length} CPUs, node ${process.version}\n`,
  );
  // What an estimated count stands in for: the exact count (the threshold lifted) and what it would cost a page view,
  // the median of EXACT_ITER runs (each a scan of the matching rows, so fewer runs than the page's).
  const timeExactCount = async (p: Parameters<typeof countLedger>[0]) => {
    const ms: number[] = [];
    let n = 0;
    for (let i = 0; i < EXACT_ITER; i++) {
      const t0 = performance.now();
      n = (await countLedger(p, { exactScopeRows: Number.POSITIVE_INFINITY })).count;
      ms.push(performance.now() - t0);
    }
    return { count: n, ms: pct(ms, 0.5) };
  };
  const rows: string[] = [];
  let baseP95 = 0;
  for (const [name, q] of cases) {
    if (ONLY && !name.includes(ONLY) && !name.startsWith("baseline")) continue;
    const parsed = parseBrowseParams({ run: RUN, ...q });
    if (!parsed.ok) throw new Error(parsed.errors.join("; "));
    const times: number[] = [];
    const countTimes: number[] = [];
    let got = 0;
    let count = { count: 0, exact: true };
    for (let i = 0; i < ITER + 2; i++) {
      const t0 = performance.now();
      const page = await browseLedger(parsed.params, 100);
      const t1 = performance.now();
      count = await countLedger(parsed.params, { exactScopeRows: EXACT_SCOPE });
      const t2 = performance.now();
      if (i >= 2) {
        times.push(t1 - t0);
        countTimes.push(t2 - t1);
      }
      got = page.rows.length;
    }
    const p95 = pct(times, 0.95);
    if (!baseP95) baseP95 = p95;
    const exact = count.exact ? null : await timeExactCount(parsed.params);
    const error = exact ? `${((100 * (count.count - exact.count)) / exact.count).toFixed(1)}%` : "exact";
    rows.push(
      `| ${name} | ${got} | ${count.exact ? count.count.toLocaleString("en-US") : `≈ ${count.count.toLocaleString("en-US")}`} | ${pct(times, 0.5).toFixed(1)} | ${p95.toFixed(1)} | ${(p95 / baseP95).toFixed(2)}× | ${pct(countTimes, 0.5).toFixed(1)} | ${pct(countTimes, 0.95).toFixed(1)} | ${exact ? exact.count.toLocaleString("en-US") : "–"} | ${error} | ${exact ? exact.ms.toFixed(0) : "–"} |`,
    );
    console.log(rows[rows.length - 1]);
  }
  return rows;
}

/** The rollout detail query for 40 random rollouts of the sample. */
async function measureDetail(sample: { trajectory_id: string }[]): Promise<string> {
  const { loadTrajectoryDetail } = await import("@/lib/ledger/detail.ts");
  const detail: number[] = [];
  for (const s of sample.slice(0, 40)) {
    const t0 = performance.now();
    const d = await loadTrajectoryDetail(s.trajectory_id);
    detail.push(performance.now() - t0);
    if (!d) throw new Error(`no detail for ${s.trajectory_id}`);
  }
  return `detail query (loadTrajectoryDetail, 40 random rollouts): p50 ${pct(detail, 0.5).toFixed(1)} ms, p95 ${pct(detail, 0.95).toFixed(1)} ms`;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
