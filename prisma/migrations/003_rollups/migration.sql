-- Verity 003: per-step rollups of the current ledger, kept current by the writers of the ledger (ingest and
-- re-score) in the same transaction as the rows they summarise, so charts read O(steps) rows instead of scanning
-- millions of ledger entries. Every counter covers current entries only (is_current): a re-score subtracts the
-- superseded entry and adds the new one. No foreign key to runs: rollups are derived data keyed by the run id.

-- One row per (run, step). Rates are ratios of these counters; the reward variance is
-- reward_sumsq / rewarded - (reward_sum / rewarded)^2.
CREATE TABLE "step_rollups" (
    "run_id" TEXT NOT NULL,
    "step" INTEGER NOT NULL,
    "rollouts" INTEGER NOT NULL DEFAULT 0,
    "rewarded" INTEGER NOT NULL DEFAULT 0,
    "reward_sum" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "reward_sumsq" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "success" INTEGER NOT NULL DEFAULT 0,
    "handoffs" INTEGER NOT NULL DEFAULT 0,
    "guardrail_hits" INTEGER NOT NULL DEFAULT 0,
    "capped" INTEGER NOT NULL DEFAULT 0,
    "removed_sum" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "spec_errors" INTEGER NOT NULL DEFAULT 0,
    "input_errors" INTEGER NOT NULL DEFAULT 0,
    "external" INTEGER NOT NULL DEFAULT 0,
    "groups" INTEGER NOT NULL DEFAULT 0,
    "flat_groups" INTEGER NOT NULL DEFAULT 0,
    "group_std_sum" DOUBLE PRECISION NOT NULL DEFAULT 0,
    CONSTRAINT "step_rollups_pkey" PRIMARY KEY ("run_id", "step")
);

-- One row per (run, step, guardrail code): how often it triggered, how often it decided the cap, and the reward
-- its cap removed (raw_reward - reward of the entries it decided).
CREATE TABLE "step_guardrail_rollups" (
    "run_id" TEXT NOT NULL,
    "step" INTEGER NOT NULL,
    "code" TEXT NOT NULL,
    "hits" INTEGER NOT NULL DEFAULT 0,
    "deciding" INTEGER NOT NULL DEFAULT 0,
    "removed_sum" DOUBLE PRECISION NOT NULL DEFAULT 0,
    CONSTRAINT "step_guardrail_rollups_pkey" PRIMARY KEY ("run_id", "step", "code")
);

-- One row per GRPO group: the within-group reward spread that step_rollups.group_std_sum averages.
CREATE TABLE "group_rollups" (
    "run_id" TEXT NOT NULL,
    "step" INTEGER NOT NULL,
    "group_id" TEXT NOT NULL,
    "n" INTEGER NOT NULL DEFAULT 0,
    "reward_sum" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "reward_sumsq" DOUBLE PRECISION NOT NULL DEFAULT 0,
    CONSTRAINT "group_rollups_pkey" PRIMARY KEY ("run_id", "step", "group_id")
);

