// bench/audit-plan-demo: the audit planner's figures on the demo (docs/benchmarks.md "Audit planner on the demo").
// Loads the demo as `npm start` does (VERITY_DEMO_SIZE, default "default") into its own database on the embedded
// server, then prints `verity sample --plan` over each demo run's last 2,000 steps at the 1% rate, and how long the
// plan took against the same window's `--dry-run` preview (the baseline: the plan is the preview plus the evidence).
//
// `npx tsx bench/audit-plan-demo.ts [--keep]`. Not part of npm test.
import { execFileSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { ensureDatabase } from "@/lib/db/embedded.ts";
import { migrate } from "@/lib/db/migrate.ts";
import { prepareFirstRun } from "@/lib/demo/first-run.ts";

const DB = "verity_bench_plan_demo";
const TSX = path.resolve("node_modules/.bin/tsx");

function verity(url: string, args: string[]): { out: string; ms: number } {
  const t0 = performance.now();
  const out = execFileSync(TSX, ["bin/verity.ts", ...args], { env: { ...process.env, DATABASE_URL: url } }).toString();
  return { out, ms: performance.now() - t0 };
}

async function main(): Promise<void> {
  const database = await ensureDatabase(DB);
  await migrate(database.url);
  const t0 = performance.now();
  await prepareFirstRun(database.url, (l) => console.log(`# ${l}`));
  console.log(`# demo loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s; load ${os.loadavg()[0].toFixed(1)}`);
  const pool = new pg.Pool({ connectionString: database.url, max: 1 });
  const runs = (
    await pool.query<{ id: string; last: number }>(
      `select run_id as id, max(step)::int as last from step_rollups
        where run_id in ('grpo-main', 'grpo-hacking') group by run_id order by run_id desc`,
    )
  ).rows;
  for (const r of runs) {
    const window = [
      "--run",
      r.id,
      "--from",
      String(Math.max(0, r.last - 1999)),
      "--to",
      String(r.last),
      "--rate",
      "0.01",
    ];
    const preview = verity(database.url, ["sample", ...window, "--dry-run", "--salt", "plan-demo"]);
    const plan = verity(database.url, ["sample", ...window, "--plan", "--salt", "plan-demo"]);
    console.log(`\n## ${r.id}, steps ${window[3]}–${window[5]} at 1%`);
    console.log(plan.out.trimEnd());
    console.log(
      `# plan ${plan.ms.toFixed(0)} ms, preview (baseline) ${preview.ms.toFixed(0)} ms, ratio ${(plan.ms / preview.ms).toFixed(2)}× (each a fresh CLI process); load ${os.loadavg()[0].toFixed(1)}`,
    );
  }
  await pool.end();
  if (!process.argv.includes("--keep")) {
    const admin = new pg.Pool({ connectionString: database.url.replace(`/${DB}`, "/postgres"), max: 1 });
    await admin.query(`drop database if exists ${DB} with (force)`);
    await admin.end();
  }
  await database.stop();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
