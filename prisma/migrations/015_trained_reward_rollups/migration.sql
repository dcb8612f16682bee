-- Verity 015: per step, how far the trainer's own reward (trained_reward, 013) is from the ledger's, kept in the
-- step rollups like every other counter (lib/rollups/mutations.ts), so the run page's chart and the monitors' alarm
-- read O(steps) rows at any ledger size.
--
-- trained: current entries with both a trained reward and a ledger reward (the only ones a difference exists for).
-- trained_differs: of those, the ones with |trained_reward - reward| > 1e-6 (lib/stats/trained-reward.ts).
-- trained_abs_diff_sum: Σ |trained_reward - reward| over them; its mean is trained_abs_diff_sum / trained.
ALTER TABLE "step_rollups" ADD COLUMN "trained" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "step_rollups" ADD COLUMN "trained_differs" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "step_rollups" ADD COLUMN "trained_abs_diff_sum" DOUBLE PRECISION NOT NULL DEFAULT 0;

-- Entries written between 013 and this migration (the writers keep the counters from here on): counted once here.
UPDATE "step_rollups" s
   SET "trained" = l.trained, "trained_differs" = l.differs, "trained_abs_diff_sum" = l.abs_sum
  FROM (SELECT "run_id", "step", count(*)::int AS trained,
               count(*) FILTER (WHERE abs("trained_reward" - "reward") > 1e-6)::int AS differs,
               sum(abs("trained_reward" - "reward")) AS abs_sum
          FROM "ledger"
         WHERE "is_current" AND "trained_reward" IS NOT NULL AND "reward" IS NOT NULL
         GROUP BY "run_id", "step") l
 WHERE s."run_id" = l."run_id" AND s."step" = l."step";
