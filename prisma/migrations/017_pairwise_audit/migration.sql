-- Verity 017: pairwise review inside GRPO groups (docs/audit.md "Pairwise batches"). A pairwise batch samples GRPO
-- groups and, in each, one pair of rollouts of the same ticket and step; the annotator says which of the two is
-- better (or a tie) without seeing either's ledger numbers. GRPO consumes rewards relative to the group, so what is
-- measured is whether the ledger orders the pair as a human would.
--
-- A pair is an audit item with a second rollout: the item keeps its rollout, entry and trajectory (rollout A, the
-- lower trajectory id of the two) and gains rollout B's, so the leased queue with its overlap, skips and disputes
-- is the ticket audit's. Like rollout A's, rollout B's foreign keys name the run (the partition, 014).

ALTER TABLE "audit_batches" ADD COLUMN "kind" TEXT NOT NULL DEFAULT 'tickets';
ALTER TABLE "audit_batches" ADD CONSTRAINT "audit_batches_kind_check" CHECK ("kind" IN ('tickets', 'pairwise'));
-- Pairwise batches only: a pair is "clear" when its ledger rewards differ by more than delta, and near_tie_rate
-- is the share of sampled groups that offer a near-tie instead.
ALTER TABLE "audit_batches" ADD COLUMN "delta" DOUBLE PRECISION;
ALTER TABLE "audit_batches" ADD COLUMN "near_tie_rate" DOUBLE PRECISION;

ALTER TABLE "audit_items" ADD COLUMN "rollout_b_id" BIGINT;
ALTER TABLE "audit_items" ADD COLUMN "ledger_b_id" BIGINT;
ALTER TABLE "audit_items" ADD COLUMN "trajectory_b_id" TEXT;
-- Which rollout the annotator sees on the left: drawn per item from the batch's salt and recorded, so position
-- bias can be measured and the page shows the same order after a reload.
ALTER TABLE "audit_items" ADD COLUMN "b_on_left" BOOLEAN;
ALTER TABLE "audit_items" ADD CONSTRAINT "audit_items_pair_check" CHECK (
  ("rollout_b_id" IS NULL AND "ledger_b_id" IS NULL AND "trajectory_b_id" IS NULL AND "b_on_left" IS NULL)
  OR ("rollout_b_id" IS NOT NULL AND "ledger_b_id" IS NOT NULL AND "trajectory_b_id" IS NOT NULL
      AND "b_on_left" IS NOT NULL AND "trajectory_b_id" <> "trajectory_id"));
ALTER TABLE "audit_items" ADD CONSTRAINT "audit_items_run_id_rollout_b_id_fkey" FOREIGN KEY ("run_id", "rollout_b_id") REFERENCES "rollouts"("run_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "audit_items" ADD CONSTRAINT "audit_items_run_id_ledger_b_id_fkey" FOREIGN KEY ("run_id", "ledger_b_id") REFERENCES "ledger"("run_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE;
CREATE INDEX "audit_items_trajectory_b_id_idx" ON "audit_items"("trajectory_b_id");

-- A submitted pairwise judgement. Append-only like reviews: a correction is a new row superseding the old one.
-- preferred_trajectory_id names the rollout preferred (null for a tie) and side where it was shown.
CREATE TABLE "pair_reviews" (
  "id" BIGSERIAL NOT NULL,
  "item_id" BIGINT NOT NULL,
  "reviewer_id" INTEGER NOT NULL,
  "choice" TEXT NOT NULL,
  "preferred_trajectory_id" TEXT,
  "reason" TEXT,
  "note" TEXT NOT NULL DEFAULT '',
  "seconds_spent" INTEGER NOT NULL,
  "excluded_reason" TEXT,
  "supersedes_id" BIGINT,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "pair_reviews_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "pair_reviews_choice_check" CHECK ("choice" IN ('left', 'right', 'tie')),
  CONSTRAINT "pair_reviews_preferred_check" CHECK (("choice" = 'tie') = ("preferred_trajectory_id" IS NULL)),
  CONSTRAINT "pair_reviews_reason_check" CHECK ("reason" IS NULL OR "reason" IN
    ('outcome', 'policy', 'evidence', 'efficiency', 'communication', 'safety'))
);
CREATE UNIQUE INDEX "pair_reviews_supersedes_id_key" ON "pair_reviews"("supersedes_id");
CREATE INDEX "pair_reviews_item_id_reviewer_id_idx" ON "pair_reviews"("item_id", "reviewer_id");
CREATE INDEX "pair_reviews_reviewer_id_created_at_idx" ON "pair_reviews"("reviewer_id", "created_at");
ALTER TABLE "pair_reviews" ADD CONSTRAINT "pair_reviews_item_id_fkey" FOREIGN KEY ("item_id") REFERENCES "audit_items"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "pair_reviews" ADD CONSTRAINT "pair_reviews_reviewer_id_fkey" FOREIGN KEY ("reviewer_id") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "pair_reviews" ADD CONSTRAINT "pair_reviews_supersedes_id_fkey" FOREIGN KEY ("supersedes_id") REFERENCES "pair_reviews"("id") ON DELETE SET NULL ON UPDATE CASCADE;

CREATE TRIGGER pair_reviews_append_only BEFORE UPDATE OR DELETE ON "pair_reviews"
  FOR EACH ROW EXECUTE FUNCTION verity_append_only();
CREATE TRIGGER pair_reviews_no_truncate BEFORE TRUNCATE ON "pair_reviews"
  FOR EACH STATEMENT EXECUTE FUNCTION verity_append_only();
