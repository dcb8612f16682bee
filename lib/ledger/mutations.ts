// Re-scoring a run under another verifier config. The ledger is append-only: every rollout whose score changes
// gets a new entry pointing at the one it supersedes, and the old entry's is_current flips to false in the same
// transaction, together with the rollups (old subtracted, new added). Entries computed elsewhere (source external)
// are left alone: Verity cannot reproduce them.
import type pg from "pg";
import { CaseCache } from "@/lib/ingest/cases.ts";
import { checkout } from "@/lib/ingest/pool.ts";
import { ledgerEntryRows, withTrainedReward, type LedgerEntryRows } from "@/lib/ingest/ledger-rows.ts";
import { rolloutFromColumns } from "@/lib/ingest/rows.ts";
import { allocateIds, beginLedgerWrite, insertLedgerEntries, type NewEntry } from "@/lib/ingest/write-batch.ts";
import { alarmHook, type AlarmHookOptions } from "@/lib/monitors/after-write.ts";
import { RollupDelta, SUCCESS_THRESHOLD, type RollupEntry } from "@/lib/rollups/mutations.ts";
import { configHash, type VerifierConfig } from "@/lib/verifier/config.ts";
import { scoreRollout } from "@/lib/verifier/score.ts";

export type GuardrailTransition = { from: string | null; to: string | null; n: number };

export type RescoreSummary = {
  run_id: string;
  config_hash: string;
  /** Rollouts of the run looked at. */
  rollouts: number;
  /** New entries that superseded the current one (every verifier entry, when the config changed: the config hash
   * is part of the record). */
  rescored: number;
  /** Of those, the ones whose reward differs. */
  reward_changed: number;
  /** Rollouts without a current entry before (their case arrived after them) that now have one. */
  added: number;
  /** The new score equals the current entry: nothing written. */
  unchanged: number;
  skipped_external: number;
  skipped_no_case: number;
  /** Superseded entries below 0.9 whose new entry is at or above it, and the reverse. */
  crossed_up: number;
  crossed_down: number;
  mean_before: number | null;
  mean_after: number | null;
  /** How the deciding guardrail moved, over re-scored entries where it changed (null = no guardrail). */
  transitions: GuardrailTransition[];
};

type RolloutRowDb = {
  id: string;
  trajectory_id: string;
  run_id: string;
  step: number;
  group_id: string;
  sample_index: number;
  ticket_id: string;
  steps: unknown;
  final_reply: string;
  sandbox: unknown;
  claims: unknown;
  tools: unknown;
  trained_reward: number | null;
};
type CurrentRow = RollupEntry & {
  id: string;
  trajectory_id: string;
  content_hash: string;
  trained_reward: number | null;
};

export type RescoreOptions = {
  runId: string;
  config: VerifierConfig;
  batchSize?: number;
  onProgress?: (done: number) => void;
  /** Alarm evaluation of the run after each committed batch (see lib/monitors/after-write.ts); false: none. */
  alarms?: AlarmHookOptions | false;
};

export async function rescoreRun(pool: pg.Pool, opts: RescoreOptions): Promise<RescoreSummary> {
  const { runId, config } = opts;
  const summary: RescoreSummary = {
    run_id: runId,
    config_hash: configHash(config),
    rollouts: 0,
    rescored: 0,
    reward_changed: 0,
    added: 0,
    unchanged: 0,
    skipped_external: 0,
    skipped_no_case: 0,
    crossed_up: 0,
    crossed_down: 0,
    mean_before: null,
    mean_after: null,
    transitions: [],
  };
  const cases = new CaseCache();
  const moves = new Map<string, GuardrailTransition>();
  const before = { sum: 0, n: 0 };
  const after = { sum: 0, n: 0 };
  let cursor = { step: -1, id: "0" };
  const alarms = opts.alarms === false ? null : alarmHook(pool, opts.alarms);
  try {
    for (;;) {
      const { rows } = await pool.query<RolloutRowDb>(
        `select r.id::text as id, r.trajectory_id, r.run_id, r.step, r.group_id, r.sample_index, r.ticket_id, r.steps,
                r.final_reply, r.sandbox, r.claims, t.tools, r.trained_reward
           from rollouts r join tool_registries t on t.id = r.registry_id
          where r.run_id = $1 and (r.step, r.id) > ($2, $3::bigint)
          order by r.step, r.id limit $4`,
        [runId, cursor.step, cursor.id, opts.batchSize ?? 1000],
      );
      if (rows.length === 0) break;
      cursor = { step: rows[rows.length - 1].step, id: rows[rows.length - 1].id };
      await cases.load(
        pool,
        rows.map((r) => r.ticket_id),
      );
      const freshOf = new Map<
        string,
        { rolloutId: string; rows: LedgerEntryRows; category: string; trained: number | null }
      >();
      for (const r of rows) {
        const known = cases.get(r.ticket_id);
        if (!known) {
          summary.skipped_no_case++;
          continue;
        }
        const entry = ledgerEntryRows(scoreRollout(rolloutFromColumns(r), known.doc, config));
        if (entry.ok)
          freshOf.set(r.trajectory_id, {
            rolloutId: r.id,
            rows: entry.rows,
            category: known.category,
            trained: r.trained_reward,
          });
      }
      summary.rollouts += rows.length;

      const client = await checkout(pool);
      try {
        await beginLedgerWrite(client);
        const cur = await client.query<CurrentRow>(
          `select id::text as id, trajectory_id, content_hash, run_id, step, group_id, status::text as status,
                  source::text as source, reward, raw_reward, capped, handoff, guardrail_mask, deciding_guardrail,
                  trained_reward
             from ledger where run_id = $1 and trajectory_id = any($2::text[]) and is_current`,
          [runId, [...freshOf.keys()]],
        );
        const currentOf = new Map(cur.rows.map((c) => [c.trajectory_id, c]));
        const delta = new RollupDelta();
        const entries: NewEntry[] = [];
        const supersedes: (string | null)[] = [];
        const rolloutIds = new Map<string, string>();
        for (const [trajectoryId, fresh] of freshOf) {
          const old = currentOf.get(trajectoryId);
          if (old?.source === "external") {
            summary.skipped_external++;
            continue;
          }
          // The trainer's reward is not the verifier's to change: the new entry keeps the one of the entry it
          // supersedes (which may have come from a score record); a first entry takes its rollout's.
          const f = { ...fresh, rows: withTrainedReward(fresh.rows, old ? old.trained_reward : fresh.trained) };
          if (old && old.content_hash === f.rows.content_hash) {
            summary.unchanged++;
            continue;
          }
          entries.push({ rows: f.rows, trajectoryId, category: f.category });
          supersedes.push(old?.id ?? null);
          rolloutIds.set(trajectoryId, f.rolloutId);
          const next = f.rows.values;
          if (!old) {
            summary.added++;
            continue;
          }
          summary.rescored++;
          if (old.reward !== next.reward) summary.reward_changed++;
          delta.add(old, -1);
          if (old.reward !== null) Object.assign(before, { sum: before.sum + old.reward, n: before.n + 1 });
          if (next.reward !== null) Object.assign(after, { sum: after.sum + next.reward, n: after.n + 1 });
          const wasOk = old.reward !== null && old.reward >= SUCCESS_THRESHOLD;
          const isOk = next.reward !== null && next.reward >= SUCCESS_THRESHOLD;
          if (!wasOk && isOk) summary.crossed_up++;
          if (wasOk && !isOk) summary.crossed_down++;
          if (old.deciding_guardrail !== next.deciding_guardrail) {
            const key = `${old.deciding_guardrail}>${next.deciding_guardrail}`;
            const m = moves.get(key) ?? { from: old.deciding_guardrail, to: next.deciding_guardrail, n: 0 };
            m.n++;
            moves.set(key, m);
          }
        }
        const superseded = supersedes.filter((s): s is string => s !== null);
        if (superseded.length) {
          const flipped = await client.query(
            "update ledger set is_current = false where run_id = $1 and id = any($2::bigint[]) and is_current",
            [runId, superseded],
          );
          if (flipped.rowCount !== superseded.length)
            throw new Error(
              "the ledger changed under the re-score (an entry was superseded concurrently); run it again",
            );
        }
        const ids = await allocateIds(client, 0, entries.length);
        await insertLedgerEntries(client, entries, ids.ledger, (t) => rolloutIds.get(t) ?? null, supersedes, delta);
        await client.query("commit");
        if (entries.length > 0) alarms?.committed([runId]);
      } catch (err) {
        await client.query("rollback").catch(() => undefined);
        client.release(err as Error);
        throw err;
      }
      client.release();
      opts.onProgress?.(summary.rollouts);
    }
  } finally {
    // Also when a batch failed: the batches before it are committed.
    await alarms?.settle();
  }
  summary.mean_before = before.n ? before.sum / before.n : null;
  summary.mean_after = after.n ? after.sum / after.n : null;
  summary.transitions = [...moves.values()].sort((a, b) => b.n - a.n || String(a.from).localeCompare(String(b.from)));
  return summary;
}
