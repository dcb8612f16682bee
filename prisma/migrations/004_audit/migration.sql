-- Verity 004: the shadow-audit queue.
--
-- audit_items.trajectory_id: the trajectory browser's "sampled / reviewed" filter looks items up by trajectory.
-- audit_items.disputed_at: set (once) by the first submitted review whose reward differs from the compared ledger
-- entry by more than the batch tolerance, or whose guardrail set differs: the item is then in the adjudication
-- queue until a lead records a cause.
-- audit_item_skips: who skipped what. A skipped item goes back to the queue but is offered to the same annotator
-- again only when nothing else is left, so "skip" moves on instead of handing the same item straight back.
ALTER TABLE "audit_items" ADD COLUMN "disputed_at" TIMESTAMPTZ(3);
CREATE INDEX "audit_items_trajectory_id_idx" ON "audit_items"("trajectory_id");
CREATE INDEX "audit_items_disputed_at_idx" ON "audit_items"("disputed_at");

CREATE TABLE "audit_item_skips" (
    "item_id" BIGINT NOT NULL,
    "user_id" INTEGER NOT NULL,
    "skipped_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "audit_item_skips_pkey" PRIMARY KEY ("item_id", "user_id")
);

ALTER TABLE "audit_item_skips" ADD CONSTRAINT "audit_item_skips_item_id_fkey" FOREIGN KEY ("item_id") REFERENCES "audit_items"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "audit_item_skips" ADD CONSTRAINT "audit_item_skips_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Reviews and adjudications are append-only (001). The shared trigger function AND-ed the table-name test with
-- OLD.is_current, and PL/pgSQL does not promise to short-circuit: on reviews and adjudications (no is_current
-- column) an UPDATE failed with 'record "old" has no field "is_current"' instead of the append-only message.
-- Same rule, nested so that only ledger rows are asked for is_current.
CREATE OR REPLACE FUNCTION verity_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION '% is append-only: rows cannot be deleted', TG_TABLE_NAME;
  END IF;
  IF TG_TABLE_NAME = 'ledger' THEN
    IF OLD.is_current AND NOT NEW.is_current
       AND (to_jsonb(NEW) - 'is_current') = (to_jsonb(OLD) - 'is_current') THEN
      RETURN NEW;
    END IF;
  END IF;
  RAISE EXCEPTION '% is append-only: rows cannot be changed', TG_TABLE_NAME;
END $$;
