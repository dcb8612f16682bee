-- Verity 016: the audit gate's last verdict per run (lib/gate). The gate is evaluated after each write and review
-- and when asked; a change of verdict is posted to the alarm webhook once. `previous` is the verdict it changed from
-- (null for the first one recorded); the upsert that detects a change sets both in one statement, so two
-- evaluations at once cannot both post it. Derived data keyed by the run id, one row per run (docs/scale.md).

CREATE TYPE "GateVerdict" AS ENUM ('pass', 'fail', 'insufficient');

CREATE TABLE "gate_verdicts" (
    "run_id" TEXT NOT NULL,
    "verdict" "GateVerdict" NOT NULL,
    "previous" "GateVerdict",
    "report" JSONB NOT NULL,
    "changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "evaluated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "webhook" TEXT,
    CONSTRAINT "gate_verdicts_pkey" PRIMARY KEY ("run_id")
);
