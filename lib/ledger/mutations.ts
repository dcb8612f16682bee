// Re-scoring a run under another verifier config: its rollouts in pages, each scored again and written by the ledger
// store's re-score writer (lib/ledger/store/supersede.ts: a changed score becomes a new entry superseding the current
// one). Entries computed elsewhere (source external) are left alone: Verity cannot reproduce them.
import type pg from "pg";
import { CaseCache } from "@/lib/ledger/store/case-cache.ts";
import type { RolloutRowDb } from "@/lib/ledger/store/rows.ts";
import { RescoreTally, rescorePage, type RescoreSummary } from "@/lib/ledger/store/supersede.ts";
import { recordScoreChange } from "@/lib/ledger/score-change-marks.ts";
import type { ChangeListener } from "@/lib/ledger/store/changes.ts";
import { configHash, type VerifierConfig } from "@/lib/verifier/config.ts";

export type RescoreOptions = {
  runId: string;
  config: VerifierConfig;
  batchSize?: number;
  onProgress?: (done: number) => void;
  /** Told the run after each committed batch that changed it, and settled when the re-score is over (the caller's
   * follow-up: alarms, the gate; lib/server/after-write.ts). None by default. */
  after?: ChangeListener;
};

export async function rescoreRun(pool: pg.Pool, opts: RescoreOptions): Promise<RescoreSummary> {
  const { runId, config } = opts;
  const tally = new RescoreTally(runId, configHash(config));
  const cases = new CaseCache();
  let cursor = { step: -1, id: "0" };
  const after = opts.after;
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
      const scoring = { caseOf: (r: RolloutRowDb) => cases.get(r.ticket_id), configOf: () => config };
      if ((await rescorePage(pool, runId, rows, tally, scoring)) > 0) after?.committed([runId]);
      opts.onProgress?.(tally.summary.rollouts);
    }
  } finally {
    // Also when a batch failed: the batches before it are committed.
    await after?.settle();
  }
  await recordScoreChange(pool, tally, { kind: "config", configHash: tally.summary.config_hash });
  return tally.finish();
}
