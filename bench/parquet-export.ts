// bench/parquet-export: `verity export --format parquet` of 1,000,000 current ledger entries, against the NDJSON
// export of the same rows in the same run.
// `npx tsx bench/parquet-export.ts [--base 50000] [--n 1000000] [--row-groups 50000,...] [--keep]`.
//
// Data as bench/browse.ts builds it: a generated GRPO run of --base rollouts through the real ingest path (so rows
// are the verifier's own), copied with SQL (new ids and trajectory ids, same scores and reasons) up to --n entries.
// Each export runs as its own `verity export` process under /usr/bin/time, which gives its peak RSS; the file is
// then read back by DuckDB to check its row count. Prints rows/s, file size and peak RSS for both formats.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { createDatabaseIfMissing } from "@/lib/db/embedded.ts";
import { migrate } from "@/lib/db/migrate.ts";
import { ROW_GROUP_ROWS } from "@/lib/ledger/parquet.ts";
import { countParquetRows } from "@/lib/testing/parquet-reader.ts";
import { afterWrite } from "@/lib/server/after-write.ts";
import { benchDatabase } from "@/bench/lib/bench-db.ts";

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const BASE = arg("base", 50_000);
const N = arg("n", 1_000_000);
const KEEP = process.argv.includes("--keep");
/** Further row-group sizes to measure beside the default: `--row-groups 50000,100000`. */
const ROW_GROUPS = (() => {
  const i = process.argv.indexOf("--row-groups");
  return i > 0 ? process.argv[i + 1].split(",").map(Number) : [];
})();
const DB = "verity_bench_parquet";
const RUN = "bench-parquet";

function timed(args: string[], env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number; seconds: number; stderr: string; rssMb: number }>((resolve) => {
    const started = performance.now();
    const child = spawn("/usr/bin/time", ["-f", "MAXRSS_KB %M", "npm", "run", "-s", "verity", "--", ...args], {
      env,
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (c) => (stderr += c));
    child.on("close", (code) =>
      resolve({
        code: code ?? -1,
        seconds: (performance.now() - started) / 1000,
        stderr,
        rssMb: Number(/MAXRSS_KB (\d+)/.exec(stderr)?.[1] ?? 0) / 1024,
      }),
    );
  });
}

async function build(url: string): Promise<void> {
  const { ingestValues } = await import("@/lib/ingest/ingest.ts");
  const { demoRunValues } = await import("@/lib/demo/generate.ts");
  const pool = new pg.Pool({ connectionString: url, max: 3 });
  await pool.query("insert into runs (id) values ($1) on conflict do nothing", [RUN]);
  let t = performance.now();
  const steps = Math.max(1, Math.round(BASE / (250 * 4)));
  const s = await ingestValues(
    demoRunValues({ runId: RUN, tickets: 250, steps, k: 4, seed: "bench", variant: "normal" }),
    { pool, batchLines: 4000, after: afterWrite(pool) },
  );
  const base = s.by_kind.rollout.accepted;
  console.log(
    `ingested ${base.toLocaleString("en-US")} generated rollouts in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );
  t = performance.now();
  // Only the ledger is copied: the export reads no narrow guardrail or reason rows without a guardrail filter.
  for (let k = 1; base * k < N; k++) {
    await pool.query(
      `insert into ledger (trajectory_id, rollout_id, run_id, step, ticket_id, group_id, category, status, source,
                           verifier_version, config_hash, claims_source, raw_reward, reward, capped, outcome, policy,
                           evidence, efficiency, communication, deciding_guardrail, guardrail_mask, guardrails, reasons,
                           claims, handoff, tool_steps, trained_reward, content_hash)
       select s.trajectory_id || '#' || $1, s.rollout_id, s.run_id, s.step, s.ticket_id, s.group_id || '#' || $1,
              s.category, s.status, s.source, s.verifier_version, s.config_hash, s.claims_source, s.raw_reward, s.reward,
              s.capped, s.outcome, s.policy, s.evidence, s.efficiency, s.communication, s.deciding_guardrail,
              s.guardrail_mask, s.guardrails, s.reasons, s.claims, s.handoff, s.tool_steps, s.trained_reward, s.content_hash
         from (select * from ledger where run_id = $3 and is_current and trajectory_id not like '%#%' order by id limit $2) s`,
      [String(k), Math.min(base, N - base * k), RUN],
    );
  }
  await pool.query("vacuum analyze ledger");
  await pool.end();
  console.log(`copied up to ${N.toLocaleString("en-US")} entries in ${((performance.now() - t) / 1000).toFixed(1)} s`);
}

async function main() {
  const { database, admin, url, exists } = await benchDatabase(DB);
  let count = 0;
  if (exists) {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    count = Number(
      (await c.query("select count(*) from ledger where run_id = $1 and is_current", [RUN]).catch(() => null))?.rows[0]
        .count ?? 0,
    );
    await c.end();
    if (count !== N) await admin.query(`drop database "${DB}" with (force)`);
  }
  await admin.end();
  if (count !== N) {
    await createDatabaseIfMissing(database.adminUrl, DB);
    await migrate(url);
    await build(url);
  }

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "verity-bench-parquet-"));
  const env = { ...process.env, DATABASE_URL: url };
  const results: { name: string; seconds: number; bytes: number; rssMb: number }[] = [];
  // the NDJSON baseline, then Parquet at the default row group and at each --row-groups size given
  const runs: { name: string; format: "ndjson" | "parquet"; extra: string[] }[] = [
    { name: "ndjson", format: "ndjson", extra: ["--no-cases"] },
    { name: `parquet (row groups of ${ROW_GROUP_ROWS.toLocaleString("en-US")})`, format: "parquet", extra: [] },
    ...ROW_GROUPS.map((g) => ({
      name: `parquet (row groups of ${g.toLocaleString("en-US")})`,
      format: "parquet" as const,
      extra: ["--row-group", String(g)],
    })),
  ];
  for (const { name, format, extra } of runs) {
    const file = path.join(dir, `export.${format}`);
    const r = await timed(["export", "--run", RUN, "--format", format, ...extra, "--out", file], env);
    if (r.code !== 0) throw new Error(`${format} export failed: ${r.stderr}`);
    results.push({ name, seconds: r.seconds, bytes: fs.statSync(file).size, rssMb: r.rssMb });
    if (format === "parquet") {
      const view = await countParquetRows(file);
      if (view.rows !== N) throw new Error(`DuckDB read ${view.rows} rows, expected ${N}`);
      console.log(`DuckDB read back ${view.rows.toLocaleString("en-US")} rows in ${view.rowGroups} row groups`);
    }
    fs.rmSync(file);
  }
  console.log(
    `\n${N.toLocaleString("en-US")} current entries; ${os.cpus()[0].model}, ${os.cpus().length} CPUs, node ${process.version}, load average ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")}\n`,
  );
  console.log("| export | wall s | rows/s | vs NDJSON (rows/s) | file size | peak RSS |");
  console.log("|---|---:|---:|---:|---:|---:|");
  const base = results[0];
  for (const r of results)
    console.log(
      `| ${r.name} | ${r.seconds.toFixed(1)} | ${Math.round(N / r.seconds).toLocaleString("en-US")} | ${(base.seconds / r.seconds).toFixed(2)}x | ${(r.bytes / 1e6).toFixed(1)} MB | ${Math.round(r.rssMb)} MB |`,
    );
  console.log(
    `\ntarget: peak RSS of the Parquet export < 300 MB (default row group: ${Math.round(results[1].rssMb)} MB)`,
  );
  if (!KEEP) {
    const a = new pg.Client({ connectionString: database.adminUrl });
    await a.connect();
    await a.query(`drop database "${DB}" with (force)`);
    await a.end();
  }
  await database.stop();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
