import pg from "pg";
import { createClient } from "@/lib/db/client.ts";
import { ensureDatabase } from "@/lib/db/embedded.ts";
import { countSteps, listBucketedRollups, listOverview, listAlarmStepRows, reviewFingerprint, getRunThresholds } from "@/lib/monitors/data.ts";
import { listAuditPoints } from "@/lib/monitors/audit-data.ts";
import { loadRunCharts } from "@/lib/monitors/loaders.ts";

const db = await ensureDatabase("postgres");
const url = process.argv[2];
const client = createClient(url);
const pool = new pg.Pool({ connectionString: url, max: 4 });
async function t(name: string, fn: () => Promise<unknown>, n = 30) {
  for (let i = 0; i < 3; i++) await fn();
  const ts: number[] = [];
  for (let i = 0; i < n; i++) { const a = performance.now(); await fn(); ts.push(performance.now() - a); }
  ts.sort((a, b) => a - b);
  console.log(name.padEnd(60), ts[Math.floor(n / 2)].toFixed(1), ts[Math.floor(n * 0.95)].toFixed(1));
}
const whole = { from: 0, to: 2147483647 };
for (const run of ["bench-main", "bench-fine"]) {
  console.log("==", run);
  await t("getRunThresholds", () => getRunThresholds(run, client));
  await t("countSteps", () => countSteps([run], whole, client));
  await t("listBucketedRollups w=1", () => listBucketedRollups(run, whole, 1, 0, client));
  await t("listBucketedRollups w=25", () => listBucketedRollups(run, whole, 25, 0, client));
  await t("listOverview", () => listOverview(run, 400, client));
  await t("reviewFingerprint", () => reviewFingerprint(run, client));
  await t("listAuditPoints (cached)", () => listAuditPoints(run, 500, client));
  await t("listAlarmStepRows (prisma)", () => listAlarmStepRows(run, client));
  await t("listAlarmStepRows (pg)", () => pool.query(`select step, rollouts, handoffs, guardrail_hits as "guardrailHits", groups, group_std_sum as "groupStdSum", rewarded, reward_sum as "rewardSum" from step_rollups where run_id = $1 order by step`, [run]));
  await t("steps raw pg w=1", () => pool.query(`select * from step_rollups where run_id = $1 order by step`, [run]));
  await t("select 1 prisma", () => client.$queryRaw`select 1`);
  await t("select 1 pg", () => pool.query("select 1"));
  await t("loadRunCharts", () => loadRunCharts(run, {}, client));
}
await client.$disconnect(); await pool.end(); await db.stop();
