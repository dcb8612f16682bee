-- Sorting one deciding guardrail's entries by reward ("the worst of missing_evidence"). With only the run-wide
-- reward index the planner walks the whole run in reward order and filters: a guardrail's entries sit together at
-- its cap (missing_evidence at 0.55 and below), so a descending sort first passes every higher reward. Measured at
-- 1,000,000 entries (bench/browse, "combo: deciding + evidence ≤ 0.5, sort by reward"): 2.2 s p50 before this index.
-- Partial: only entries where a guardrail decided (about a quarter of a run), so ingest maintains a small index.
-- An expression index, like 007's reward sort: listed in SQL_ONLY_INDEXES (lib/db/schema-shape.ts).
CREATE INDEX "ledger_run_id_deciding_reward_sort_id_idx" ON "ledger"("run_id", "deciding_guardrail", (coalesce("reward", -1)), "id")
  WHERE "deciding_guardrail" IS NOT NULL;
