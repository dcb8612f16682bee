-- Verity 013: the trainer's own reward (trained_reward) travels with the rollout.
--
-- rollouts.trained_reward: the number the trainer optimized for this rollout, as the rollout line gave it.
-- ledger.trained_reward: the entry's, from its score record, else from its rollout; a re-score keeps it.
-- Both nullable (most sources have none) and of any finite value: the trainer's scale need not be the ledger's.
-- Added without a default, so existing rows are not rewritten.
ALTER TABLE "rollouts" ADD COLUMN "trained_reward" DOUBLE PRECISION;
ALTER TABLE "ledger" ADD COLUMN "trained_reward" DOUBLE PRECISION;

-- The browser's "trained reward differs from the ledger's" filter (lib/ledger/browse.ts repeats this predicate
-- word for word, so the planner can use the index): a run's mismatching current entries in key order. Partial, so
-- it holds only the mismatches — none at all on a run whose trainer optimizes what the ledger records.
CREATE INDEX "ledger_trained_differs_idx" ON "ledger" ("run_id", "id")
  WHERE "is_current" AND abs("trained_reward" - "reward") > 1e-6;
