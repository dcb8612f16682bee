-- Verity 024: the re-scores that changed scores (issue 17 §4, "the monitors mark the steps where a spec or config
-- fix changed scores"). One row per run each time a case revision's re-score (kind case_version: the ticket and its
-- new version) or a run's re-score under a config (kind config: its canonical hash) gave entries another reward:
-- how many, the first and last step they are at, and the count per step when the re-score touched at most 500
-- steps (a config re-score of a whole run has one per step: its range alone is kept). The run page's charts draw
-- each as a reference mark. Small (a row per fix and run), so the table stays whole (docs/scale.md).
CREATE TYPE "ScoreChangeKind" AS ENUM ('case_version', 'config');

CREATE TABLE "score_change_marks" (
    "run_id" TEXT NOT NULL,
    "id" BIGSERIAL NOT NULL,
    "kind" "ScoreChangeKind" NOT NULL,
    "ticket_id" TEXT,
    "case_version" INTEGER,
    "config_hash" TEXT,
    "entries" INTEGER NOT NULL,
    "step_min" INTEGER NOT NULL,
    "step_max" INTEGER NOT NULL,
    "step_counts" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "score_change_marks_pkey" PRIMARY KEY ("run_id", "id")
);

ALTER TABLE "score_change_marks" ADD CONSTRAINT "score_change_marks_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
