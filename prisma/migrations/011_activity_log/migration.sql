-- One word per concept: "audit" is the shadow audit (audit_batches, audit_items); the record of who did what is the
-- activity log. Renames the table and everything named after it, keeping its rows, its id sequence's position and
-- the append-only trigger (verity_append_only reads TG_TABLE_NAME only for the ledger).
ALTER TABLE "audit_log" RENAME TO "activity_log";
ALTER INDEX "audit_log_at_idx" RENAME TO "activity_log_at_idx";
ALTER INDEX "audit_log_action_at_idx" RENAME TO "activity_log_action_at_idx";
ALTER INDEX "audit_log_actor_id_at_idx" RENAME TO "activity_log_actor_id_at_idx";
ALTER SEQUENCE "audit_log_id_seq" RENAME TO "activity_log_id_seq";
ALTER TRIGGER "audit_log_append_only" ON "activity_log" RENAME TO "activity_log_append_only";

-- The primary key (its index with it), the foreign key and, on PostgreSQL 18 and later, the named NOT NULL
-- constraints (audit_log_<column>_not_null, absent from pg_constraint on earlier versions).
DO $$
DECLARE c record;
BEGIN
  FOR c IN SELECT conname FROM pg_constraint
           WHERE conrelid = '"activity_log"'::regclass AND conname LIKE 'audit\_log\_%' LOOP
    EXECUTE format('ALTER TABLE "activity_log" RENAME CONSTRAINT %I TO %I',
                   c.conname, 'activity_log_' || substr(c.conname, length('audit_log_') + 1));
  END LOOP;
END $$;
