-- Verity 034: rules the database holds itself, where only the application's code (or its locks) held them.

-- 1. One open lease per annotator and batch. Two claims of one annotator at the same moment (a double click, two
-- tabs) each found no lease of theirs and each took a different item: 10 of a batch's 10 items could be held by one
-- person at once. A lease is open while its item is open and names its holder (lease_user_id): an expired lease stays
-- on the row until someone claims the item, or its holder claims again (lib/audit/leases.ts claimNextItem releases
-- the holder's expired leases first), and submitting a review or releasing clears it. Leases held twice before this
-- migration keep the one that lasts longest.
UPDATE "audit_items" i SET "lease_user_id" = NULL, "lease_expires_at" = NULL
  FROM (SELECT id, row_number() OVER (PARTITION BY lease_user_id, batch_id
                                      ORDER BY lease_expires_at DESC NULLS LAST, id DESC) AS n
          FROM "audit_items" WHERE lease_user_id IS NOT NULL AND status = 'open') d
 WHERE i.id = d.id AND d.n > 1;
CREATE UNIQUE INDEX "audit_items_one_lease_idx" ON "audit_items" ("lease_user_id", "batch_id")
  WHERE "lease_user_id" IS NOT NULL AND "status" = 'open';

-- 2. One current ledger entry per trajectory. The ingest and the re-score take the ledger write lock and clear the
-- old entry's is_current before inserting its successor (012's deferred trigger requires the successor); nothing but
-- that lock kept a second current entry from being INSERTed. The key contains the partition key, run_id, as every
-- unique index of a partitioned table must (and a trajectory belongs to one run: trajectories' primary key), so it is
-- one current entry per trajectory.
CREATE UNIQUE INDEX "ledger_one_current_idx" ON "ledger" ("run_id", "trajectory_id") WHERE "is_current";

-- 3. Append-only, on every table that is append-only in meaning. A ledger entry's guardrail and reason rows are
-- written with it and never change; 014's triggers covered the ledger and rollouts only.
CREATE TRIGGER ledger_guardrails_append_only BEFORE UPDATE OR DELETE ON "ledger_guardrails"
  FOR EACH ROW EXECUTE FUNCTION verity_append_only('ledger_guardrails');
CREATE TRIGGER ledger_reasons_append_only BEFORE UPDATE OR DELETE ON "ledger_reasons"
  FOR EACH ROW EXECUTE FUNCTION verity_append_only('ledger_reasons');
CREATE TRIGGER ledger_guardrails_no_truncate BEFORE TRUNCATE ON "ledger_guardrails"
  FOR EACH STATEMENT EXECUTE FUNCTION verity_append_only('ledger_guardrails');
CREATE TRIGGER ledger_reasons_no_truncate BEFORE TRUNCATE ON "ledger_reasons"
  FOR EACH STATEMENT EXECUTE FUNCTION verity_append_only('ledger_reasons');

-- trajectories records which run holds a trajectory id; a row is never changed, and is deleted only by archive, for
-- the run it archives (lib/runs/archive.ts sets verity.archiving_run in its transaction).
CREATE FUNCTION verity_trajectories_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND OLD.run_id = current_setting('verity.archiving_run', true) THEN
    RETURN OLD;
  END IF;
  IF TG_OP = 'TRUNCATE' THEN
    RAISE EXCEPTION 'trajectories is append-only: it cannot be truncated';
  END IF;
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'trajectories is append-only: rows are deleted only by archiving their run (verity run archive)';
  END IF;
  RAISE EXCEPTION 'trajectories is append-only: rows cannot be changed';
END $$;
CREATE TRIGGER trajectories_kept BEFORE UPDATE OR DELETE ON "trajectories"
  FOR EACH ROW EXECUTE FUNCTION verity_trajectories_kept();
CREATE TRIGGER trajectories_no_truncate BEFORE TRUNCATE ON "trajectories"
  FOR EACH STATEMENT EXECUTE FUNCTION verity_trajectories_kept();

-- The rollups are derived from the ledger and kept by one writer, lib/rollups/mutations.ts applyRollupDelta, which
-- sets verity.rollup_writer for its transaction; any other INSERT, UPDATE, DELETE or TRUNCATE is refused (the
-- benchmarks' generators, which write the rollups of simulated runs directly, set it for their session).
CREATE FUNCTION verity_rollups_written_by_writer() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  tbl text := coalesce(TG_ARGV[0], TG_TABLE_NAME);
BEGIN
  IF current_setting('verity.rollup_writer', true) = 'on' THEN
    RETURN CASE TG_OP WHEN 'DELETE' THEN OLD WHEN 'TRUNCATE' THEN NULL ELSE NEW END;
  END IF;
  RAISE EXCEPTION '% is derived from the ledger: only its writer changes it (applyRollupDelta, lib/rollups/mutations.ts); % refused', tbl, TG_OP;
END $$;
CREATE TRIGGER step_rollups_by_writer BEFORE INSERT OR UPDATE OR DELETE ON "step_rollups"
  FOR EACH ROW EXECUTE FUNCTION verity_rollups_written_by_writer('step_rollups');
CREATE TRIGGER step_guardrail_rollups_by_writer BEFORE INSERT OR UPDATE OR DELETE ON "step_guardrail_rollups"
  FOR EACH ROW EXECUTE FUNCTION verity_rollups_written_by_writer('step_guardrail_rollups');
CREATE TRIGGER group_rollups_by_writer BEFORE INSERT OR UPDATE OR DELETE ON "group_rollups"
  FOR EACH ROW EXECUTE FUNCTION verity_rollups_written_by_writer('group_rollups');
CREATE TRIGGER step_rollups_no_truncate BEFORE TRUNCATE ON "step_rollups"
  FOR EACH STATEMENT EXECUTE FUNCTION verity_rollups_written_by_writer('step_rollups');
CREATE TRIGGER step_guardrail_rollups_no_truncate BEFORE TRUNCATE ON "step_guardrail_rollups"
  FOR EACH STATEMENT EXECUTE FUNCTION verity_rollups_written_by_writer('step_guardrail_rollups');
CREATE TRIGGER group_rollups_no_truncate BEFORE TRUNCATE ON "group_rollups"
  FOR EACH STATEMENT EXECUTE FUNCTION verity_rollups_written_by_writer('group_rollups');

-- A partition takes its parent's row triggers, not its statement triggers: the TRUNCATE refusal is given to each
-- existing partition here and to each new one by verity_run_partitions (below, as 029 had it plus these tables).
DO $$
DECLARE
  p record;
BEGIN
  FOR p IN SELECT c.relname AS part, pc.relname AS parent FROM pg_inherits i
             JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class pc ON pc.oid = i.inhparent
            WHERE pc.relname IN ('ledger_guardrails', 'ledger_reasons', 'step_rollups', 'step_guardrail_rollups',
                                 'group_rollups') LOOP
    EXECUTE format('CREATE TRIGGER %I BEFORE TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION %I(%L)',
                   p.part || '_no_truncate', p.part,
                   CASE WHEN p.parent LIKE 'ledger_%' THEN 'verity_append_only' ELSE 'verity_rollups_written_by_writer' END,
                   p.parent);
  END LOOP;
END $$;

CREATE OR REPLACE FUNCTION verity_run_partitions(run text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  t text;
  part text;
  bound text;
BEGIN
  part := verity_run_partition_name('ledger', run);
  IF to_regclass(format('%I', part)) IS NOT NULL THEN
    SELECT pg_get_expr(c.relpartbound, c.oid) INTO bound FROM pg_class c WHERE c.oid = to_regclass(format('%I', part));
    IF bound = format('FOR VALUES IN (%L)', run) THEN
      RETURN;
    END IF;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM "runs" WHERE id = run) THEN
    RAISE EXCEPTION 'run % does not exist: a run''s partitions are made only for a run in runs', run
      USING ERRCODE = 'foreign_key_violation';
  END IF;
  PERFORM pg_advisory_xact_lock(1986359920, hashtext(run));
  FOREACH t IN ARRAY ARRAY['rollouts', 'ledger', 'ledger_guardrails', 'ledger_reasons', 'step_rollups',
                           'step_guardrail_rollups', 'group_rollups'] LOOP
    part := verity_run_partition_name(t, run);
    IF to_regclass(format('%I', part)) IS NOT NULL THEN
      SELECT pg_get_expr(c.relpartbound, c.oid) INTO bound FROM pg_class c WHERE c.oid = to_regclass(format('%I', part));
      IF bound IS DISTINCT FROM format('FOR VALUES IN (%L)', run) THEN
        RAISE EXCEPTION 'partition % exists but is not run %''s (%): run ids % collide on their partition name', part, run,
          coalesce(bound, 'not a partition'), run;
      END IF;
      CONTINUE;
    END IF;
    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', part, t);
    EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES IN (%L)', t, part, run);
    IF t IN ('rollouts', 'ledger', 'ledger_guardrails', 'ledger_reasons') THEN
      EXECUTE format('CREATE TRIGGER %I BEFORE TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION verity_append_only(%L)',
                     part || '_no_truncate', part, t);
    ELSE
      EXECUTE format('CREATE TRIGGER %I BEFORE TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION verity_rollups_written_by_writer(%L)',
                     part || '_no_truncate', part, t);
    END IF;
    IF t = 'rollouts' THEN
      EXECUTE format('CREATE STATISTICS %I ON ("sandbox" -> ''writes'') FROM %I', part || '_no_writes_stats', part);
    ELSIF t = 'ledger_reasons' THEN
      EXECUTE format('CREATE STATISTICS %I (mcv, dependencies) ON "run_id", "code", "tool", "field" FROM %I',
                     part || '_signature_stats', part);
    END IF;
  END LOOP;
END $$;
