// The reward leaderboard's page read, uncached, against a database: `npx tsx bench/leaderboard-db.ts [--items 10000]
// [--functions 20] [--rounds 7] [--rebuild] [--build-only] [--dump FILE] [--db verity_bench_leaderboard]`
// (--build-only: make the database and time nothing, so the timed run can wait for a quiet machine; --dump: time
// nothing, write the view's JSON of five queries — the plain board, sorted by κ, two head to heads, a step window — and
// the ledger's standing, one per line, so that a change meant to move no figure can be checked with `cmp`). Not part
// of npm test.
//
// The database (kept between runs; --rebuild makes it again), made through the product's own write paths by the
// leaderboard's seed (lib/testing/leaderboard-seed.ts, at --items tickets): rollouts ingested at two steps, a tickets
// batch of one rollout per ticket (--items audited items, a fifth reviewed twice) reviewed blind, a pairwise batch of a
// tenth of the tickets judged, a rule run over every rollout, a judge behind a fake endpoint over the batch (ok, garbage, timeouts,
// server errors) and two versions over a few tickets; then --functions − 2 more versions run over the batch (rules and
// simulated judges, in turns), and an injection probe and a test–retest of one simulated judge over 200 audited items.
//
// Timed, each round after emptying the process caches (clearProcessCaches): the page's loader as /rewards/compare
// calls it (loadLeaderboard: the read, lib/leaderboard/data.ts, then the build, sort and view, lib/leaderboard/view.ts),
// and the same two phases timed apart. Baseline, in the same rounds and in turns with it: the agreement report's
// uncached load and build of the same items (lib/agreement/data.ts + report.ts, what the agreement page computes
// afresh), i.e. what one reward costs. Postgres's own buffers are warm after the first round, as on a console in use.
import { writeFileSync } from "node:fs";
import os from "node:os";
import { parseArgs } from "node:util";
import { loadAverage, migratedBenchDatabase } from "@/bench/lib/bench-db.ts";
import type { Db } from "@/lib/db/client.ts";

const { values } = parseArgs({
  options: {
    items: { type: "string", default: "10000" },
    functions: { type: "string", default: "20" },
    rounds: { type: "string", default: "7" },
    rebuild: { type: "boolean" },
    "build-only": { type: "boolean" },
    dump: { type: "string" },
    db: { type: "string", default: "verity_bench_leaderboard" },
  },
});
const ITEMS = Number(values.items);
const FUNCTIONS = Number(values.functions);
const ROUNDS = Number(values.rounds);
if (!(FUNCTIONS >= 2)) throw new Error(`--functions: at least 2 (the seed's rule and judge), got ${values.functions}`);
if (!(ROUNDS >= 1)) throw new Error(`--rounds: at least 1, got ${values.rounds}`);
const DB = values.db;
if (!/^[a-z_][a-z0-9_]*$/.test(DB)) throw new Error(`--db: a lower-case SQL name, got ${JSON.stringify(DB)}`);

const say = (s: string) => console.log(s);
const fmt = (x: number) => Math.round(x).toLocaleString("en-US");
const secondsSince = (t0: number) => ((performance.now() - t0) / 1000).toFixed(1);
function pct(xs: number[], p: number) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
}

/** The leaderboard's seed at --items tickets, then the other versions, the probe and the retest. */
async function build(url: string): Promise<void> {
  const { seedLeaderboardRun, addVersion, runVersion } = await import("@/lib/testing/leaderboard-seed.ts");
  const { versionDocument } = await import("@/lib/rewards/schema.ts");
  let t0 = performance.now();
  const seed = await seedLeaderboardRun(url, ITEMS, { pairRate: 0.1 });
  say(
    `seeded run ${seed.runId} (ingest, batches, reviews, 4 versions run) in ${secondsSince(t0)} s (${loadAverage()})`,
  );
  t0 = performance.now();
  let judge = 0;
  for (let k = 0; k < FUNCTIONS - 2; k++) {
    const doc =
      k % 2 === 0
        ? versionDocument({
            components: [
              { kind: "format", name: "says refunded", weight: (3 + (k % 5)) / 10, pattern: "refunded" },
              { kind: "format", name: "names the amount", weight: (7 - (k % 5)) / 10, pattern: "\\d+(\\.\\d+)? EUR" },
            ],
          })
        : versionDocument({
            components: [{ kind: "judge", rubric: `did the agent refund correctly? (${k})`, simulated: true }],
          });
    const v = await addVersion(`bench-${k % 2 === 0 ? "rule" : "judge"}-${k}`, doc);
    if (k % 2 === 1) judge = v.id;
    await runVersion(url, v.id, seed.runId, { kind: "batch", batch: seed.ticketBatch });
  }
  // a probe and a retest of the last simulated judge (there is none below four functions)
  if (judge) {
    await runVersion(url, judge, seed.runId, { kind: "audited", n: 200, salt: "bench" }, "probe");
    await runVersion(url, judge, seed.runId, { kind: "audited", n: 200, salt: "bench" }, "retest");
  }
  say(
    `ran ${FUNCTIONS - 2} more versions over the batch, a probe and a retest in ${secondsSince(t0)} s (${loadAverage()})`,
  );
}

async function main() {
  const { database, url, fresh } = await migratedBenchDatabase(DB, !!values.rebuild);
  const { bindDatabase } = await import("@/lib/db/client.ts");
  const client = await bindDatabase(url);
  const { closeBulkPool } = await import("@/lib/db/pool.ts");
  if (fresh) {
    await build(url);
    await closeBulkPool(url);
    await client.$executeRawUnsafe("vacuum analyze");
  }
  if (values["build-only"]) {
    await client.$disconnect();
    await database.stop();
    return;
  }
  const { clearProcessCaches } = await import("@/lib/db/fingerprint-cache.ts");
  const { loadLeaderboard } = await import("@/lib/leaderboard/loaders.ts");
  const { loadLeaderboardInput } = await import("@/lib/leaderboard/data.ts");
  const { leaderboardView } = await import("@/lib/leaderboard/view.ts");
  const { parseLeaderboardQuery } = await import("@/lib/leaderboard/schema.ts");
  const { loadAgreementItems } = await import("@/lib/agreement/data.ts");
  const { buildAgreementReport } = await import("@/lib/agreement/report.ts");

  const [{ id: runId }] = await client.$queryRaw<{ id: string }[]>`select id from runs order by id limit 1`;
  const parsed = parseLeaderboardQuery({ run: runId });
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  const q = parsed.query;
  const f = { run: runId, tolerance: 0.1 };
  if (values.dump) {
    await dump(values.dump, runId, client);
    await client.$disconnect();
    await database.stop();
    return;
  }

  const timings = (): Timings => ({ page: [], read: [], view: [], agreementLoad: [], agreementBuild: [] });
  const t = timings();
  let shape = "";
  for (let i = 0; i < ROUNDS + 1; i++) {
    const into = i === 0 ? timings() : t; // the first round warms up
    const leaderboard = async () => {
      clearProcessCaches();
      let t0 = performance.now();
      const loaded = await loadLeaderboard(q, client);
      into.page.push(performance.now() - t0);
      if (!loaded.ok) throw new Error(loaded.error);
      const v = loaded.view;
      shape = `${fmt(v.items)} audited items, ${fmt(v.pairwiseJudgements)} pairwise judgements, ${v.rows.length} rows (the ledger and ${v.rows.length - 1} versions, ${v.rows.filter((r) => r.coverage.covered === v.items).length - 1} of them covering every item)`;
      clearProcessCaches();
      t0 = performance.now();
      const src = await loadLeaderboardInput(q, client);
      into.read.push(performance.now() - t0);
      if (!src.ok) throw new Error(src.error);
      t0 = performance.now();
      leaderboardView(src, q);
      into.view.push(performance.now() - t0);
    };
    const agreement = async () => {
      clearProcessCaches();
      let t0 = performance.now();
      const items = await loadAgreementItems(f, client, { lean: true });
      into.agreementLoad.push(performance.now() - t0);
      t0 = performance.now();
      buildAgreementReport(items, f);
      into.agreementBuild.push(performance.now() - t0);
    };
    if (i % 2) {
      await agreement();
      await leaderboard();
    } else {
      await leaderboard();
      await agreement();
    }
  }
  report(t, shape);
  await client.$disconnect();
  await database.stop();
}

/** The view's JSON of five queries and the ledger's standing on each, one line each, into `file`. */
async function dump(file: string, runId: string, client: Db) {
  const { loadLeaderboardInput } = await import("@/lib/leaderboard/data.ts");
  const { leaderboardView } = await import("@/lib/leaderboard/view.ts");
  const { ledgerStanding } = await import("@/lib/leaderboard/standing.ts");
  const { parseLeaderboardQuery } = await import("@/lib/leaderboard/schema.ts");
  const v = (
    await client.$queryRaw<{ id: number }[]>`
    select distinct version_id::int as id from reward_results order by 1`
  ).map((r) => String(r.id));
  const queries: Record<string, string>[] = [
    {},
    { sort: "kappa" },
    { a: "ledger", b: v[0] },
    { a: v[1], b: v[v.length - 1], side: "a" },
    { from: "15", sort: "mae" },
  ];
  const lines: string[] = [];
  for (const raw of queries) {
    const parsed = parseLeaderboardQuery({ run: runId, ...raw });
    if (!parsed.ok) throw new Error(parsed.errors.join("; "));
    const src = await loadLeaderboardInput(parsed.query, client);
    if (!src.ok) throw new Error(src.error);
    lines.push(JSON.stringify(leaderboardView(src, parsed.query)), JSON.stringify(ledgerStanding(src.input)));
  }
  writeFileSync(file, lines.join("\n") + "\n");
  say(`wrote the view of ${queries.length} queries and the ledger's standing on each to ${file}`);
}

type Timings = Record<"page" | "read" | "view" | "agreementLoad" | "agreementBuild", number[]>;

function report(t: Timings, shape: string) {
  const agreement = t.agreementLoad.map((x, j) => x + t.agreementBuild[j]);
  const base = pct(agreement, 0.5);
  say(
    `\nbench/leaderboard-db: ${shape}; ${ROUNDS} rounds after a warm-up; ${os.cpus().length} CPUs, node ${process.version}; ${loadAverage()}`,
  );
  say("| uncached, each round after clearProcessCaches | p50 ms | p95 ms | max ms | p50 vs baseline |");
  say("|---|---:|---:|---:|---:|");
  const line = (name: string, xs: number[]) =>
    say(
      `| ${name} | ${fmt(pct(xs, 0.5))} | ${fmt(pct(xs, 0.95))} | ${fmt(Math.max(...xs))} | ${(pct(xs, 0.5) / base).toFixed(2)}× |`,
    );
  line("**the page's loader** (loadLeaderboard)", t.page);
  line("  its read (loadLeaderboardInput)", t.read);
  line("  its build, sort and view (leaderboardView)", t.view);
  line("baseline: the agreement report's load (loadAgreementItems)", t.agreementLoad);
  line("baseline: the agreement report's build (buildAgreementReport)", t.agreementBuild);
  line("**baseline: the agreement report, load + build**", agreement);
  const p50 = pct(t.page, 0.5);
  say(
    `target: the page's uncached loader within 1 s: ${p50 <= 1000 ? "met" : "NOT met"} at p50 (${fmt(p50)} ms), ${Math.max(...t.page) <= 1000 ? "met" : "NOT met"} at max (${fmt(Math.max(...t.page))} ms)`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
