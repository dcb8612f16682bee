// bench/search-share: what a saved search's count per step costs (the monitors page's chart, the clusters page's
// table), beside the plain count of the same search's matches in the same run, on a database that holds a large run.
// `npx tsx bench/search-share.ts --db NAME --run RUN [--iterations 10] "QUERY" ...`
//
// Run it on bench/search.ts's kept database (its run of 1 M, 3 M or 10 M rollouts): the per-step count reads the
// same candidates as the plain count (the search index in the run's partition, then each candidate's current
// entry), adds a hash aggregate by step and one read of the run's step_rollups, and is stopped at the search's
// statement timeout. Prints p50/p95 of each and their ratio; figures in docs/search.md, "The count per step".
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { Prisma } from "@/lib/generated/prisma/client.ts";
import { ensureDatabase } from "@/lib/db/embedded.ts";
import { parseSearch } from "@/lib/search/parse.ts";
import { searchCondition } from "@/lib/search/sql.ts";
import { loadIndexedSearch } from "@/lib/search/data.ts";

const { values, positionals } = parseArgs({
  options: {
    db: { type: "string" },
    run: { type: "string" },
    iterations: { type: "string", default: "10" },
  },
  allowPositionals: true,
});
if (!values.db || !values.run || !positionals.length) {
  console.error('usage: npx tsx bench/search-share.ts --db NAME --run RUN [--iterations 10] "QUERY" ...');
  process.exit(2);
}
const ITER = Number(values.iterations);
const RUN = values.run;

function pct(xs: number[], p: number) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)];
}

async function timed(fn: () => Promise<unknown>): Promise<{ p50: number; p95: number }> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < ITER; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return { p50: pct(times, 0.5), p95: pct(times, 0.95) };
}

async function main() {
  const database = await ensureDatabase("postgres");
  const u = new URL(database.adminUrl);
  u.pathname = `/${values.db}`;
  const { bindDatabase, db } = await import("@/lib/db/client.ts");
  await bindDatabase(u.toString());
  const { stepShares } = await import("@/lib/saved-searches/data.ts");
  const [{ n }] = await db().$queryRaw<{ n: bigint }[]>`
    select count(*) as n from ledger l where l.run_id = ${RUN} and l.is_current`;
  console.log(`run ${RUN}: ${Number(n).toLocaleString("en-US")} current entries; ${ITER} iterations each\n`);
  console.log(
    "| search | matches | steps | count p50 ms | count p95 ms | per step p50 ms | per step p95 ms | ratio p95 |",
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|");
  for (const text of positionals) {
    const parsed = parseSearch(text);
    if (!parsed.ok) throw new Error(parsed.error);
    const search = await loadIndexedSearch(db(), parsed.query, [RUN]);
    const plain = Prisma.sql`select count(*) as n from ledger l
      where l.run_id = ${RUN} and l.is_current and ${searchCondition(search, "l")}`;
    let matches = 0;
    let steps = 0;
    const count = await timed(async () => {
      matches = Number((await db().$queryRaw<{ n: bigint }[]>(plain))[0].n);
    });
    const perStep = await timed(async () => {
      const r = await stepShares(parsed.query, RUN, {}, db());
      if (!r.ok) throw new Error(r.error);
      steps = r.steps.length;
    });
    console.log(
      `| \`${text}\` | ${matches.toLocaleString("en-US")} | ${steps} | ${count.p50.toFixed(0)} | ${count.p95.toFixed(0)} | ${perStep.p50.toFixed(0)} | ${perStep.p95.toFixed(0)} | ${(perStep.p95 / count.p95).toFixed(2)} |`,
    );
  }
  await db().$disconnect();
}

await main();
