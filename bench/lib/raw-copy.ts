// The baseline: the same rows into PostgreSQL as fast as COPY takes them. The file is read and parsed line by line
// exactly as ingest does, each rollout and each score record becomes the row it would be in `rollouts` / `ledger`
// (the same columns, JSON columns as text), and the rows go by COPY, in the same batch size, into scratch tables
// with the same column types but no index, constraint, trigger, dedupe, validation, hashing or rollup.
import fs from "node:fs";
import readline from "node:readline";
import pg from "pg";
import { copyRows, type CopyValue } from "@/lib/db/copy.ts";
import { LEDGER_TAIL_COLUMNS } from "@/lib/ledger/store/ledger-rows.ts";
import { ROLLOUT_TAIL_COLUMNS } from "@/lib/ledger/store/rows.ts";

// The product's own column lists (lib/ledger/store): a rollout's registry goes first here, and the baseline stores no
// trained reward with the rollout.
const ROLLOUT_COLS = ["registry_id", ...ROLLOUT_TAIL_COLUMNS.filter((c) => c !== "trained_reward")];
const LEDGER_COLS = [...LEDGER_TAIL_COLUMNS, "content_hash"];

export async function rawCopy(
  url: string,
  file: string,
  batch: number,
): Promise<{ seconds: number; rollouts: number; records: number }> {
  const rl = readline.createInterface({
    input: fs.createReadStream(file, { highWaterMark: 1 << 20 }),
    crlfDelay: Infinity,
  });
  return rawCopyLines(url, rl, batch);
}

/**
 * The same from lines in memory or generated (bench/scale.ts). `primaryKey`: each scratch table gets an identity
 * primary key, the one index a bare table would have.
 */
export async function rawCopyLines(
  url: string,
  lines: AsyncIterable<string> | Iterable<string>,
  batch: number,
  opts: { primaryKey?: boolean } = {},
): Promise<{ seconds: number; rollouts: number; records: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const pk = opts.primaryKey ? "id bigint generated always as identity primary key, " : "";
  await client.query("drop table if exists raw_rollouts, raw_ledger");
  await client.query(`create table raw_rollouts (${pk}trajectory_id text, run_id text, step int, group_id text, sample_index int, ticket_id text,
    steps jsonb, final_reply text, sandbox jsonb, registry_id int, claims jsonb, tool_steps int, content_hash text)`);
  await client.query(`create table raw_ledger (${pk}trajectory_id text, run_id text, step int, ticket_id text, group_id text, status text, source text,
    verifier_version text, config_hash text, claims_source text, raw_reward float8, reward float8, capped bool, outcome float8, policy float8,
    evidence float8, efficiency float8, communication float8, deciding_guardrail text, guardrail_mask int, guardrails jsonb, reasons jsonb,
    claims jsonb, handoff bool, tool_steps int, content_hash text)`);
  const started = process.hrtime.bigint();
  let rollouts: CopyValue[][] = [];
  let records: CopyValue[][] = [];
  let nR = 0;
  let nL = 0;
  let inBatch = 0;
  const flush = async () => {
    await client.query("begin");
    await copyRows(client, "raw_rollouts", ROLLOUT_COLS, rollouts);
    await copyRows(client, "raw_ledger", LEDGER_COLS, records);
    await client.query("commit");
    nR += rollouts.length;
    nL += records.length;
    rollouts = [];
    records = [];
    inBatch = 0;
  };
  for await (const line of lines) {
    const v = JSON.parse(line);
    if (v.kind === "rollout") {
      const tools = v.trajectory.steps.filter((s: { type: string }) => s.type === "tool").length;
      rollouts.push([
        1,
        v.trajectory_id,
        v.run_id,
        v.step,
        v.group_id,
        v.sample_index,
        v.ticket_id,
        JSON.stringify(v.trajectory.steps),
        v.trajectory.final_reply,
        JSON.stringify(v.sandbox),
        JSON.stringify(v.claims),
        tools,
        "",
      ]);
    } else if (v.kind === "score") {
      const s = v.subscores ?? {};
      records.push([
        v.trajectory_id,
        v.run_id,
        v.step,
        v.ticket_id,
        v.group_id,
        v.status ?? "scored",
        v.source ?? "verifier",
        v.verifier_version,
        v.config_hash,
        v.claims_source,
        v.raw_reward,
        v.reward,
        v.capped,
        s.outcome,
        s.policy,
        s.evidence,
        s.efficiency,
        s.communication,
        v.deciding_guardrail,
        0,
        JSON.stringify(v.guardrails),
        JSON.stringify(v.reasons),
        JSON.stringify(v.claims),
        v.handoff,
        v.tool_steps,
        "",
      ]);
    }
    if (++inBatch >= batch) await flush();
  }
  if (inBatch) await flush();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await client.end();
  return { seconds, rollouts: nR, records: nL };
}
