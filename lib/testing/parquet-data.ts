// Test support for the Parquet exports: a small ledger with every kind of value a column can hold (verifier and
// external entries, null sub-scores, a trainer's reward or none, groups and sample indexes, no guardrail, one, several, re-scored entries that
// supersede others), and the rows a Parquet export of it must hold, read from the database by SQL of its own.
import type pg from "pg";
import { caseLine, externalScore, rolloutLine } from "@/lib/testing/ingest-fixtures.ts";
import { ingestText, ndjson } from "@/lib/testing/ingest-db.ts";
import { rescoreRun } from "@/lib/ledger/mutations.ts";
import { parseVerifierConfig } from "@/lib/verifier/config.ts";

const EXAMPLES = ["01", "02", "03", "04", "05", "06", "07", "08", "09", "10"];

/** Ingests the ledger under run `run` (tickets `${run}-T…`), then re-scores it under another config. */
export async function ingestParquetLedger(pool: pg.Pool, run: string): Promise<void> {
  const lines: unknown[] = [];
  for (const [i, ex] of EXAMPLES.entries()) {
    const ticket = `${run}-T${ex}`;
    lines.push(caseLine(ticket, ex));
    for (const k of [0, 1, 2]) {
      const step = (i % 4) + k;
      lines.push({
        ...rolloutLine(`${run}/${ex}/${k}`, ticket, { run, step, example: ex, group: `${run}/s${step}/${ticket}` }),
        sample_index: k,
        ...(k === 1 ? { trained_reward: 1 } : {}),
      });
    }
  }
  lines.push(
    externalScore(`${run}/x1`, `${run}-T01`, 0.33, {
      run,
      step: 1,
      guardrails: ["empty_promise", { code: "policy_error", cap: 0.4, evidence: { why: "x" } }],
    }),
    {
      ...externalScore(`${run}/x2`, `${run}-T02`, 0.9, { run, step: 3 }),
      subscores: { outcome: 1, policy: 0.5 },
      trained_reward: 0.75,
      reasons: [{ code: "custom", message: 'an "odd" reason, with ünïcode', tool: "t" }],
    },
  );
  const s = await ingestText(pool, ndjson(lines));
  if (!s.ok || s.rejected) throw new Error(`fixture ingest: ${JSON.stringify(s)}`);
  const c = parseVerifierConfig({ guardrails: { duplicate_side_effect: { cap: 0.1 } } });
  if (!c.ok) throw new Error("fixture config");
  await rescoreRun(pool, { runId: run, config: c.config });
}

/**
 * The current entries of `run` (within `from`–`to`) as the Parquet rows must read back: ordered by step and id,
 * ids as bigints, the guardrail codes of the `guardrails` array in its order, `reasons` as parsed JSON.
 */
export async function expectedParquetRows(
  pool: pg.Pool,
  run: string,
  range: { from?: number; to?: number } = {},
): Promise<Record<string, unknown>[]> {
  const { rows } = await pool.query(
    `select l.id::text as id, l.trajectory_id, l.supersedes_id::text as supersedes_id, l.run_id, l.step, l.group_id,
            r.sample_index, l.ticket_id, l.category, l.status::text as status, l.source::text as source, l.reward,
            l.raw_reward, l.trained_reward, l.outcome, l.policy, l.evidence, l.efficiency, l.communication, l.capped, l.deciding_guardrail,
            l.guardrails, l.reasons, l.handoff, l.tool_steps, l.verifier_version, l.config_hash, l.created_at
       from ledger l left join rollouts r on r.id = l.rollout_id
      where l.run_id = $1 and l.is_current and l.step >= $2 and l.step <= $3
      order by l.step, l.id`,
    [run, range.from ?? 0, range.to ?? 2147483647],
  );
  return rows.map(({ guardrails, ...r }) => ({
    ...r,
    id: BigInt(r.id),
    supersedes_id: r.supersedes_id === null ? null : BigInt(r.supersedes_id),
    guardrail_codes: (guardrails as { code: string }[]).map((g) => g.code),
  }));
}

/** A read-back row with its `reasons` JSON text parsed, to compare with expectedParquetRows. */
export function withParsedReasons(row: Record<string, unknown>): Record<string, unknown> {
  return { ...row, reasons: JSON.parse(row.reasons as string) };
}
