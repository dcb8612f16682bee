// The write of a score-change mark (migration 024): after a re-score, the steps whose entries it gave another reward,
// for the run page's charts to mark ("spec fix T-123 v2, 14 entries"). Written once a re-score has committed its
// pages; a re-score that changed no reward writes none.
import type pg from "pg";

/** Above this many distinct steps only the range is kept (a config re-score of a whole run touches every step). */
export const MAX_STEP_COUNTS = 500;

export type ScoreChangeSource =
  { kind: "case_version"; ticketId: string; caseVersion: number } | { kind: "config"; configHash: string };

export async function recordScoreChange(
  pool: pg.Pool,
  tally: { summary: { run_id: string }; changedSteps: ReadonlyMap<number, number> },
  source: ScoreChangeSource,
): Promise<void> {
  if (tally.changedSteps.size === 0) return;
  const steps = [...tally.changedSteps].sort((a, b) => a[0] - b[0]);
  const entries = steps.reduce((n, [, c]) => n + c, 0);
  await pool.query(
    `insert into score_change_marks (run_id, kind, ticket_id, case_version, config_hash, entries, step_min, step_max,
                                     step_counts)
     values ($1, $2::"ScoreChangeKind", $3, $4, $5, $6, $7, $8, $9::jsonb)`,
    [
      tally.summary.run_id,
      source.kind,
      source.kind === "case_version" ? source.ticketId : null,
      source.kind === "case_version" ? source.caseVersion : null,
      source.kind === "config" ? source.configHash : null,
      entries,
      steps[0][0],
      steps[steps.length - 1][0],
      steps.length <= MAX_STEP_COUNTS ? JSON.stringify(steps) : null,
    ],
  );
}
