-- Verity 023: the clusters' hand-off blind spot holds only the hand-offs whose outcome the verifier still credits.
--
-- A hand-off with nothing done (no guardrail, no sandbox write) on a case that allows hand-offs scores the config's
-- handoff_outcome (0.45): the verifier cannot tell it from a needed hand-off, and that is the blind spot. The bulk
-- fix from a cluster sets `handoff: "not_allowed"` on those cases (or adds a required write), and the re-scored
-- rollout then scores outcome 0 with the reason handoff_instead_of_resolution: the verifier sees it and its reward
-- falls, so it is no longer a blind spot (lib/clusters/sql.ts blindSpotWhere: `l.outcome > 0`). The partial index
-- the blind spot reads index-only (005, 014, 020) gets the same predicate, so that the query's WHERE still implies
-- the index's and the scan still skips the hand-offs the verifier already scores 0. Its columns do not change.
DROP INDEX "ledger_handoffs_idx";
CREATE INDEX "ledger_handoffs_idx" ON "ledger" ("run_id", "rollout_id")
    INCLUDE ("step", "reward", "raw_reward", "ticket_id", "category", "id")
    WHERE "is_current" AND "handoff" AND "guardrail_mask" = 0 AND "outcome" > 0;
